package com.shop.model;

import java.io.Serializable;

public class User extends BaseEntity implements Serializable, Comparable<User> {
    private final String name;

    public User(String name) {
        this.name = name;
    }

    public String getName() {
        return name;
    }

    @Override
    public int compareTo(User o) {
        return Long.compare(getId(), o.getId());
    }
}
