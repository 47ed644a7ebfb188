package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/store"
)

// The setup every test of the package shares: a new index, an engine over
// it, and a client session of a server in process.

// tempStore opens a new index in a temporary directory, closed when t
// ends.
func tempStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// localEmbedder builds the local embedder, the tests' default.
func localEmbedder() (embed.Embedder, error) { return provider.New(embed.Options{Provider: "local"}) }

// testEngine returns a long-lived engine over st whose embedders newEmb
// builds, with the index budget (0: the default), closed when t ends
// (before st, whose cleanup was registered first).
func testEngine(t *testing.T, st *store.Store, newEmb func() (embed.Embedder, error), budget time.Duration) *engine.Engine {
	t.Helper()
	eng, err := engine.New(engine.Config{Store: st, Embedders: engine.Fixed(newEmb), IndexBudget: budget, LongLived: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// tempEngine is testEngine over a new index (tempStore).
func tempEngine(t *testing.T, newEmb func() (embed.Embedder, error), budget time.Duration) *engine.Engine {
	t.Helper()
	return testEngine(t, tempStore(t), newEmb, budget)
}

// connect serves srv in process over an in-memory transport and returns
// the client session, connected with opts (nil: the SDK's defaults). When
// t ends the session is closed, then the server.
func connect(t *testing.T, srv *Server, opts *sdk.ClientSessionOptions) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st1, st2 := sdk.NewInMemoryTransports()
	ss, err := srv.sdk.Connect(ctx, st1, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, st2, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		srv.Close()
	})
	return cs
}

// testWriter writes a server's log lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
