package demo;

import java.util.List;

// A project method named like java.lang.Object's getClass(), and overloads.
public class Vfs {
    static Class<?> getClass(String className) throws ClassNotFoundException {
        return Class.forName(className);
    }

    int insert(String statement) {
        return insert(statement, null);
    }

    int insert(String statement, Object parameter) {
        return statement.length();
    }

    static String join(String sep, String... parts) {
        return String.join(sep, parts);
    }
}
