package com.shop.service;

import com.shop.model.User;
import com.shop.repo.UserRepository;
import java.util.HashMap;
import java.util.Map;

public class UserService {
    private final UserRepository repo;

    public UserService(UserRepository repo) {
        this.repo = repo;
    }

    public User find(long id) {
        return repo.findById(id).orElseThrow();
    }

    public User find(String name) {
        return null;
    }

    public String describe(long id) {
        return format(find(id));
    }

    private String format(User u) {
        return u.getName();
    }

    static class Cache {
        private final Map<Long, User> entries = new HashMap<>();

        User fetch(long id) {
            return lookup(id);
        }

        private User lookup(long id) {
            return entries.get(id);
        }

        class Entry {
            void refresh() {
                lookup(1);
            }
        }
    }

    interface Listener {
        void onChange(User u);
    }
}
