package index

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/testutil"
	"github.com/coderag/coderag/internal/zh"
)

// translatingEmbedder is the hashing embedder as the CLI builds it:
// Chinese text translated by the glossary and, when installed, the
// dictionary d (nil: none). (The learned model has its own Chinese
// vocabulary and reads no installed data.)
func translatingEmbedder(t *testing.T, d *zh.Dict) embed.Embedder {
	t.Helper()
	e, err := provider.New(embed.Options{Provider: "local", Model: "hashing-768-v1", Expand: analyze.GlossaryExpand, Analyzer: analyze.WithDictionary(d)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// storedVectors returns the vector BLOBs of a project's chunks of file,
// by chunk name.
func storedVectors(t *testing.T, st *store.Store, root, file string) map[string][]byte {
	t.Helper()
	vs, err := st.FileVectors(context.Background(), root, file)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := rawDB(t, st).Query(`SELECT c.id, c.name FROM code_chunks c JOIN indexed_files f ON f.id = c.file_id
		WHERE f.project_path = ? AND f.file_path = ?`, root, file)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]byte{}
	for rows.Next() {
		var id int64
		var n string
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		if b, ok := vs[id]; ok {
			out[n] = b
		}
	}
	return out
}

// TestDictionaryChangeReembedsChineseFiles is issue #28's correctness bug:
// the local embedder's vectors of Chinese text depend on whether CC-CEDICT
// is installed, so an index built without it and searched with it (or the
// reverse) mixes two vector spaces. After the dictionary comes or goes,
// the next run re-embeds the files holding Chinese text (their stored
// vectors are those a fresh index gives), and only those; Diff reports
// them as changed, so a search's Freshen refreshes them first.
func TestDictionaryChangeReembedsChineseFiles(t *testing.T) {
	t.Parallel()
	d := testutil.TinyDictionary(t)
	root := resolved(t, t.TempDir())
	writeFile(t, root, "parrot.go", "package p\n\n// 鹦鹉学舌: 重复对方的话\nfunc Echo(s string) string { return s }\n")
	writeFile(t, root, "plain.go", "package p\n\n// Twice repeats s.\nfunc Twice(s string) string { return s + s }\n")
	for _, f := range []string{"parrot.go", "plain.go"} {
		touchLater(t, filepath.Join(root, f), -time.Minute)
	}
	// fresh returns the vectors a new index of root gets with dictionary dd
	fresh := func(dd *zh.Dict) map[string][]byte {
		st := openStore(t)
		mustRun(t, st, translatingEmbedder(t, dd), root)
		return storedVectors(t, st, root, "parrot.go")
	}
	without, with := fresh(nil), fresh(d)
	if bytes.Equal(without["Echo(s string)"], with["Echo(s string)"]) {
		t.Fatal("the dictionary does not change the vector of a Chinese comment: the test proves nothing")
	}
	st := openStore(t)
	for i, step := range []struct {
		dict *zh.Dict
		want map[string][]byte
	}{{nil, without}, {d, with}, {nil, without}} {
		emb := translatingEmbedder(t, step.dict)
		if i > 0 {
			ch, err := Diff(context.Background(), st, root, emb, false)
			if err != nil || len(ch.Changed) != 1 || ch.Changed[0] != "parrot.go" {
				t.Fatalf("step %d: Diff after the dictionary changed = %+v, %v; want parrot.go changed", i, ch, err)
			}
		}
		rep := mustRun(t, st, emb, root)
		if i > 0 && (rep.Changed != 1 || rep.Unchanged != 1 || rep.Reanalysed != 1) {
			t.Errorf("step %d: run %+v; want parrot.go re-embedded (for the analysis) and plain.go left", i, rep)
		}
		got := storedVectors(t, st, root, "parrot.go")
		for name, v := range step.want {
			if !bytes.Equal(got[name], v) {
				t.Errorf("step %d: stored vector of %s is not the one this dictionary gives (index mixed with another analysis)", i, name)
			}
		}
		if rep := mustRun(t, st, emb, root); rep.Changed != 0 {
			t.Errorf("step %d: a run with nothing changed re-embedded %d files", i, rep.Changed)
		}
	}
	// the default embedder, the learned model, reads no installed data:
	// its files record its bare id and a dictionary change leaves them
	model, err := provider.New(embed.Options{Provider: "local", Model: static.ModelName, Expand: analyze.GlossaryExpand, Analyzer: analyze.New(nil)})
	if err != nil {
		t.Fatal(err)
	}
	st = openStore(t)
	mustRun(t, st, model, root)
	model, err = provider.New(embed.Options{Provider: "local", Model: static.ModelName, Expand: analyze.GlossaryExpand, Analyzer: analyze.WithDictionary(d)})
	if err != nil {
		t.Fatal(err)
	}
	if rep := mustRun(t, st, model, root); rep.Changed != 0 {
		t.Errorf("the learned model's files were re-embedded for a dictionary change: %+v", rep)
	}
}
