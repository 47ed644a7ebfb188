package app.form.spring;

public class Client {
    static class Config {
    }
}
