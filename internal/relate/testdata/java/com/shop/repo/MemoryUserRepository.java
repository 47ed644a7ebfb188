package com.shop.repo;

import com.shop.model.User;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

public class MemoryUserRepository implements UserRepository {
    private final Map<Long, User> users = new HashMap<>();

    @Override
    public Optional<User> findById(long id) {
        return Optional.ofNullable(users.get(id));
    }

    @Override
    public void save(User user) {
        user.touch();
        users.put(user.getId(), user);
    }
}
