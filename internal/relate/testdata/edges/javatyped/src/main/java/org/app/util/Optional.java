package org.app.util;

public final class Optional {
  public Object get() {
    return null;
  }
}
