package index

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
)

// notProbe returns texts without the model probe's (ProbeText).
func notProbe(texts []string) []string {
	var out []string
	for _, t := range texts {
		if t != ProbeText {
			out = append(out, t)
		}
	}
	return out
}

// onBackends runs test on a SQLite index and on a PostgreSQL one (skipped
// without CODERAG_TEST_POSTGRES); dsn is the PostgreSQL database's, "" on
// SQLite.
func onBackends(t *testing.T, test func(t *testing.T, st *store.Store, dsn string)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		test(t, openStore(t), "")
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := testutil.Postgres(t)
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		test(t, st, dsn)
	})
}

// probeProject writes three small files of a project and returns its root.
func probeProject(t *testing.T) string {
	root := resolved(t, t.TempDir())
	writeFile(t, root, "a.go", "package a\n\n// A adds one.\nfunc A(x int) int { return x + 1 }\n")
	writeFile(t, root, "b.go", "package a\n\n// B doubles.\nfunc B(x int) int { return 2 * x }\n")
	writeFile(t, root, "notes.txt", "the notes of the marker project\n")
	return root
}

// checkVectors fails unless every stored vector of the project is the one
// the fake serves at seed for one of sent (the texts the server got, with
// the provider's prefixes), and none is of the mapping before (old), so
// that a search ranks by the new model's vectors alone.
func checkVectors(t *testing.T, st *store.Store, root string, sent []string, dim int, seed, old uint64) {
	t.Helper()
	ctx := context.Background()
	n := 0
	for _, path := range []string{"a.go", "b.go", "notes.txt"} {
		blobs, err := st.FileVectors(ctx, root, path)
		if err != nil || len(blobs) == 0 {
			t.Fatalf("%s: %d vectors (%v)", path, len(blobs), err)
		}
		for _, b := range blobs {
			v := store.DecodeVector(b)
			best, bestOld := 0.0, 0.0
			for _, s := range sent {
				best = max(best, cosine(v, embedtest.SeededVector(s, dim, seed)))
				bestOld = max(bestOld, cosine(v, embedtest.SeededVector(s, dim, old)))
			}
			if best < 0.99 || bestOld > 0.9 {
				t.Errorf("%s: a vector of cosine %.3f with the new model's, %.3f with the old one's", path, best, bestOld)
			}
			n++
		}
	}
	// a search, by the project's embedder, reads every one of them
	probe := store.DecodeVector(firstBlob(t, st, root, "a.go"))
	p, err := st.GetProject(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.TopKCosine(ctx, root, p.Embedder, probe, 100); err != nil || len(got) != n {
		t.Fatalf("a search reads %d vectors (%v), want the %d of the new model", len(got), err, n)
	}
}

func firstBlob(t *testing.T, st *store.Store, root, path string) []byte {
	t.Helper()
	blobs, err := st.FileVectors(context.Background(), root, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blobs {
		return b
	}
	t.Fatalf("%s has no vector", path)
	return nil
}

// TestModelSwapSameDim: a remote server whose model is replaced behind
// the same name, at the same dimension, answers the probe text otherwise:
// the next run, with no file edited, embeds every file again (reusing no
// stored vector), says so, and leaves only the new model's vectors for
// searches. A run without a swap sends the probe text alone and embeds
// nothing.
func TestModelSwapSameDim(t *testing.T) {
	t.Parallel()
	onBackends(t, func(t *testing.T, st *store.Store, dsn string) {
		ctx := context.Background()
		srv := embedtest.NewOpenAI(t, 8, "k")
		emb, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		root := probeProject(t)
		rep, err := Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 3 || rep.ModelChanged {
			t.Fatalf("first run: %+v %v", rep, err)
		}
		if _, ok, err := st.ModelProbe(ctx, root); !ok || err != nil {
			t.Fatalf("no model probe stored after the first run (%v)", err)
		}

		// no swap: the probe text alone is sent, nothing is embedded
		sent := len(srv.Texts())
		rep, err = Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 0 || rep.Unchanged != 3 || rep.ModelChanged {
			t.Fatalf("a run without a swap: %+v %v", rep, err)
		}
		if texts := srv.Texts()[sent:]; len(texts) != 1 || texts[0] != ProbeText {
			t.Fatalf("a run without a swap sent %q, want the probe text alone", texts)
		}

		// another model behind the same name and dimension; a new process
		srv.SetSeed(1)
		emb, err = provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		sent = len(srv.Texts())
		rep, err = Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 3 || rep.Unchanged != 0 || rep.Reused != 0 || rep.Failed != 0 || !rep.ModelChanged {
			t.Fatalf("a run after a swap: %+v %v, want every file embedded again, none reused, ModelChanged", rep, err)
		}
		swapped := srv.Texts()[sent:]
		if n := len(notProbe(swapped)); n < 3 {
			t.Fatalf("sent %d texts after the swap, want every chunk's", n)
		}
		checkVectors(t, st, root, swapped, 8, 1, 0)
		if m, ok, err := st.Mixed(ctx, root); ok || err != nil {
			t.Fatalf("mixed after a whole run: %+v %v", m, err)
		}

		// the new model again: nothing more to do
		sent = len(srv.Texts())
		rep, err = Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 0 || rep.ModelChanged || len(srv.Texts()) != sent+1 {
			t.Fatalf("the run after: %+v %v, %d texts sent", rep, err, len(srv.Texts())-sent)
		}
	})
}

// TestModelSwapResumes: a run after a swap whose embedder fails for a
// file leaves that file's old vectors retired (not searched: the index is
// mixed), and the next run embeds it again though neither it nor the
// model changed since; Ollama's API this time.
func TestModelSwapResumes(t *testing.T) {
	t.Parallel()
	onBackends(t, func(t *testing.T, st *store.Store, dsn string) {
		ctx := context.Background()
		srv := embedtest.NewOllama(t, 8)
		emb, err := provider.New(embed.Options{Provider: "ollama", BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		root := probeProject(t)
		if rep, err := Run(ctx, st, emb, root, Options{}); err != nil || rep.Changed != 3 {
			t.Fatalf("first run: %+v %v", rep, err)
		}

		// the same name served by another model, by another server that
		// fails for notes.txt
		other := embedtest.NewOllama(t, 8)
		other.SetSeed(7)
		other.Poison = "marker"
		emb2, err := provider.New(embed.Options{Provider: "ollama", BaseURL: other.URL})
		if err != nil {
			t.Fatal(err)
		}
		if emb2.ID() != emb.ID() {
			t.Fatalf("ids %s and %s", emb2.ID(), emb.ID())
		}
		rep, err := Run(ctx, st, emb2, root, Options{BatchSize: 1})
		if err != nil || rep.Changed != 2 || rep.Failed != 1 || !rep.ModelChanged {
			t.Fatalf("a swap failing for one file: %+v %v", rep, err)
		}
		m, ok, err := st.Mixed(ctx, root)
		if !ok || err != nil || m.Files != 1 || m.Other != store.RetiredID(emb.ID()) || m.Embedder != emb.ID() {
			t.Fatalf("Mixed = %+v %v %v, want notes.txt's vectors retired", m, ok, err)
		}
		if id, ok := store.RetiredOf(m.Other); !ok || id != emb.ID() {
			t.Fatalf("RetiredOf(%q) = %q %v", m.Other, id, ok)
		}

		// the first server, now serving that model too, embeds it
		srv.SetSeed(7)
		sent := len(srv.Texts())
		rep, err = Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 1 || rep.Unchanged != 2 || rep.ModelChanged {
			t.Fatalf("the run after: %+v %v, want notes.txt embedded again, no new swap", rep, err)
		}
		if m, ok, err := st.Mixed(ctx, root); ok || err != nil {
			t.Fatalf("still mixed: %+v %v", m, err)
		}
		checkVectors(t, st, root, append(other.Texts(), srv.Texts()[sent:]...), 8, 7, 0)
	})
}

// TestModelProbeOldIndex: an index made before the probe was kept (none
// stored) gets one silently, nothing embedded again; a swap after that is
// caught.
func TestModelProbeOldIndex(t *testing.T) {
	t.Parallel()
	onBackends(t, func(t *testing.T, st *store.Store, dsn string) {
		ctx := context.Background()
		srv := embedtest.NewOpenAI(t, 8, "")
		emb, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		root := probeProject(t)
		if _, err := Run(ctx, st, emb, root, Options{}); err != nil {
			t.Fatal(err)
		}
		dropProbe(t, st, dsn, root)
		if _, ok, _ := st.ModelProbe(ctx, root); ok {
			t.Fatal("the probe is still stored")
		}
		rep, err := Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 0 || rep.ModelChanged {
			t.Fatalf("an old index: %+v %v, want nothing embedded and no note", rep, err)
		}
		if _, ok, err := st.ModelProbe(ctx, root); !ok || err != nil {
			t.Fatalf("no probe stored for an old index (%v)", err)
		}
		srv.SetSeed(3)
		rep, err = Run(ctx, st, emb, root, Options{})
		if err != nil || rep.Changed != 3 || !rep.ModelChanged {
			t.Fatalf("a swap after: %+v %v", rep, err)
		}
	})
}

// dropProbe deletes project's model probe as an index made before it was
// kept lacks it.
func dropProbe(t *testing.T, st *store.Store, dsn, project string) {
	t.Helper()
	key := "modelprobe\x00" + project
	if dsn == "" {
		testutil.RawWrite(t, st.Path(), `DELETE FROM meta WHERE key = ?`, key)
		return
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// the PostgreSQL backend stores a NUL as U+FFFD
	if _, err := db.Exec(`DELETE FROM meta WHERE key = $1`, strings.ReplaceAll(key, "\x00", "\uFFFD")); err != nil {
		t.Fatal(err)
	}
}

// TestModelProbeLocal: an in-process embedder is never probed.
func TestModelProbeLocal(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	root := probeProject(t)
	mustRun(t, st, localEmbedder(t), root)
	if _, ok, err := st.ModelProbe(context.Background(), root); ok || err != nil {
		t.Fatalf("a local embedder's project has a probe (%v)", err)
	}
}

// TestModelProbeCosine: the threshold sits between a server's batch noise
// and another model.
func TestModelProbeCosine(t *testing.T) {
	v := embedtest.Vector(ProbeText, 64)
	noisy := make([]float32, len(v))
	for i, x := range v {
		noisy[i] = x * (1 + 1e-3*float32(i%3-1))
	}
	if c := cosine(v, noisy); c < probeSame {
		t.Errorf("cosine with batch noise %.5f, below %v", c, probeSame)
	}
	if c := cosine(v, embedtest.SeededVector(ProbeText, 64, 1)); c >= probeSame {
		t.Errorf("cosine with another model %.5f, not below %v", c, probeSame)
	}
	if !strings.Contains(ModelChangedNote("openai:m"), "openai:m") {
		t.Error(ModelChangedNote("openai:m"))
	}
}

// probedProject returns a SQLite store, an OpenAI-compatible fake, its
// embedder and a project indexed with it once (its probe stored).
func probedProject(t *testing.T) (*store.Store, *embedtest.OpenAI, embed.Embedder, string) {
	t.Helper()
	st := openStore(t)
	srv := embedtest.NewOpenAI(t, 8, "k")
	emb, err := provider.New(embed.Options{Provider: "openai", BaseURL: srv.URL + "/v1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	root := probeProject(t)
	if rep, err := Run(context.Background(), st, emb, root, Options{}); err != nil || rep.Changed != 3 {
		t.Fatalf("first run: %+v %v", rep, err)
	}
	return st, srv, emb, root
}

// TestModelProbeZeroVector: a server that answers the probe text with a
// zero vector (as some do for a text they cannot embed) neither retires
// the project's vectors nor replaces the stored probe; the next normal
// answer matches the stored one.
func TestModelProbeZeroVector(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, srv, emb, root := probedProject(t)
	before, _, _ := st.ModelProbe(ctx, root)
	srv.Inject(embedtest.Reply{Status: 200, Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0,0,0,0,0,0,0,0]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`})
	rep, err := Run(ctx, st, emb, root, Options{})
	if err != nil || rep.ModelChanged || rep.Changed != 0 || rep.Unchanged != 3 {
		t.Fatalf("a zero probe vector: %+v %v, want nothing retired or embedded", rep, err)
	}
	if after, _, _ := st.ModelProbe(ctx, root); after != before {
		t.Fatal("a zero probe vector replaced the stored probe")
	}
	if rep, err := Run(ctx, st, emb, root, Options{}); err != nil || rep.ModelChanged || rep.Changed != 0 {
		t.Fatalf("the run after: %+v %v", rep, err)
	}
}

// TestModelProbeHangs: a server that never answers the probe text leaves
// the check to the next run once the probe's own bound passes: a run
// with nothing to embed ends without an error and retires nothing.
func TestModelProbeHangs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, srv, emb, root := probedProject(t)
	srv.Hang()
	rep, err := Run(ctx, st, emb, root, Options{ProbeTimeout: 200 * time.Millisecond})
	if err != nil || rep.ModelChanged || rep.Changed != 0 || rep.Unchanged != 3 {
		t.Fatalf("a hanging server: %+v %v, want a run that ends with nothing retired", rep, err)
	}
	if _, ok, err := st.ModelProbe(ctx, root); !ok || err != nil {
		t.Fatalf("the stored probe is gone (%v)", err)
	}
}
