// Command load is the store load benchmark: on SQLite and on PostgreSQL in
// turn, it indexes one project, then runs 50 clients searching it in a loop
// while two indexers keep rewriting two other projects, and reports per
// store the searches, errors (which must be 0), p50 and p95 latency, and
// the ratios PostgreSQL / SQLite. Everything runs in this process: the
// clients share one Store (as a server does), each indexer has a Store of
// its own (as a CI runner does).
//
// usage: go run ./bench/load -pg postgres://user:pass@host/postgres [-clients 50] [-duration 20s]
//
// -pg names a maintenance database on which the role may CREATE DATABASE;
// the benchmark's database is dropped at the end.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	_ "github.com/coderag/coderag/internal/store/postgres" // registers PostgreSQL targets
	_ "github.com/coderag/coderag/internal/store/sqlite"   // registers SQLite files
)

// queries are the clients' questions about the searched project (net/http).
var queries = []string{
	"parse the HTTP request line", "how are cookies parsed and serialized", "Transport", "ServeMux.Handle",
	"where does the server close idle keep-alive connections", "redirect policy of the client",
	"ResponseWriter WriteHeader", "chunked transfer encoding reader", "basic authentication header",
	"file server directory listing", "请求体的大小限制在哪里",
}

type result struct {
	store            string
	searches, errors int
	p50, p95         time.Duration
	indexRuns        int64
	firstErr         error
}

func main() {
	pgAdmin := flag.String("pg", os.Getenv("CODERAG_TEST_POSTGRES"), "PostgreSQL maintenance database URL (default $CODERAG_TEST_POSTGRES)")
	clients := flag.Int("clients", 50, "concurrent searching clients")
	duration := flag.Duration("duration", 20*time.Second, "how long the clients search, per store")
	src := flag.String("project", filepath.Join(runtime.GOROOT(), "src", "net", "http"), "the searched project")
	flag.Parse()
	if *pgAdmin == "" {
		fail(errors.New("-pg (or CODERAG_TEST_POSTGRES) is required"))
	}
	ctx := context.Background()
	work, err := os.MkdirTemp("", "coderag-load-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	target, drop, err := newDatabase(ctx, *pgAdmin)
	if err != nil {
		fail(err)
	}
	defer drop()
	fmt.Printf("load: %d clients searching %s for %s while 2 indexers write; GOMAXPROCS %d, %d CPUs\n",
		*clients, *src, *duration, runtime.GOMAXPROCS(0), runtime.NumCPU())
	var res []result
	for _, kind := range []struct{ name, target string }{
		{"sqlite", filepath.Join(work, "index.db")},
		{"postgres", target},
	} {
		r, err := run(ctx, kind.name, kind.target, *src, filepath.Join(work, kind.name), *clients, *duration)
		if err != nil {
			fail(fmt.Errorf("%s: %w", kind.name, err))
		}
		res = append(res, r)
	}
	fmt.Printf("%-9s %9s %10s %7s %9s %9s %11s\n", "store", "searches", "searches/s", "errors", "p50", "p95", "index runs")
	for _, r := range res {
		fmt.Printf("%-9s %9d %10.1f %7d %9s %9s %11d\n", r.store, r.searches, float64(r.searches)/duration.Seconds(), r.errors,
			r.p50.Round(time.Millisecond), r.p95.Round(time.Millisecond), r.indexRuns)
		if r.firstErr != nil {
			fmt.Printf("  first error: %v\n", r.firstErr)
		}
	}
	fmt.Printf("postgres/sqlite: p50 %.2fx, p95 %.2fx\n",
		float64(res[1].p50)/float64(res[0].p50), float64(res[1].p95)/float64(res[0].p95))
	if res[0].errors+res[1].errors > 0 {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "load:", err)
	os.Exit(1)
}

// newDatabase creates a database with a random name on the server of
// admin and returns its URL and a func that drops it.
func newDatabase(ctx context.Context, admin string) (string, func(), error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", nil, err
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "coderag_load_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("create database: %w", err)
	}
	u.Path = "/" + name
	return u.String(), func() {
		_, _ = db.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		db.Close()
	}, nil
}

// run measures one store: the searched project is indexed first, then the
// clients search while two indexers rewrite copies of encoding/json and
// go/ast, round after round, until the duration ends.
func run(ctx context.Context, name, target, src, work string, clients int, d time.Duration) (result, error) {
	r := result{store: name}
	emb, err := provider.New(embed.Options{Provider: "local", Expand: analyze.GlossaryExpand, Analyzer: analyze.New(nil)})
	if err != nil {
		return r, err
	}
	st, err := store.Open(ctx, target)
	if err != nil {
		return r, err
	}
	defer st.Close()
	root, err := index.ResolveRoot(src)
	if err != nil {
		return r, err
	}
	if _, err := index.Run(ctx, st, emb, root, index.Options{Threads: 2}); err != nil {
		return r, fmt.Errorf("index %s: %w", root, err)
	}
	st.CacheVectors(true) // a long-lived server caches vectors
	var trees []string
	for _, rel := range []string{"encoding/json", "go/ast"} {
		dst, err := copyTree(filepath.Join(runtime.GOROOT(), "src", rel), filepath.Join(work, filepath.Base(rel)))
		if err != nil {
			return r, err
		}
		trees = append(trees, dst)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var runs atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	for _, tree := range trees {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := store.Open(ctx, target)
			if err != nil {
				mu.Lock()
				r.errors++
				r.firstErr = err
				mu.Unlock()
				return
			}
			defer w.Close()
			for round := 0; ; round++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := touch(tree, round); err != nil {
					fail(err)
				}
				if _, err := index.Run(ctx, w, emb, tree, index.Options{Threads: 1, BatchSize: 16}); err != nil {
					fail(fmt.Errorf("indexer %s: %w", tree, err))
				}
				runs.Add(1)
			}
		}()
	}
	s := &search.Searcher{Store: st, Embedder: emb, Project: root}
	deadline := time.Now().Add(d)
	var cw sync.WaitGroup
	for c := 0; c < clients; c++ {
		cw.Add(1)
		go func() {
			defer cw.Done()
			var mine []time.Duration
			for i := c; time.Now().Before(deadline); i++ {
				t0 := time.Now()
				resp, err := s.Search(ctx, queries[i%len(queries)], search.Options{TopK: 10})
				el := time.Since(t0)
				if err == nil && len(resp.Results) == 0 {
					err = fmt.Errorf("no results for %q", queries[i%len(queries)])
				}
				if err != nil {
					mu.Lock()
					r.errors++
					if r.firstErr == nil {
						r.firstErr = err
					}
					mu.Unlock()
					continue
				}
				mine = append(mine, el)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	cw.Wait()
	close(stop)
	wg.Wait()
	r.indexRuns = runs.Load()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.searches = len(lat) + r.errors
	if len(lat) > 0 {
		r.p50, r.p95 = lat[len(lat)*50/100], lat[len(lat)*95/100]
	}
	return r, nil
}

// copyTree copies the .go files of src (one level) to dst and returns the
// resolved dst.
func copyTree(src, dst string) (string, error) {
	ents, err := os.ReadDir(src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return "", err
		}
	}
	return index.ResolveRoot(dst)
}

// touch appends a comment to every file of root, so the next run rewrites
// all of them.
func touch(root string, round int) error {
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		f, err := os.OpenFile(filepath.Join(root, e.Name()), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "\n// round %d\n", round)
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
