package app;

public interface Client {
    void send();
}
