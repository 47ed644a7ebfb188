package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
)

// fixture indexes files (path -> content) into a fresh SQLite index with the
// local embedder and returns a Searcher over it.
func fixture(t *testing.T, files map[string]string) *Searcher {
	t.Helper()
	st, emb := testStore(t)
	return indexInto(t, st, emb, files)
}

// tempStore opens a fresh SQLite index in a temporary directory, closed
// at the test's end.
func tempStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// testStore opens a fresh SQLite index (closed at the test's end) and the
// local embedder.
func testStore(t *testing.T) (*store.Store, embed.Embedder) {
	t.Helper()
	st := tempStore(t)
	// the hashing embedder, which these fixtures were written for; the
	// learned model (the default) is tested by name where it matters and
	// by the ranking regression's model golden file
	emb, err := provider.New(embed.Options{Provider: "local", Model: "hashing-768-v1", Expand: analyze.GlossaryExpand})
	if err != nil {
		t.Fatal(err)
	}
	return st, emb
}

// indexInto writes files (path -> content) under a new temporary root,
// indexes it into st with emb and returns a Searcher over that project.
func indexInto(t *testing.T, st *store.Store, emb embed.Embedder, files map[string]string) *Searcher {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := index.ResolveRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := index.Run(context.Background(), st, emb, root, index.Options{Threads: 2})
	if err != nil || rep.Failed > 0 {
		t.Fatalf("index %s: %v %+v", root, err, rep)
	}
	return &Searcher{Store: st, Embedder: emb, Project: root}
}

func top(t *testing.T, s *Searcher, q, ranker string, k int) []Result {
	t.Helper()
	resp, err := s.Search(context.Background(), q, Options{TopK: k, Ranker: ranker, Explain: true})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return resp.Results
}

func rankOf(rs []Result, path, nameSub string) int {
	for i, r := range rs {
		if r.Path == path && strings.Contains(r.Name, nameSub) {
			return i + 1
		}
	}
	return 0
}

var corpus = map[string]string{
	"ops/notes.md": "# 运维记录\n\n重跑gen-itgc后50条悬空引用清零\n\n# Other\n\nnothing to see here\n",
	"svc/overtime.go": `package svc

// OvertimeService computes overtime pay.
type OvertimeService struct{}

// Compute returns the overtime for a week.
func (s *OvertimeService) Compute(hours int) int { return hours - 40 }
`,
	"db/user.py": `def load_user_id(user_id):
    """Load the row of one user."""
    return user_id
`,
	"mem/memory.go": `package mem

// MemoryManager keeps the context small.
type MemoryManager struct{}

// compress shrinks the conversation history when it grows too long.
func (m *MemoryManager) compress() {}
`,
	"tools/codex.go": `package tools

// AskCodex runs ask-codex with a prompt from current.md; don't quote "twice".
func AskCodex() string { return "ask-codex current.md" }
`,
}

func TestChineseAndIdentifiers(t *testing.T) {
	t.Parallel()
	s := fixture(t, corpus)
	for _, ranker := range []string{RankerHybrid, RankerSeed} {
		cases := []struct{ q, path, name string }{
			{"悬空", "ops/notes.md", ""},   // Chinese-only text by a Chinese word
			{"itgc", "ops/notes.md", ""}, // by an English identifier inside it
			{"OvertimeService", "svc/overtime.go", "OvertimeService"},
			{"overtime service", "svc/overtime.go", "OvertimeService"},
			{"user id", "db/user.py", "load_user_id"}, // snake_case from words
			{"loadUserId", "db/user.py", "load_user_id"},
			{"MemoryManager.compress", "mem/memory.go", "compress"},
			{"memory manager compress", "mem/memory.go", "compress"},
		}
		for _, c := range cases {
			if ranker == RankerSeed && (c.q == "overtime service" || c.q == "user id" || c.q == "loadUserId" || c.q == "memory manager compress") {
				continue // the seed ranker's LIKE route matches whole keywords only
			}
			rs := top(t, s, c.q, ranker, 5)
			if rankOf(rs, c.path, c.name) == 0 {
				t.Errorf("[%s] %q: want %s %s in top 5, got %v", ranker, c.q, c.path, c.name, names(rs))
			}
		}
	}
	// 上下文是怎么压缩的: the glossary maps 上下文 -> context, 压缩 -> compress
	rs := top(t, s, "上下文是怎么压缩的", RankerHybrid, 3)
	if rankOf(rs, "mem/memory.go", "compress") == 0 {
		t.Errorf("Chinese question did not reach English code: %v", names(rs))
	}
}

