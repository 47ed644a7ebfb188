package org.app.exec;

import java.util.ArrayList;
import java.util.List;

public class SimpleExecutor implements Executor {
  @Override
  public List<Object> query(String statement) {
    return new ArrayList<>();
  }

  @Override
  public void commit(boolean required) {
  }
}
