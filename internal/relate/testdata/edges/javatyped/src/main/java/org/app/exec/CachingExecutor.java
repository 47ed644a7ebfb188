package org.app.exec;

import java.util.List;

public class CachingExecutor implements Executor {
  private final Executor delegate;

  public CachingExecutor(Executor delegate) {
    this.delegate = delegate;
  }

  @Override
  public List<Object> query(String statement) {
    return delegate.query(statement);
  }

  @Override
  public void commit(boolean required) {
    this.delegate.commit(required);
  }
}
