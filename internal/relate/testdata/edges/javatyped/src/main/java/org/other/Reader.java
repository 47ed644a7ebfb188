package org.other;

import java.util.Optional;

public class Reader {
  public Object first(Optional value) {
    return value.get();
  }
}
