package com.shop.model;

public abstract class BaseEntity {
    protected long id;

    public long getId() {
        return id;
    }

    public void touch() {
        validate();
    }

    protected void validate() {
    }
}
