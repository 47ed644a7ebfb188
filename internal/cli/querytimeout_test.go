package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/embedtest"
)

// TestSearchQueryTimeout: EMBEDDING_QUERY_TIMEOUT bounds how long `search`
// waits for an embedding server that takes the query's request and never
// answers; the search then answers by keywords with a note naming the
// time-out, after one request.
func TestSearchQueryTimeout(t *testing.T) {
	setHome(t)
	srv := embedtest.NewOllama(t, 8)
	setenv(t, "EMBEDDING_PROVIDER", "ollama")
	setenv(t, "EMBEDDING_BASE_URL", srv.URL)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "shop.go"), "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n")
	writeFile(t, filepath.Join(dir, "ship.go"), "package shop\n\n// ShipOrder sends an order to its address.\nfunc ShipOrder(id int) error { return nil }\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	srv.Hang()
	setenv(t, "EMBEDDING_QUERY_TIMEOUT", "200ms")
	before := srv.Requests()
	code, out, errs := run(t, "search", "--json", "--project", dir, "bill the customer's card")
	var resp struct {
		Note    string `json:"note"`
		Results []struct {
			Path string `json:"path"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || code != 0 {
		t.Fatalf("search: exit %d %v\n%s\n%s", code, err, out, errs)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "shop.go" {
		t.Errorf("results %+v, want shop.go first by its keywords", resp.Results)
	}
	for _, want := range []string{"the query could not be embedded", "did not answer in time", "waited 200ms", "EMBEDDING_QUERY_TIMEOUT"} {
		if !strings.Contains(resp.Note, want) {
			t.Errorf("note %q lacks %q", resp.Note, want)
		}
	}
	if n := srv.Requests() - before; n != 1 {
		t.Errorf("the server got %d requests, want 1 (the query's)", n)
	}
	// a bad value is an error, not the default in silence
	for _, bad := range []string{"abc", "0", "-1s"} {
		setenv(t, "EMBEDDING_QUERY_TIMEOUT", bad)
		code, out, errs := run(t, "search", "--project", dir, "bill the customer's card")
		if code != exitUsage || out != "" || !strings.Contains(errs, "EMBEDDING_QUERY_TIMEOUT") {
			t.Errorf("EMBEDDING_QUERY_TIMEOUT=%s: exit %d, stdout %q, stderr %q; want a usage error naming it", bad, code, out, errs)
		}
	}
}

// TestSearchDoesNotSendToAnUnconfiguredServer: a project indexed against a
// private OpenAI-compatible server, searched without that server
// configured, does not send the query to the default api.openai.com (the
// index does not record the server): the search fails with one line that
// names the settings to give, and sends nothing. With the settings, the
// server answers.
func TestSearchDoesNotSendToAnUnconfiguredServer(t *testing.T) {
	setHome(t)
	srv := embedtest.NewOpenAI(t, 8, "sk-test-key-1234")
	setenv(t, "EMBEDDING_API_KEY", "sk-test-key-1234")
	setenv(t, "EMBEDDING_PROVIDER", "openai")
	setenv(t, "EMBEDDING_BASE_URL", srv.URL+"/v1")
	setenv(t, "EMBEDDING_MODEL", "text-embedding-3-small")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "shop.go"), "package shop\n\n// ChargeCustomer bills the customer's card.\nfunc ChargeCustomer(amount int) error { return nil }\n")
	if code, out, errs := run(t, "index", "--quiet", dir); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	setenv(t, "EMBEDDING_PROVIDER", "")
	setenv(t, "EMBEDDING_BASE_URL", "")
	setenv(t, "EMBEDDING_API_KEY", "")
	code, out, errs := run(t, "search", "--project", dir, "bill the customer's card")
	if code == 0 || strings.Contains(out+errs, "api.openai.com") || !strings.Contains(errs, "EMBEDDING_BASE_URL") {
		t.Errorf("search without the server configured: exit %d, want an error naming EMBEDDING_BASE_URL and no api.openai.com\n%s\n%s", code, out, errs)
	}
	setenv(t, "EMBEDDING_PROVIDER", "openai")
	setenv(t, "EMBEDDING_BASE_URL", srv.URL+"/v1")
	setenv(t, "EMBEDDING_API_KEY", "sk-test-key-1234")
	before := srv.Requests()
	if code, out, errs := run(t, "search", "--project", dir, "bill the customer's card"); code != 0 || srv.Requests() == before || !strings.Contains(out, "shop.go") {
		t.Errorf("configured again: exit %d, requests %d -> %d\n%s\n%s", code, before, srv.Requests(), out, errs)
	}
}
