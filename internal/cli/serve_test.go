package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestServeCommand: `coderag serve --addr 127.0.0.1:0` serves the index of
// $CODERAG_HOME, takes its token from CODERAG_TOKEN, and stops when its
// context ends; bad flag combinations are usage errors.
func TestServeCommand(t *testing.T) {
	setHome(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// Ping answers pong.\nfunc Ping() string { return \"pong\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "index", dir); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	setenv(t, "CODERAG_TOKEN", "tok")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, testLookup(t), io.Discard, pw)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("serve printed nothing: %v", sc.Err())
	}
	first := sc.Text()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(first)
	if url == "" || !strings.Contains(first, "writes need the token") {
		t.Fatalf("first line %q", first)
	}
	res, err := http.Get(url + "/api/search?q=ping")
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Results []struct {
			Project string `json:"project"`
			Path    string `json:"path"`
		} `json:"results"`
	}
	err = json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if err != nil || len(out.Results) == 0 || out.Results[0].Path != "a.go" {
		t.Fatalf("search: %v %+v", err, out)
	}
	// the server's header cap (serve.MaxHeaderBytes), below net/http's 1 MiB
	big, _ := http.NewRequest("GET", url+"/api/status", nil)
	big.Header.Set("X-Pad", strings.Repeat("a", 100<<10))
	if res, err := http.DefaultClient.Do(big); err != nil || res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("100 KiB of headers: %v %v, want 431", err, res)
	}
	req, _ := http.NewRequest("POST", url+"/api/index", strings.NewReader(`{"root":"`+dir+`"}`))
	req.Header.Set("Authorization", "Bearer tok")
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusAccepted {
		t.Fatalf("index with CODERAG_TOKEN: %v %v", err, res.StatusCode)
	}
	cancel()
	if code := <-done; code != exitInterrupted {
		t.Errorf("serve after cancel: exit %d, want %d", code, exitInterrupted)
	}

	setenv(t, "CODERAG_TOKEN", "")
	if code, _, errs := run(t, "serve", "--private"); code != exitUsage || !strings.Contains(errs, "needs a token") {
		t.Errorf("--private without a token: exit %d %s", code, errs)
	}
	// a PostgreSQL index that cannot be reached: an error without the password
	if code, _, errs := run(t, "serve", "--store", "postgres://me:hunter2@127.0.0.1:1/x"); code == 0 || strings.Contains(errs, "hunter2") || !strings.Contains(errs, "127.0.0.1") {
		t.Errorf("--store URL: exit %d %s", code, errs)
	}
}

// TestServeNewStoreNoted: serve over a --store that did not exist (a
// mistyped path) says at start that it made a new, empty index; over an
// existing one it does not.
func TestServeNewStoreNoted(t *testing.T) {
	setHome(t)
	start := func(args ...string) string {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- Main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), testLookup(t), io.Discard, pw)
			pw.Close()
		}()
		sc := bufio.NewScanner(pr)
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.HasPrefix(sc.Text(), "coderag serve ") {
				break
			}
		}
		// the notes are written before the server serves: stop it and
		// read what it wrote up to its exit
		cancel()
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		<-done
		return strings.Join(lines, "\n")
	}
	fresh := filepath.Join(t.TempDir(), "sub", "typo.db")
	if out := start("--store", fresh); !strings.Contains(out, "note: there was no index at "+fresh) {
		t.Errorf("a new store is not noted:\n%s", out)
	}
	if out := start("--store", fresh); strings.Contains(out, "there was no index") {
		t.Errorf("an existing store is noted as new:\n%s", out)
	}
}
