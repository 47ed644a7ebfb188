package org.app.session;

import java.util.List;
import org.app.exec.Executor;

public class Session {
  private final Executor executor;
  private final StringBuilder log = new StringBuilder();

  public Session(Executor executor) {
    this.executor = executor;
  }

  public List<Object> select(String statement) {
    log.append(statement);
    return executor.query(statement);
  }

  public void close() {
    executor.commit(false);
  }
}
