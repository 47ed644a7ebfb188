package demo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

// A project class whose methods share names with every collection's.
public class Registry {
    private final Map<String, Object> entries = new HashMap<>();

    public int size() {
        return entries.size();
    }

    public Object put(String key, Object value) {
        return entries.put(key, value);
    }

    public Object lookup(String key) {
        return entries.get(key);
    }
}
