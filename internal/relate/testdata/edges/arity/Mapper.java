package demo;

// Calls that only the number of their arguments tells apart.
public class Mapper {
    private final Vfs session = new Vfs();

    String describe(Object value) {
        return value.getClass().getName();
    }

    int save(String name, Object row) {
        return session.insert(name, row);
    }

    String label(String a, String b, String c) {
        return Vfs.join("-", a, b, c);
    }
}
