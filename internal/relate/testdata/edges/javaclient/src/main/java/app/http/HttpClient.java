package app.http;

import app.Client;

public class HttpClient implements Client {
    public void send() {
    }
}
