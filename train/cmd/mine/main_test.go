package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed/static"
)

// TestPairsOfRealChunks mines pairs from chunks of the real chunker and
// checks the two rules that make a pair a fair training example: the doc
// side's comment is not left on the code side, and the name pair's code
// side does not hold the name.
func TestPairsOfRealChunks(t *testing.T) {
	for path, src := range map[string]string{
		"a.go": `package a

// RebuildObject rebuilds an object from its base and a list of copy and
// insert instructions.
func RebuildObject(base []byte, delta []byte) []byte {
	out := make([]byte, 0, len(base))
	for _, d := range delta {
		out = append(out, base[d])
	}
	return out
}
`,
		"b.py": `def wake_waiting_tasks(queue):
    """Wake every task waiting on the queue.

    Args:
        queue: the queue.
    """
    for t in queue.waiters:
        t.wake()
    queue.waiters.clear()
`,
		"C.java": `class C {
    /**
     * Returns the <b>number</b> of {@link Entry} items kept in the cache.
     */
    public int cacheSize() {
        int n = 0;
        for (Entry e : entries) n++;
        return n;
    }
}
`,
	} {
		fr, err := chunk.Parse(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var doc, name *pair
		for _, c := range fr.Chunks {
			for _, p := range pairsOf(options{}, c, fr.Language) {
				p := p
				if p.kind == "doc" {
					doc = &p
				} else {
					name = &p
				}
			}
		}
		if doc == nil || name == nil {
			t.Fatalf("%s: doc pair %v, name pair %v; want both", path, doc, name)
		}
		if strings.Contains(doc.code, "Wake every") || strings.Contains(doc.code, "rebuilds an object") || strings.Contains(doc.code, "items kept") ||
			strings.Contains(doc.code, "*/") || strings.Contains(doc.code, `"""`) {
			t.Errorf("%s: comment left on the code side: %q", path, doc.code)
		}
		if strings.Contains(doc.query, "<b>") || strings.Contains(doc.query, "{@link") || strings.Contains(doc.query, "Args") {
			t.Errorf("%s: markup or tag lines in the query %q", path, doc.query)
		}
		for _, n := range []string{"RebuildObject", "wake_waiting_tasks", "cacheSize"} {
			if strings.Contains(name.code, n) {
				t.Errorf("%s: name %q left in the name pair's code %q", path, n, name.code)
			}
		}
		if !strings.HasPrefix(doc.code, "[") {
			t.Errorf("%s: code side %q is not chunk.EmbedText's form", path, doc.code)
		}
	}
}

func TestDocQuery(t *testing.T) {
	for in, want := range map[string]string{
		"Copyright 2020 The Authors. All rights reserved.": "",
		"nolint:errcheck": "",
		"Short.":          "",
		"Parses the header line.\n\n@param s the line": "Parses the header line.",
		"Returns the <tt>size</tt> of {@code list}.":   "Returns the size of list.",
	} {
		if got := docQuery(in); got != want {
			t.Errorf("docQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWithoutName checks that a doc query loses the function's own name in
// the forms doc comments write it, and nothing else: Go's leading name, a
// call, a qualified name, code quotes; a query left with under 3 words is
// dropped.
func TestWithoutName(t *testing.T) {
	for _, c := range []struct{ q, name, want string }{
		{"Close closes the listener and frees its port.", "Close", "closes the listener and frees its port."},
		{"Calls `Close()` on every open file handle.", "Close", "Calls on every open file handle."},
		{"Like Server.Close but waits for the handlers.", "Close", "Like but waits for the handlers."},
		{"See Conn#close, then reopen the socket.", "close", "See then reopen the socket."},
		{"ParseURL parses a raw url into a URL.", "ParseURL", "parses a raw url into a URL."},
		{"Closer closes it.", "Close", "Closer closes it."},
		{"Close closes it.", "Close", ""},
		{"", "Close", ""},
	} {
		if got := withoutName(c.q, c.name); got != c.want {
			t.Errorf("withoutName(%q, %q) = %q, want %q", c.q, c.name, got, c.want)
		}
	}
}

// TestWriteGroups checks the per-pair files train.py builds its
// package-clustered batches and name-pair weights from: one int32 package
// index and one kind byte per training pair, in pair order.
func TestWriteGroups(t *testing.T) {
	dir := t.TempDir()
	train := []pair{{kind: "doc"}, {kind: "name"}, {kind: "name"}, {kind: "doc"}}
	group := []int32{0, 0, 7, 300}
	if err := writeGroups(filepath.Join(dir, "tg"), train, group); err != nil {
		t.Fatal(err)
	}
	pk, err := os.ReadFile(filepath.Join(dir, "tg.pkg"))
	if err != nil {
		t.Fatal(err)
	}
	kind, err := os.ReadFile(filepath.Join(dir, "tg.kind"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pk) != 4*len(train) || len(kind) != len(train) {
		t.Fatalf("sizes %d, %d; want %d, %d", len(pk), len(kind), 4*len(train), len(train))
	}
	for i, g := range group {
		if got := int32(binary.LittleEndian.Uint32(pk[4*i:])); got != g {
			t.Errorf("pair %d: package %d, want %d", i, got, g)
		}
	}
	if want := []byte{0, 1, 1, 0}; !bytes.Equal(kind, want) {
		t.Errorf("kinds %v, want %v", kind, want)
	}
}

// TestQuestionTemplatesTokenize checks that every question template yields
// tokens through the model's tokenizer (a template without tokens would
// teach the query weights nothing).
func TestQuestionTemplatesTokenize(t *testing.T) {
	tok := static.NewTokenizer(nil)
	for _, q := range questionTemplates {
		if toks := tok.Tokens(nil, q); len(toks) == 0 {
			t.Errorf("template %q has no tokens", q)
		}
	}
}

// TestPackageNames reads -holdout-among's two forms: names one a line
// (comments and blank lines skipped) and a manifest TSV (its second
// column, the header skipped); no path means every package, a missing
// file an error.
func TestPackageNames(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "holdout.txt")
	tsv := filepath.Join(dir, "manifest.tsv")
	os.WriteFile(list, []byte("# held out\nnode-ajv\n\n@tanstack/query-core\n"), 0o644)
	os.WriteFile(tsv, []byte("registry\tpackage\tversion\tsha256\ndebian\tpython3-netmiko\t4.1\tab\nnpm\t@ai-sdk/provider-utils\t2.0\tcd\n"), 0o644)
	for path, want := range map[string][]string{
		list: {"node-ajv", "@tanstack/query-core"},
		tsv:  {"python3-netmiko", "@ai-sdk/provider-utils"},
	} {
		got, err := packageNames(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", filepath.Base(path), got, want)
		}
		for _, n := range want {
			if !got[n] {
				t.Errorf("%s: %q missing from %v", filepath.Base(path), n, got)
			}
		}
	}
	if got, err := packageNames(""); got != nil || err != nil {
		t.Errorf(`packageNames("") = %v, %v; want nil, nil`, got, err)
	}
	if _, err := packageNames(filepath.Join(dir, "absent")); err == nil {
		t.Error("a missing file gave no error")
	}
}

// TestCommentPairs checks that an inline comment that reads as prose pairs
// with the lines it introduces (and only those), in a "//" language and a
// "#" language, and that commented-out code, directives and the doc comment
// give no pair.
func TestCommentPairs(t *testing.T) {
	for path, src := range map[string]string{
		"notify.go": `package sync

// Close wakes every waiter and marks the channel closed.
func (n *Notify) Close() {
	n.mu.Lock()
	// wake the waiting tasks before the state changes
	for _, w := range n.waiters {
		w.ready <- struct{}{}
	}

	// n.closed = true;
	n.closed = true
	//nolint:errcheck this is a directive
	n.mu.Unlock()
}
`,
		"notify.c": `void notify_close(struct notify *n)
{
	lock(&n->mu);
	/* wake the waiting tasks before the state changes */
	for (int i = 0; i < n->nwaiters; i++)
		signal(n->waiters[i]);

	/* n->closed = 1; */
	n->closed = 1;
	unlock(&n->mu);
}
`,
		"notify.py": `class Notify:
    def close(self):
        """Wake every waiter and mark the channel closed."""
        self.lock.acquire()
        # wake the waiting tasks before the state changes
        for w in self.waiters:
            w.set()
        # self.closed = True
        self.closed = True
        self.lock.release()
`,
	} {
		fr, err := chunk.Parse(path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var got []pair
		for _, c := range fr.Chunks {
			for _, p := range pairsOf(options{comments: 10}, c, fr.Language) {
				if p.kind == "comment" {
					got = append(got, p)
				}
			}
			if ps := pairsOf(options{}, c, fr.Language); countKind(ps, "comment") != 0 {
				t.Errorf("%s: comment pairs without -comments: %v", path, ps)
			}
		}
		if len(got) != 1 {
			t.Fatalf("%s: %d comment pairs %v; want 1", path, len(got), got)
		}
		p := got[0]
		if p.query != "wake the waiting tasks before the state changes" {
			t.Errorf("%s: query %q", path, p.query)
		}
		if !strings.Contains(p.code, "waiters") || strings.Contains(p.code, "closed") || strings.Contains(p.code, "wake the") ||
			strings.Contains(p.code, "Lock") || strings.Contains(p.code, "lock(") || strings.Contains(p.code, "acquire") {
			t.Errorf("%s: code side %q; want the loop only", path, p.code)
		}
		if !strings.HasPrefix(p.code, "[method:") && !strings.HasPrefix(p.code, "[function:notify_close") {
			t.Errorf("%s: code side %q lost the chunk's header", path, p.code)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"compute the checksum over the header bytes", "compute the checksum over the header bytes"},
		{"x = foo(bar);", ""},
		{"if (a && b) { return c }", ""},
		{"TODO: handle the empty case here", ""},
		{"eslint-disable-next-line no-console please", ""},
		{"two words", ""},
	} {
		if got := prose(c.in); got != c.want {
			t.Errorf("prose(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// TestChineseQuery checks the word-by-word Chinese doc queries: each token
// with a sense of weight 0.5 or more becomes the Chinese word that gives it
// the highest weight (the first on a tie), identifiers stay, a query with
// fewer than 2 translated tokens gives none, and the sample is
// deterministic.
func TestChineseQuery(t *testing.T) {
	zt := zhTranslations([]zpair{
		{word: "删除", terms: []string{"delet", "remov"}, ws: []float32{1, 0.8}},
		{word: "移除", terms: []string{"remov"}, ws: []float32{1}},
		{word: "文件", terms: []string{"file", "document"}, ws: []float32{1, 0.3}},
		{word: "档案", terms: []string{"file"}, ws: []float32{1}},
	}, nil)
	if zt["remov"] != "移除" || zt["file"] != "文件" || zt["delet"] != "删除" {
		t.Fatalf("translations %v", zt)
	}
	if _, ok := zt["document"]; ok {
		t.Errorf("a sense under 0.5 translated: %v", zt)
	}
	got := strings.Join(chineseQuery([]string{"remov", "the", "file", "os.remove", "file"}, zt), " ")
	if got != "移除 the 文件 os.remove" {
		t.Errorf("chineseQuery = %q", got)
	}
	if q := chineseQuery([]string{"remov", "os.remove"}, zt); q != nil {
		t.Errorf("one translated token gave %v", q)
	}
	// glossary only: a term the glossary does not give the word is not a
	// translation, however the dictionary weighs it
	gt := zhTranslations([]zpair{
		{word: "删除", terms: []string{"delet", "remov"}, ws: []float32{1, 0.8}},
		{word: "移除", terms: []string{"remov"}, ws: []float32{1}},
		{word: "原子弹", terms: []string{"atom"}, ws: []float32{1}},
	}, map[string]map[string]bool{"删除": {"delet": true, "remov": true}, "移除": {}})
	if gt["remov"] != "删除" || gt["delet"] != "删除" || gt["atom"] != "" {
		t.Errorf("glossary-only translations %v", gt)
	}
	n := 0
	for i := 0; i < 10000; i++ {
		k := fmt.Sprint("zh:", i)
		if pickShare(k, 0.2) != pickShare(k, 0.2) {
			t.Fatal("pickShare is not deterministic")
		}
		if pickShare(k, 0.2) {
			n++
		}
	}
	if n < 1800 || n > 2200 {
		t.Errorf("pickShare(0.2) picked %d of 10000", n)
	}
}
