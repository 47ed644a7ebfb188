package index

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
)

// TestEmbedderSwitchFreesPages: a run that re-embeds a project with
// another embedder (the hashing embedder's 768-d vectors replaced by the
// learned model's 256-d ones) hands the freed pages back: the file keeps no
// free page, so an upgraded index is as small as a new one.
func TestEmbedderSwitchFreesPages(t *testing.T) {
	t.Parallel()
	root := resolved(t, t.TempDir())
	for i := range 40 {
		writeFile(t, root, fmt.Sprintf("f%d.go", i), fmt.Sprintf("package p\n\n// F%d adds %d.\nfunc F%d(x int) int { return x + %d }\n", i, i, i, i))
	}
	st := openStore(t)
	for _, model := range []string{"hashing-768-v1", static.ModelName} {
		emb, err := provider.New(embed.Options{Provider: "local", Model: model})
		if err != nil {
			t.Fatal(err)
		}
		if rep := mustRun(t, st, emb, root); rep.Changed != 40 {
			t.Fatalf("%s: %+v", emb.ID(), rep)
		}
	}
	var free int
	if err := rawDB(t, st).QueryRow(`PRAGMA freelist_count`).Scan(&free); err != nil || free != 0 {
		t.Fatalf("%d free pages after the switch (%v), want 0", free, err)
	}
}

// switchProject writes files Go files (those whose number is a multiple
// of 10 hold "Broken") under a new root and indexes them with the learned
// model; it returns the root, the store and the two embedders of a switch.
func switchProject(t *testing.T, files int) (root string, st *store.Store, learned, hashing embed.Embedder) {
	t.Helper()
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	hashing, err = provider.New(embed.Options{Provider: "local", Model: "hashing-768-v1"})
	if err != nil {
		t.Fatal(err)
	}
	root = resolved(t, t.TempDir())
	for i := range files {
		word := "Reset"
		if i%10 == 0 {
			word = "Broken"
		}
		writeFile(t, root, fmt.Sprintf("f%03d.go", i), fmt.Sprintf("package p\n\n// %s%d resets the pool.\nfunc %s%d() int { return %d }\n", word, i, word, i, i))
	}
	st = openStore(t)
	if rep := mustRun(t, st, learned, root); rep.Changed != files {
		t.Fatalf("first run: %+v", rep)
	}
	return root, st, learned, hashing
}

// wantMixed checks that st reports root as mixed with files of the other
// embedder's vectors (0: not mixed) and that the run record agrees.
func wantMixed(t *testing.T, st *store.Store, root string, files int, project, other string, total int) {
	t.Helper()
	ctx := context.Background()
	m, ok, err := st.Mixed(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := st.LastRun(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		if ok || r.Mixed {
			t.Fatalf("mixed %+v (%v), run record %+v: want a clean index", m, ok, r)
		}
		return
	}
	want := store.MixedVectors{Embedder: project, Other: other, Files: files, Total: total}
	if !ok || m != want || !r.Mixed {
		t.Fatalf("mixed %+v (%v), run record mixed %v: want %+v", m, ok, r.Mixed, want)
	}
}

// TestInterruptedSwitchIsMixed: a change of embedder cancelled partway
// leaves the project's embedder as it was and the files it converted with
// vectors of the new one; the store reports the index mixed (not complete)
// with their count, and the next run, with either embedder, embeds every
// file of the other one again and leaves a clean record.
func TestInterruptedSwitchIsMixed(t *testing.T) {
	const files = 120
	for _, next := range []string{"learned", "hashing"} {
		t.Run("then "+next, func(t *testing.T) {
			root, st, learned, hashing := switchProject(t, files)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			emb := &cancellingEmbedder{Embedder: hashing, n: 10, cancel: cancel}
			rep, err := Run(ctx, st, emb, root, Options{Threads: 2, BatchSize: 4, WriteChunks: 8})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			converted := rep.Changed
			if converted == 0 || converted == files {
				t.Fatalf("the cancelled switch converted %d of %d files", converted, files)
			}
			p, err := st.GetProject(context.Background(), root)
			if err != nil || p.Embedder != learned.ID() {
				t.Fatalf("project %+v (%v): want it still on %s", p, err, learned.ID())
			}
			if _, _, partial, err := st.Incomplete(context.Background(), root); err != nil || partial {
				t.Fatalf("incomplete = %v (%v): every file has rows", partial, err)
			}
			wantMixed(t, st, root, converted, learned.ID(), hashing.ID(), files)

			var rest *Report
			if next == "learned" {
				// the default embedder: the converted files go back
				rest = mustRun(t, st, learned, root)
				if rest.Changed != converted {
					t.Fatalf("the next run changed %d, want the %d converted", rest.Changed, converted)
				}
			} else {
				rest = mustRun(t, st, hashing, root)
				if rest.Changed != files-converted {
					t.Fatalf("the next run changed %d, want the %d left", rest.Changed, files-converted)
				}
			}
			if rest.Failed != 0 {
				t.Fatalf("next run: %+v", rest)
			}
			wantMixed(t, st, root, 0, "", "", 0)
			var n int
			want := map[string]string{"learned": learned.ID(), "hashing": hashing.ID()}[next]
			if err := rawDB(t, st).QueryRow(`SELECT count(*) FROM code_vectors WHERE embedder <> ?`, want).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d files keep vectors of another embedder than %s (%v)", n, want, err)
			}
			if p, err := st.GetProject(context.Background(), root); err != nil || p.Embedder != want {
				t.Fatalf("project %+v (%v): want %s", p, err, want)
			}
		})
	}
}

// TestFailedSwitchIsMixed: a change of embedder whose embedder fails for
// some files ends (done, with failures) with the project on its old
// embedder and the other files on the new one: mixed until a run embeds
// the failed ones too, which moves the project to the new embedder.
func TestFailedSwitchIsMixed(t *testing.T) {
	const files = 60
	root, st, learned, hashing := switchProject(t, files)
	rep, err := Run(context.Background(), st, failingEmbedder{Embedder: hashing, marker: "Broken"}, root, Options{Threads: 2, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != files/10 || rep.Changed != files-files/10 {
		t.Fatalf("the failing switch: %+v", rep)
	}
	if r, _, err := st.LastRun(context.Background(), root); err != nil || !r.Done {
		t.Fatalf("run record %+v (%v): want done", r, err)
	}
	wantMixed(t, st, root, files-files/10, learned.ID(), hashing.ID(), files)
	if rest := mustRun(t, st, hashing, root); rest.Changed != files/10 || rest.Failed != 0 {
		t.Fatalf("the next run: %+v", rest)
	}
	wantMixed(t, st, root, 0, "", "", 0)
	if p, err := st.GetProject(context.Background(), root); err != nil || p.Embedder != hashing.ID() {
		t.Fatalf("project %+v (%v): want %s", p, err, hashing.ID())
	}
}
