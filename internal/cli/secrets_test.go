package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/embedtest"
)

// secretsFixture: a fake OpenAI-compatible embeddings gateway that quotes
// a wrong key whole in its 401 (as some gateways do), a project indexed
// through it with the right key, and a chat server that does the same.
const (
	goodKey  = "sk-good-key-000000000000"
	leakyKey = "sk-leaky-SECRET-4f9c2a7e1b"
	urlPass  = "url-pa55word-9"
)

func leaks(s string) bool {
	return strings.Contains(s, "SECRET-4f9c2a7e1b") || strings.Contains(s, urlPass)
}

// TestSecretsNeverPrinted: index, search, ask and the REPL print neither an
// API key a server echoes in its error body nor the password of a base URL
// anywhere.
func TestSecretsNeverPrinted(t *testing.T) {
	root := askFixture(t)
	setHome(t)
	srv := embedtest.NewOpenAI(t, 8, goodKey)
	srv.EchoKey = true
	setenv(t, "EMBEDDING_PROVIDER", "openai")
	setenv(t, "EMBEDDING_BASE_URL", srv.URL+"/v1")
	setenv(t, "EMBEDDING_API_KEY", goodKey)
	setenv(t, "LLM_BASE_URL", "")
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index with the right key: %d %s %s", code, out, errs)
	}
	setenv(t, "EMBEDDING_API_KEY", leakyKey)
	check := func(what string, code int, out, errs string, want string) {
		t.Helper()
		if leaks(out) || leaks(errs) {
			t.Errorf("%s: a secret was printed:\nstdout: %s\nstderr: %s", what, out, errs)
		}
		if !strings.Contains(out+errs, want) {
			t.Errorf("%s: output lacks %q:\nstdout: %s\nstderr: %s", what, want, out, errs)
		}
	}
	touch := root + "/retry/retry.go"
	if err := os.WriteFile(touch, []byte("package retry\n\n// Again retries once more.\nfunc Again() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "index", root)
	if code == 0 {
		t.Errorf("index with a rejected key exited 0")
	}
	check("index", code, out, errs, "Incorrect API key provided")
	code, out, errs = run(t, "search", "--project", root, "retry with backoff")
	if code == 0 {
		t.Errorf("search with a rejected key exited 0")
	}
	check("search", code, out, errs, "Incorrect API key provided")
	t.Chdir(root) // the REPL's project is the working directory
	code, out, errs = askRun(t, "/search retry with backoff\n/exit\n")
	check("repl", code, out, errs, "Incorrect API key provided")

	// A password in the base URL, server down.
	setenv(t, "EMBEDDING_BASE_URL", "http://user:"+urlPass+"@127.0.0.1:1/v1")
	code, out, errs = run(t, "search", "--project", root, "retry")
	check("search, userinfo", code, out, errs, "not reachable")
	code, out, errs = run(t, "stats")
	check("stats", code, out, errs, "index:")

	// ask: the chat server echoes the key; the base URL has a password.
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	defer chat.Close()
	setenv(t, "EMBEDDING_PROVIDER", "")
	setenv(t, "EMBEDDING_BASE_URL", "")
	setenv(t, "LLM_BASE_URL", strings.Replace(chat.URL, "http://", "http://me:"+urlPass+"@", 1)+"/v1")
	setenv(t, "LLM_MODEL", "gpt-test")
	setenv(t, "LLM_API_KEY", leakyKey)
	code, out, errs = askRun(t, "", "ask", "--project", root, "where is the retry")
	if code == 0 {
		t.Errorf("ask with a rejected key exited 0")
	}
	check("ask", code, out, errs, "Incorrect API key provided")
	code, out, errs = askRun(t, "where is the retry\n/exit\n")
	check("repl ask", code, out, errs, "Incorrect API key provided")
}
