package demo;

import java.util.List;

// Calls on values: a list's size() and a registry's put() read alike.
public class Loader {
    private final Registry registry = new Registry();

    int count(List<String> names) {
        return names.size();
    }

    void load(String key) {
        registry.put(key, key.trim());
        registry.lookup(key);
    }

    Registry find() {
        return registry;
    }

    // a value whose class no declaration names: the call is by name
    int chained(String key) {
        find().put(key, key);
        return find().size();
    }
}
