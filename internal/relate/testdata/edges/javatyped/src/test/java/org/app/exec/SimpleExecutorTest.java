package org.app.exec;

// A test in the executors' package, under another source root: it sees
// SimpleExecutor without an import.
class SimpleExecutorTest {
    void runsTheQuery() {
        SimpleExecutor executor = new SimpleExecutor();
        executor.commit(true);
    }
}
