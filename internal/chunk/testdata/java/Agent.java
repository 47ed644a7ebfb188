/*
 * Copyright (c) 2024 Example Corp. Licensed under the Apache License 2.0.
 */
package com.example.agent;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import com.example.llm.LlmClient;
import static org.junit.Assert.assertEquals;

/**
 * A ReAct agent that answers questions with tools.
 */
@Component
public class Agent extends BaseAgent implements Runnable, AutoCloseable {
    private final LlmClient client;
    private final List<String> history;
    private int steps;

    public Agent(LlmClient client) {
        super(client);
        this.client = client;
        this.history = new java.util.ArrayList<>();
    }

    /** Runs one turn. */
    @Override
    public String run(String userInput) throws IOException {
        history.add(userInput);
        Runnable r = new Runnable() {
            @Override
            public void run() {
                client.ping();
            }
        };
        return client.chat(userInput, x -> format(x));
    }

    static <T> List<T> collect(final Map<String, T> items,
                               int limit) {
        return items.values().stream().limit(limit).toList();
    }

    public void run() {}

    static class ThreadLocalMap {
        void set(ThreadLocal<?> key, Object value) {
            table.put(key, value);
        }
    }

    interface Listener extends EventListener {
        void onEvent(String event);
    }

    enum State { IDLE, RUNNING }

    record Step(String thought, String action) {}

    @Override
    public void close() {
        client.close();
    }
}
