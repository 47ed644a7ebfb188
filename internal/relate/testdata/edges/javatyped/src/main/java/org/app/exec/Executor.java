package org.app.exec;

import java.util.List;

public interface Executor {
  List<Object> query(String statement);

  void commit(boolean required);
}
