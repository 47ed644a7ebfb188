package com.shop;

import com.shop.repo.MemoryUserRepository;
import com.shop.service.UserService;

public class App {
    public static void main(String[] args) {
        UserService s = new UserService(new MemoryUserRepository());
        run(s);
    }

    static void run(UserService s) {
        System.out.println(s.describe(1));
    }
}
