package com.shop.repo;

import com.shop.model.User;
import java.util.Optional;

public interface UserRepository {
    Optional<User> findById(long id);

    void save(User user);
}
