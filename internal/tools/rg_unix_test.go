//go:build unix

package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeRG installs a shell script as ripgrep for one test.
func fakeRG(t *testing.T, script string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rg")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := rgPath
	rgPath = func() (string, error) { return p, nil }
	t.Cleanup(func() { rgPath = old })
}

func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("fake rg did not start: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// Grep reaps rg before it returns, so the first probe normally finds it
	// gone; the 10 s of polling only keep a loaded machine from failing.
	for i := 0; i < 500; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("rg process %d still running", pid)
}

func TestGrepTimeoutAndCancel(t *testing.T) {
	root := fixture(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Run("ripgrep timeout is partial and kills rg", func(t *testing.T) {
		// rg never ends by itself; the parent context is a hang guard, far
		// above the 2 s grep timeout: Grep must return on its own
		// timeout, with the guard still unexpired, not wait for rg. (At
		// 300 ms a loaded machine killed the fake before its shell had
		// written its pid.)
		fakeRG(t, "echo $$ > "+pidFile+"\nexec sleep 600")
		guard, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r, err := Grep(guard, root, GrepParams{Pattern: "foo", Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if guard.Err() != nil {
			t.Fatalf("Grep returned only when the hang guard expired: %v", guard.Err())
		}
		if r.Engine != EngineRipgrep || !r.Partial || !slices.Equal(r.PartialReasons, []string{ReasonTimeout}) || !strings.Contains(r.Note, "timed out") {
			t.Fatalf("%+v", r)
		}
		waitGone(t, pidFile)
	})
	t.Run("cancel kills rg and returns the cancel", func(t *testing.T) {
		// cancelled once the fake has written its pid (its own file, not
		// the first subtest's), however slow its shell is to start
		started := filepath.Join(t.TempDir(), "pid")
		fakeRG(t, "echo $$ > "+started+"\nexec sleep 30")
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for i := 0; i < 1000; i++ {
				if b, err := os.ReadFile(started); err == nil && len(b) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
		}()
		_, err := Grep(ctx, root, GrepParams{Pattern: "foo"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		waitGone(t, started)
	})
	t.Run("native timeout is partial", func(t *testing.T) {
		r, err := Grep(context.Background(), root, GrepParams{Pattern: "foo", Engine: EngineNative, Timeout: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Partial || !slices.Contains(r.PartialReasons, ReasonTimeout) {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("native cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Grep(ctx, root, GrepParams{Pattern: "foo", Engine: EngineNative}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestGrepFallbacks(t *testing.T) {
	root := fixture(t)
	t.Run("ripgrep missing uses native", func(t *testing.T) {
		old := rgPath
		rgPath = func() (string, error) { return "", errors.New("rg not found") }
		defer func() { rgPath = old }()
		r := grep(t, root, GrepParams{Pattern: "foo bar"})
		if r.Engine != EngineNative || len(r.Matches) != 1 {
			t.Fatalf("%+v", r)
		}
		if _, err := Grep(context.Background(), root, GrepParams{Pattern: "foo", Engine: EngineRipgrep}); !errors.Is(err, ErrSearchUnavailable) {
			t.Fatalf("forced ripgrep without rg: %v", err)
		}
	})
	t.Run("ripgrep failing falls back with a note", func(t *testing.T) {
		fakeRG(t, "echo 'regex parse error: boom' >&2\nexit 2")
		r := grep(t, root, GrepParams{Pattern: "foo bar"})
		if r.Engine != EngineNative || len(r.Matches) != 1 || !strings.Contains(r.Note, "boom") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("no engine at all is search unavailable", func(t *testing.T) {
		oldRG, oldNative := rgPath, nativeSearch
		rgPath = func() (string, error) { return "", errors.New("rg not found") }
		nativeSearch = func(context.Context, *query, func(fileHits) bool) error { return errors.New("disk on fire") }
		defer func() { rgPath, nativeSearch = oldRG, oldNative }()
		_, err := Grep(context.Background(), root, GrepParams{Pattern: "foo"})
		if !errors.Is(err, ErrSearchUnavailable) || !strings.Contains(err.Error(), "search unavailable") {
			t.Fatalf("err = %v", err)
		}
	})
}