func names(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Path+":"+r.Name)
	}
	return out
}

func TestSpecialCharactersAreLiteral(t *testing.T) {
	t.Parallel()
	s := fixture(t, corpus)
	// "col:val" (an FTS5 column filter) is now a query filter error
	// (ParseQuery); what still reaches FTS5 as a word must stay literal
	for _, q := range []string{"ask-codex", "current.md", "don't", `"`, "*", `"twice"`, "a OR b", "NEAR(x y)", "Col:val", "col::val", "x col:", "100%", "_", `\`, "^", "(", "--"} {
		for _, ranker := range []string{RankerHybrid, RankerSeed} {
			if _, err := s.Search(context.Background(), q, Options{TopK: 5, Ranker: ranker}); err != nil {
				t.Errorf("[%s] %q: %v", ranker, q, err)
			}
		}
	}
	rs := top(t, s, "ask-codex", RankerHybrid, 3)
	if rankOf(rs, "tools/codex.go", "AskCodex") != 1 {
		t.Errorf("ask-codex: %v", names(rs))
	}
	rs = top(t, s, "current.md", RankerSeed, 3)
	if rankOf(rs, "tools/codex.go", "AskCodex") == 0 {
		t.Errorf("seed current.md: %v", names(rs))
	}
}

func bigFileFixture(t *testing.T) *Searcher {
	t.Helper()
	var b strings.Builder
	b.WriteString("package big\n\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "// RetryRequest%d retries the request with backoff.\nfunc RetryRequest%d() { retry(); retry() }\n\n", i, i)
	}
	files := map[string]string{"big/big.go": b.String(),
		"small/a.go": "package small\n\n// RetryOnce retries once.\nfunc RetryOnce() {}\n"}
	return fixture(t, files)
}

// The seed ranker keeps its per-file cap of two and says what it dropped.
func TestSeedBigFileCappedAtTwo(t *testing.T) {
	t.Parallel()
	s := bigFileFixture(t)
	rs := top(t, s, "retry the request with backoff", RankerSeed, 10)
	n := 0
	for _, r := range rs {
		if r.Path == "big/big.go" {
			n++
		}
	}
	if n > 2 {
		t.Errorf("big.go has %d of the top 10", n)
	}
	if rankOf(rs, "small/a.go", "RetryOnce") == 0 {
		t.Errorf("the cap should let small/a.go in: %v", names(rs))
	}
	for _, r := range rs {
		if r.Path == "big/big.go" && (r.Explain == nil || r.Explain.CapDropped == 0) {
			t.Errorf("%s does not report the chunks the cap dropped: %+v", r.Name, r.Explain)
		}
	}
}

// The hybrid ranker diversifies by re-ordering: a file's third and later
// chunks move behind another file's best one, and nothing is dropped, so
// every chunk of a big file can still be reached with a larger top-k.
func TestHybridDiversityReordersNeverDrops(t *testing.T) {
	t.Parallel()
	s := bigFileFixture(t)
	rs := top(t, s, "retry the request with backoff", RankerHybrid, 10)
	if len(rs) != 10 {
		t.Fatalf("want 10 results, got %d: %v", len(rs), names(rs))
	}
	// without diversification RetryOnce ranks 41st, behind all of big.go
	if r := rankOf(rs, "small/a.go", "RetryOnce"); r == 0 || r <= DefaultHybridParams().DiversityFree {
		t.Errorf("small/a.go should move into the top 10, behind big.go's first %d chunks; got rank %d: %v", DefaultHybridParams().DiversityFree, r, names(rs))
	}
	rs = top(t, s, "retry the request with backoff", RankerHybrid, MaxTopK)
	n := 0
	for _, r := range rs {
		if r.Path == "big/big.go" {
			n++
		}
	}
	if n != MaxTopK-1 {
		t.Errorf("top %d should hold %d chunks of big.go (nothing dropped), got %d", MaxTopK, MaxTopK-1, n)
	}
}

// Seed formula: each bonus and tie rule on hand-built candidates.
func TestSeedKeywordScore(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path, content, kw string
		want                    float64
	}{
		{"Agent.run(String userInput)", "src/Agent.java", "void run() {}", "run", 0.7},     // name and content
		{"Agent.run(String userInput)", "src/run/Agent.java", "void run() {}", "run", 0.8}, // all bonuses
		{"Helper", "src/Helper.java", "calls run()", "run", 0.4},                           // content only
		{"Runner", "src/x.java", "nothing", "RUN", 0.6},                                    // name only, case-insensitive
		{"Other", "src/run.java", "nothing here", "run", 0.4},                              // path only
	}
	for _, c := range cases {
		if got := seedKeywordScore(c.name, c.path, c.content, c.kw); fmt.Sprintf("%.2f", got) != fmt.Sprintf("%.2f", c.want) {
			t.Errorf("seedKeywordScore(%q,%q,%q,%q) = %.2f, want %.2f", c.name, c.path, c.content, c.kw, got, c.want)
		}
	}
	if seedTypeBoost("method") != 0.15 || seedTypeBoost("function") != 0.15 || seedTypeBoost("class") != 0.10 || seedTypeBoost("text") != 0 {
		t.Error("type boosts")
	}
}

func TestSeedRankMergeAndTies(t *testing.T) {
	t.Parallel()
	mk := func(path, name, typ string) Result { return Result{Path: path, Name: name, Type: typ} }
	hits := map[string]*seedHit{
		// both routes: max(0.80, 0.70) + 0.1 + method 0.15 = 1.05
		"a#run": {r: mk("src/Agent.java", "Agent.run(String userInput)", "method"), sem: 0.80, isSem: true, kw: 0.70, isKw: true},
		// vector only: 0.9 + class 0.10 = 1.00
		"b#B": {r: mk("src/B.java", "B", "class"), sem: 0.90, isSem: true},
		// keyword only: 0.8 + 0 (text)
		"c#1": {r: mk("docs/c.md", "c.md#1", "text"), kw: 0.8, isKw: true},
		// ties at 0.95: ordered by path, then name
		"d#x": {r: mk("z/d.go", "x", "method"), sem: 0.80, isSem: true},
		"e#y": {r: mk("a/e.go", "y", "method"), sem: 0.80, isSem: true},
		"f#a": {r: mk("a/e.go", "a", "method"), sem: 0.80, isSem: true},
		// a third chunk of a/e.go is dropped by the 2-per-file cap
		"g#b": {r: mk("a/e.go", "b", "method"), sem: 0.70, isSem: true},
	}
	rs := seedRank(hits, 10)
	got := names(rs)
	want := []string{"src/Agent.java:Agent.run(String userInput)", "src/B.java:B", "a/e.go:a", "a/e.go:y", "z/d.go:x", "docs/c.md:c.md#1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("order\n got %v\nwant %v", got, want)
	}
	if fmt.Sprintf("%.2f", rs[0].Score) != "1.05" || fmt.Sprintf("%.2f", rs[1].Score) != "1.00" || fmt.Sprintf("%.2f", rs[5].Score) != "0.80" {
		t.Errorf("scores %v %v %v", rs[0].Score, rs[1].Score, rs[5].Score)
	}
	if rs[0].Explain.Signal("both") != seedBothBonus {
		t.Errorf("both-route bonus not recorded: %+v", rs[0].Explain)
	}
	if len(seedRank(hits, 2)) != 2 {
		t.Error("top k")
	}
}

func TestLimitPerFile(t *testing.T) {
	t.Parallel()
	var in []Result
	for i := 0; i < 5; i++ {
		in = append(in, Result{Path: "a.go", Name: fmt.Sprint(i)})
	}
	in = append(in, Result{Path: "b.go", Name: "b"})
	out := limitPerFile(in, 3, 2)
	if len(out) != 3 || out[0].Name != "0" || out[1].Name != "1" || out[2].Path != "b.go" {
		t.Fatalf("%v", names(out))
	}
}

func TestQueryTermsAndMatchExpr(t *testing.T) {
	t.Parallel()
	got := QueryTerms("errors.Is")
	if !contains(got, "is") || !contains(got, "error") {
		t.Errorf("errors.Is keeps 'is' inside an identifier: %v", got)
	}
	if contains(QueryTerms("where is the timeout"), "is") {
		t.Error("plain stop words dropped")
	}
	zh := QueryTerms("WaitGroup 计数器变成负数时在哪里 panic")
	if contains(zh, "时在") || contains(zh, "在哪") {
		t.Errorf("bigrams across words or question words kept: %v", zh)
	}
	if !contains(zh, "负数") || !contains(zh, "count") {
		t.Errorf("want the word 负数 and its glossary term: %v", zh)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestNameEndsWith(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, sym string
		want      bool
	}{
		{"(*Server).Serve(l net.Listener)", "Serve", true},
		{"Server.Serve(l net.Listener)", "Serve", true},
		{"HashMap.resize()", "resize", true},
		{"Serve", "Serve", true},
		{"this", "is", false},
		{"Server.ServeHTTP(w ResponseWriter)", "Serve", false},
	}
	for _, c := range cases {
		if got := NameEndsWith(c.name, c.sym); got != c.want {
			t.Errorf("NameEndsWith(%q, %q) = %v", c.name, c.sym, got)
		}
	}
}

// A query with no keyword terms (only stop words) still gets results from
// the vector route instead of an empty list.
func TestStopWordQueryNotEmpty(t *testing.T) {
	t.Parallel()
	s := fixture(t, corpus)
	rs := top(t, s, "how does it do this", RankerHybrid, 3)
	if len(rs) == 0 {
		t.Fatal("a stop-word query returned nothing")
	}
}

// A query none of whose words is in the index says so instead of passing
// vector neighbours off as matches; a query with a keyword hit has no note.
func TestNoKeywordNote(t *testing.T) {
	t.Parallel()
	s := fixture(t, corpus)
	ctx := context.Background()
	resp, err := s.Search(ctx, "quantum giraffe", Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Note != NoKeywordNote {
		t.Fatalf("results %d, note %q", len(resp.Results), resp.Note)
	}
	var b strings.Builder
	FormatHuman(&b, resp, HumanOptions{})
	if !strings.Contains(b.String(), "note: no word of the query") || !strings.Contains(FormatForTool(resp), "Note: no word") {
		t.Fatalf("formatters drop the note:\n%s\n%s", b.String(), FormatForTool(resp))
	}
	resp, err = s.Search(ctx, "overtime pay", Options{TopK: 3})
	if err != nil || resp.Note != "" {
		t.Fatalf("note on a keyword hit: %q %v", resp.Note, err)
	}
}

// A query whose words occur only in chunks ranked below the results shown
// (a test: the path prior puts it last) is not told "no word occurs": the
// note says where the first chunk holding one ranks. A filter that keeps
// no chunk holding a word says the words are absent from what it keeps,
// not from the code.
func TestLowerKeywordNote(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"greet/greet.go": `package greet

// Welcome writes a friendly welcome message for the user to the screen.
func Welcome(name string) string { return "welcome " + name }

// Farewell writes a friendly goodbye message for the user to the screen.
func Farewell(name string) string { return "goodbye " + name }
`,
		"greet/greet_test.go": `package greet

func TestSalutation(t *testing.T) {
	if Welcome("zorbulon") == "" {
		t.Fatal("empty message for the user")
	}
}
`})
	// a full vector scan, as a learned embedder's route is, so that vector
	// neighbours with no keyword hit compete with the test
	hp := DefaultHybridParams()
	hp.VectorRerank, hp.Alpha, hp.AlphaPerDecade = false, 0.5, 0
	hp.MaxSim = 0 // as Searcher.HybridParams has it for a hashing index
	s.Params = &hp
	ctx := context.Background()
	// two words: not a symbol query, which would pin the test that spells
	// its name (see TestSymbolSiteTestOnly)
	resp2, err := s.Search(ctx, "zorbulon qwxv", Options{TopK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp2.Results) != 1 || strings.HasSuffix(resp2.Results[0].Path, "_test.go") {
		t.Fatalf("fixture no longer ranks the test below a vector neighbour: %v", names(resp2.Results))
	}
	want := fmt.Sprintf(LowerKeywordNote, 2, "greet/greet_test.go", 3)
	if resp2.Note != want {
		t.Fatalf("note %q, want %q (results %v)", resp2.Note, want, names(resp2.Results))
	}
	if !vectorOnly(resp2.Note) {
		t.Error("the results shown are vector neighbours only: vectorOnly must say so")
	}
	resp3, err := s.Search(ctx, "zorbulon qwxv file:greet/greet.go", Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if resp3.Note != NoKeywordFilteredNote {
		t.Fatalf("filtered: note %q, want %q", resp3.Note, NoKeywordFilteredNote)
	}
}

// The lower-keyword note never names a file the searcher hides: when a
// secret-looking file (indexed with secrets allowed) is the only one that
// holds a query word, a searcher with HideSecrets gives the plain
// NoKeywordNote, not its path.
func TestLowerKeywordNoteHidesSecrets(t *testing.T) {
	t.Parallel()
	st, emb := testStore(t)
	root, err := index.ResolveRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for rel, content := range map[string]string{
		"greet/greet.go":      "package greet\n\n// Welcome writes a friendly welcome message for the user.\nfunc Welcome(name string) string { return \"welcome \" + name }\n",
		"config/secrets.yaml": "password: zorbulon\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := index.Run(context.Background(), st, emb, root, index.Options{Threads: 2, AllowSecrets: true}); err != nil {
		t.Fatal(err)
	}
	hp := DefaultHybridParams()
	hp.VectorRerank, hp.Alpha, hp.AlphaPerDecade = false, 0.5, 0
	s := &Searcher{Store: st, Embedder: emb, Project: root, Params: &hp, HideSecrets: true}
	for _, k := range []int{1, 3} {
		resp, err := s.Search(context.Background(), "zorbulon qwxv", Options{TopK: k})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(resp.Note, "secrets.yaml") || resp.Note != NoKeywordNote {
			t.Errorf("top %d: note %q, want %q (results %v)", k, resp.Note, NoKeywordNote, names(resp.Results))
		}
	}
}

// A query over MaxQueryBytes is cut at a word boundary before it and says
// so; a query within it is searched as given.
func TestLongQueryCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("parse the request line ", 10000) // 230 KB
	q, cut := cutQuery(long)
	if !cut || len(q) > MaxQueryBytes || !strings.HasSuffix(q, "line") && !strings.HasSuffix(q, "request") && !strings.HasSuffix(q, "the") && !strings.HasSuffix(q, "parse") {
		t.Fatalf("cut %v to %d bytes ending %q", cut, len(q), q[max(0, len(q)-12):])
	}
	han := strings.Repeat("解析请求行", 1000) // no space: cut on a rune boundary
	if q, cut := cutQuery(han); !cut || len(q) > MaxQueryBytes || !utf8.ValidString(q) {
		t.Fatalf("Han query cut %v to %d bytes, valid %v", cut, len(q), utf8.ValidString(q))
	}
	if q, cut := cutQuery("parse the request line"); cut || q != "parse the request line" {
		t.Fatal("a short query was changed")
	}
	s := fixture(t, map[string]string{"req.go": "package req\n\n// parseRequestLine parses the request line.\nfunc parseRequestLine(line string) {}\n"})
	resp, err := s.Search(context.Background(), long, Options{TopK: 3})
	if err != nil || !strings.Contains(resp.Note, CutQueryNote) || len(resp.Results) == 0 || len(resp.Query) > MaxQueryBytes {
		t.Fatalf("long query: %v note %q, %d results, query of %d bytes", err, resp.Note, len(resp.Results), len(resp.Query))
	}
}

// TestLongQueryKeepsItsFilters: a query longer than MaxQueryBytes has its
// words cut, not its filters: a -file: past the cut still excludes, and
// the note says the filters apply. More than maxFilters filters, or a
// filter value longer than MaxQueryBytes, is a bad query.
func TestLongQueryKeepsItsFilters(t *testing.T) {
	t.Parallel()
	body := "// parseRequestLine parses the request line.\nfunc parseRequestLine(line string) {}\n"
	s := fixture(t, map[string]string{"req.go": "package req\n\n" + body, "other.go": "package req\n\n" + strings.ReplaceAll(body, "parseRequestLine", "parseRequestLineAgain")})
	long := "parse request line " + strings.Repeat("pay ", 300) + "-file:req.go"
	resp, err := s.Search(context.Background(), long, Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || !strings.Contains(resp.Note, CutQueryNote) || !strings.Contains(resp.Filter, "-file:req.go") {
		t.Fatalf("results %d, note %q, filter %q: want results, the cut note and the exclusion", len(resp.Results), resp.Note, resp.Filter)
	}
	for _, r := range resp.Results {
		if r.Path == "req.go" {
			t.Errorf("req.go was excluded past the cut but came back: %+v", r)
		}
	}
	if len(resp.Query) > MaxQueryBytes+len(" -file:req.go") {
		t.Errorf("the echoed query is %d bytes, want the cut words and the filters", len(resp.Query))
	}
	if _, err := s.Search(context.Background(), "parse "+strings.Repeat("file:*.go ", maxFilters+1), Options{TopK: 3}); !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), "filters") {
		t.Errorf("%d filters: %v", maxFilters+1, err)
	}
	if _, err := s.Search(context.Background(), "parse file:"+strings.Repeat("a", MaxQueryBytes+1), Options{TopK: 3}); !errors.Is(err, ErrBadQuery) {
		t.Errorf("a filter value over %d bytes: %v", MaxQueryBytes, err)
	}
	// a query of filters only keeps its own message
	if _, err := s.Search(context.Background(), "file:*.go", Options{TopK: 3}); !errors.Is(err, ErrOnlyFilters) || !strings.Contains(err.Error(), "add the words") {
		t.Fatalf("filters only: %v", err)
	}
}

// resized embeds queries with the same embedder name but another vector
// size: a server that changed its model behind the name.
type resized struct{ embed.Embedder }

func (r resized) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := r.Embedder.EmbedQuery(ctx, text)
	if err != nil {
		return nil, err
	}
	return v[:64], nil
}

// Stored vectors of another size than the query's do not fail the search:
// the keyword route answers, and the note says why and what to run.
func TestDimMismatchAnswersByKeywords(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{"req.go": "package req\n\n// parseRequestLine parses the request line.\nfunc parseRequestLine(line string) {}\n"})
	s.Embedder = resized{s.Embedder}
	resp, err := s.Search(context.Background(), "parse the request line", Options{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "req.go" {
		t.Errorf("results %+v, want req.go by its keywords", resp.Results)
	}
	if !strings.Contains(resp.Note, "keyword matches alone") || !strings.Contains(resp.Note, "coderag index") {
		t.Errorf("note %q: want the keyword fallback and what to run", resp.Note)
	}
}
