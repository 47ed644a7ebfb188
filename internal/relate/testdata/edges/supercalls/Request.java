package shapes;

class Request {
    static class Options {
        int readTimeoutMillis() {
            return 10;
        }
    }
}

class HttpClient {
    int timeout(Request.Options options) {
        return options.readTimeoutMillis();
    }
}
