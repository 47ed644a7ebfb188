package static

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/embedtest"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/testutil"
	"github.com/coderag/coderag/internal/vec"
)

func builtinT(tb testing.TB) *Embedder {
	tb.Helper()
	e, err := New()
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func TestContract(t *testing.T) {
	embedtest.Run(t, embedtest.Subject{New: func(t *testing.T) embed.Embedder { return builtinT(t) }})
}

// TestBuiltinChecksum verifies the embedded file's checksum, which New
// skips to start fast.
func TestBuiltinChecksum(t *testing.T) {
	if _, err := Decode(weights); err != nil {
		t.Fatal(err)
	}
}

func TestBuiltinID(t *testing.T) {
	e := builtinT(t)
	if e.ID() != Provider+":"+ModelName || e.Dim() != 256 {
		t.Errorf("ID %q Dim %d, want %s:%s and 256", e.ID(), e.Dim(), Provider, ModelName)
	}
}

// handModel is a 4-d model: remov and delet point the same way, add
// elsewhere, 删除 between remov and delet; one bucket.
func handModel(t *testing.T) *Model {
	t.Helper()
	vocab := []string{"删除", "remov", "delet", "add", "entri"}
	table := []float32{
		1, 0.1, 0, 0, // 删除
		1, 0, 0, 0, // remov
		0.9, 0.2, 0, 0, // delet
		0, 0, 1, 0, // add
		0, 0, 0, 1, // entri
		0, 1, 1, 1, // bucket 0
	}
	rows, scale := Quantize(table, 4)
	n := len(vocab) + 1
	w := make([]float32, n)
	for i := range w {
		w[i] = 1
	}
	m := &Model{Name: "hand-v0", Dim: 4, Vocab: vocab, Buckets: 1, WDoc: w, WQuery: append([]float32(nil), w...), Scale: scale, Rows: rows}
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, m2) {
		t.Fatalf("Decode(Encode(m)) differs from m")
	}
	return m2
}

func TestDecodeRejectsCorruptFiles(t *testing.T) {
	m := handModel(t)
	b, _ := Encode(m)
	for name, bad := range map[string][]byte{
		"flipped byte": func() []byte { c := bytes.Clone(b); c[len(c)/2] ^= 1; return c }(),
		"truncated":    b[:len(b)-40],
		"no magic":     append([]byte("XX"), b[2:]...),
		"empty":        nil,
	} {
		if _, err := Decode(bad); !errors.Is(err, ErrBadWeights) {
			t.Errorf("%s: %v, want ErrBadWeights", name, err)
		}
	}
}

func TestQuantizeKeepsDirection(t *testing.T) {
	row := []float32{0.31, -0.02, 0.9, -0.45, 0.0007, 0.12}
	q, s := Quantize(row, len(row))
	var dot, nq, nr float64
	for i, x := range row {
		y := float64(q[i]) * float64(s[0])
		dot += float64(x) * y
		nq += y * y
		nr += float64(x) * float64(x)
	}
	if c := dot / math.Sqrt(nq*nr); c < 0.9999 {
		t.Errorf("cosine after quantising %.6f, want >= 0.9999", c)
	}
}

func TestTokenizer(t *testing.T) {
	tok := NewTokenizer([]string{"阻塞", "任务", "等待", "等待任务", "x", "超长的中文词语"})
	for text, want := range map[string][]string{
		"parseHTTPRequest": {"parsehttprequest", "pars", "http", "request"},
		"阻塞等待任务":           {"阻塞", "等待任务"},
		"唤醒阻塞的任务 wake()":   {"唤", "醒", "阻塞", "的", "任务", "wake"},
		"user_id 超长的中文词语":  {"userid", "user", "id", "超", "长", "的", "中", "文", "词", "语"},
	} {
		if got := tok.Tokens(nil, text); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestHandModelVectorsAndNeighbors(t *testing.T) {
	e := NewFromModel(handModel(t))
	if got := e.Tokens("删除 entries"); !reflect.DeepEqual(got, []string{"删除", "entri"}) {
		t.Fatalf("Tokens = %q", got)
	}
	ns := e.Neighbors("remove", 2)
	if len(ns) != 2 || ns[0].Word != "delet" || ns[1].Word == "remov" || ns[0].Score < 0.95 {
		t.Errorf("Neighbors(remove) = %+v, want delet first and not remov itself", ns)
	}
	ns = e.Neighbors("删除", 2)
	if len(ns) != 2 || ns[0].Word != "remov" && ns[0].Word != "delet" {
		t.Errorf("Neighbors(删除) = %+v, want remov or delet first", ns)
	}
	if v := e.Vector("remov"); v == nil || math.Abs(float64(vec.Dot(v, e.Vector("delet")))-0.975) > 0.02 {
		t.Errorf("Vector(remov)·Vector(delet) off: %v", v)
	}
	if e.Vector("unknown") != nil {
		t.Error("Vector of an unknown token should be nil")
	}
	ctx := context.Background()
	q, _ := e.EmbedQuery(ctx, "remove entry")
	vs, _ := e.Embed(ctx, []string{"delete(entries)", "add(entries)", "%%%"})
	if !(vec.Dot(q, vs[0]) > vec.Dot(q, vs[1])) {
		t.Errorf("remove entry: delete %.3f, add %.3f; want delete nearer", vec.Dot(q, vs[0]), vec.Dot(q, vs[1]))
	}
	for _, x := range vs[2] {
		if x != 0 {
			t.Fatalf("a text without tokens should get a zero vector, got %v", vs[2])
		}
	}
	// an unknown token takes its bucket's row
	u, _ := e.Embed(ctx, []string{"zzzunknown"})
	if c := vec.Dot(u[0], []float32{0, 1, 1, 1}); c < 0.999 {
		t.Errorf("unknown token vs bucket row: cosine %.4f, want 1", c)
	}
}

// goChunks returns ~1 KB pieces of GOROOT/src/net/http, the corpus of
// local.BenchmarkLocalEmbed, or skips.
func goChunks(tb testing.TB) []string {
	chunks := goChunksOrNil()
	if len(chunks) < 100 {
		tb.Skip("fewer than 100 chunks of GOROOT/src/net/http")
	}
	return chunks
}

func goChunksOrNil() []string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "*.go"))
	var chunks []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var cur strings.Builder
		for _, line := range strings.SplitAfter(string(b), "\n") {
			cur.WriteString(line)
			if cur.Len() >= 1000 {
				chunks = append(chunks, cur.String())
				cur.Reset()
			}
		}
	}
	return chunks
}

// BenchmarkEmbed compares chunks per CPU-second of one goroutine, this
// model against the hashing embedder, over the same net/http chunks in
// batches of 32 (how the indexer sends them).
func BenchmarkEmbed(b *testing.B) {
	chunks := goChunks(b)
	hashing, err := local.New(local.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []struct {
		name string
		e    embed.Embedder
	}{{"static", builtinT(b)}, {"hashing", hashing}} {
		b.Run(s.name, func(b *testing.B) {
			ctx := context.Background()
			s.e.Embed(ctx, chunks[:64])
			b.ResetTimer()
			start := time.Now()
			cpu := testutil.ThreadCPU(func() {
				for i := 0; i < b.N; i++ {
					for j := 0; j < len(chunks); j += 32 {
						if _, err := s.e.Embed(ctx, chunks[j:min(j+32, len(chunks))]); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			n := float64(b.N * len(chunks))
			b.ReportMetric(n/time.Since(start).Seconds(), "chunks/s")
			b.ReportMetric(n/cpu.Seconds(), "chunks/cpu-s")
		})
	}
}

// TestFastPathMatchesTokenizer proves that the Embedder's identifier-cached
// scan yields the rows of exactly the tokens Tokenizer.Tokens gives (the
// tokens the model was trained on), over real Go source and mixed text.
func TestFastPathMatchesTokenizer(t *testing.T) {
	e := builtinT(t)
	texts := []string{"唤醒等待的任务 wakeWaiters(); ÉtéCafé_x 数据库连接池 $scope.user_id", "δέλτα 中x é中x "}
	if testing.Short() {
		t.Log("short: mixed texts only")
	} else if chunks := goChunksOrNil(); len(chunks) >= 200 {
		texts = append(texts, chunks[:200]...)
	}
	for _, text := range texts {
		var want []int32
		for _, tok := range e.tok.Tokens(nil, text) {
			want = append(want, e.id(tok))
		}
		for pass := 0; pass < 2; pass++ { // cold and cached
			got := e.appendIDs(nil, &scratch{}, text)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pass %d: rows of %q differ:\n got %v\nwant %v", pass, text[:min(len(text), 80)], got, want)
			}
		}
	}
}

// BenchmarkLoad is the cold-start cost of the built-in model: what New
// does once (a view of the embedded file) and the vocabulary index its
// first embedding builds.
func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		t, err := viewTable(weights)
		if err != nil {
			b.Fatal(err)
		}
		t.vocab()
	}
}

// TestBuiltinRelatesMeanings checks what the trained table learned and
// feature hashing cannot: words of like meaning, in English and across
// Chinese, are near (issue 26: "阻塞" near block and wait, not block_on).
func TestBuiltinRelatesMeanings(t *testing.T) {
	e := builtinT(t)
	has := func(ns []Neighbor, w string) bool {
		for _, n := range ns {
			if n.Word == w {
				return true
			}
		}
		return false
	}
	for word, want := range map[string][]string{
		"remove": {"delet"},
		"delete": {"remov"},
		"唤醒":     {"wake"},
		"丢弃":     {"discard"},
		"超时":     {"timeout"},
		"配置":     {"config"},
		"阻塞":     {"wait", "block"},
	} {
		ns := e.Neighbors(word, 8)
		for _, w := range want {
			if !has(ns, w) {
				t.Errorf("Neighbors(%q, 8) = %v, want %q among them", word, ns, w)
			}
		}
		if has(ns, "blockon") {
			t.Errorf("Neighbors(%q) holds blockon: %v", word, ns)
		}
	}
	ctx := context.Background()
	q, _ := e.EmbedQuery(ctx, "wake the waiting tasks")
	vs, _ := e.Embed(ctx, []string{
		"[method:Notify.notify_waiters(&self)] pub fn notify_waiters(&self) { let mut waiters = self.waiters.lock(); while let Some(w) = waiters.pop_back() { w.wake(); } }",
		"[method:Buf.put_slice(&mut self, src: &[u8])] pub fn put_slice(&mut self, src: &[u8]) { self.extend_from_slice(src); }",
	})
	if !(vec.Dot(q, vs[0]) > vec.Dot(q, vs[1])) {
		t.Errorf("wake the waiting tasks: notify_waiters %.3f, put_slice %.3f", vec.Dot(q, vs[0]), vec.Dot(q, vs[1]))
	}
	qz, _ := e.EmbedQuery(ctx, "唤醒等待的任务")
	if !(vec.Dot(qz, vs[0]) > vec.Dot(qz, vs[1])) {
		t.Errorf("唤醒等待的任务: notify_waiters %.3f, put_slice %.3f", vec.Dot(qz, vs[0]), vec.Dot(qz, vs[1]))
	}
}

// TestEmbedQueryTranslated checks the Chinese path of a query: a Han run is
// embedded through its translations (HanOwnShare 0: the English terms
// alone), so "超时" translated to "timeout" gives the vector of "timeout";
// weights split the run between its terms; a run nothing translates keeps
// the model's own rows; a query without Han is EmbedQuery's.
func TestEmbedQueryTranslated(t *testing.T) {
	e := builtinT(t)
	ctx := context.Background()
	q := func(s string) []float32 {
		v, err := e.EmbedQuery(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tr := func(s string, f func(string) []analyze.Expansion) []float32 {
		v, err := e.EmbedQueryTranslated(ctx, s, f)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	near := func(a, b []float32) bool { return vec.Dot(a, b) > 0.9999 }
	timeout := func(string) []analyze.Expansion { return []analyze.Expansion{{Term: "timeout", Weight: 1}} }
	if HanOwnShare == 0 && !near(tr("超时", timeout), q("timeout")) {
		t.Errorf("超时 -> timeout: cosine %.4f with the vector of \"timeout\"", vec.Dot(tr("超时", timeout), q("timeout")))
	}
	// the English words around the run keep their own weight
	mixed := tr("http 超时", timeout)
	if vec.Dot(mixed, q("http timeout")) < 0.99 {
		t.Errorf("http 超时: cosine %.4f with \"http timeout\"", vec.Dot(mixed, q("http timeout")))
	}
	// a heavier translation pulls the vector its way
	two := func(w1, w2 float64) func(string) []analyze.Expansion {
		return func(string) []analyze.Expansion {
			return []analyze.Expansion{{Term: "delete", Weight: w1}, {Term: "timeout", Weight: w2}}
		}
	}
	a, b := tr("删除", two(0.9, 0.1)), tr("删除", two(0.1, 0.9))
	if !(vec.Dot(a, q("delete")) > vec.Dot(b, q("delete")) && vec.Dot(b, q("timeout")) > vec.Dot(a, q("timeout"))) {
		t.Error("translation weights do not steer the vector")
	}
	none := func(string) []analyze.Expansion { return nil }
	if !near(tr("超时", none), q("超时")) {
		t.Error("a run without translations must keep the model's own rows")
	}
	if !near(tr("parse the request line", timeout), q("parse the request line")) {
		t.Error("a query without Han must embed as EmbedQuery does")
	}
	if _, err := e.EmbedQueryTranslated(ctx, "  ", timeout); !errors.Is(err, embed.ErrEmptyInput) {
		t.Errorf("blank query: %v, want ErrEmptyInput", err)
	}
}

// EmbedTerms of a text's analyze.Terms is Embed of the text, bit for bit,
// for ASCII texts: source files of several languages cut into pieces at
// every kind of byte (inside words too), and random ASCII.
func TestEmbedTermsEqualsEmbed(t *testing.T) {
	e := builtinT(t)
	var texts []string
	for _, dir := range []string{"go", "rust", "c", "python", "typescript", "java", "ruby", "php"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "chunk", "testdata", dir, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for off := 0; off < len(b); off += 997 {
				piece := string(b[off:min(len(b), off+1500)])
				texts = append(texts, piece, "[function:"+filepath.Base(f)+"] "+piece)
			}
		}
	}
	rng := uint64(26)
	const alphabet = "abcXYZ_$09 \t\n.,;:(){}[]<>=+-*/\"'#@!?&|^%~`\\fooBarBaz HTTPServer parse_json"
	for range 1000 {
		rng = rng*6364136223846793005 + 1442695040888963407
		n := int((rng >> 33) % 400)
		b := make([]byte, n)
		for i := range b {
			rng = rng*6364136223846793005 + 1442695040888963407
			b[i] = alphabet[(rng>>33)%uint64(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	checked := 0
	for _, text := range texts {
		if !isASCIIText(text) || embed.IsBlank(text) {
			continue
		}
		want, err := e.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		got := e.EmbedTerms(analyze.Terms(nil, text))
		if !reflect.DeepEqual(got, want[0]) {
			t.Fatalf("EmbedTerms differs from Embed for %q", text[:min(len(text), 80)])
		}
		checked++
	}
	t.Logf("%d of %d texts compared", checked, len(texts))
	if checked < 900 {
		t.Fatalf("only %d texts compared", checked)
	}
}

func isASCIIText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// MaxSim credits each query word with its nearest word of the text: a
// text holding every query word scores 1, one holding a synonym ("delete"
// for "remove") scores above one holding an unrelated word, a text without
// tokens scores 0, and the score of a text does not depend on the texts
// scored before it (the pair cache).
func TestMaxSim(t *testing.T) {
	e := NewFromModel(handModel(t))
	m := e.NewMaxSim("remove entry", nil)
	if m == nil {
		t.Fatal("NewMaxSim of a query of known words is nil")
	}
	same := m.Score("func remove(entry)")
	syn := m.Score("func delete(entry)")
	other := m.Score("func add(entry)")
	if math.Abs(same-1) > 1e-6 {
		t.Errorf("a text holding every query word: %v, want 1", same)
	}
	if !(syn > other) || !(syn < same) {
		t.Errorf("delete %.4f, add %.4f, remove %.4f: want remove > delete > add", syn, other, same)
	}
	if got := m.Score("%%%"); got != 0 {
		t.Errorf("a text without tokens: %v, want 0", got)
	}
	fresh := e.NewMaxSim("remove entry", nil)
	if got := fresh.Score("func delete(entry)"); got != syn {
		t.Errorf("the same text scored %v by a fresh scorer, %v after others", got, syn)
	}
	if all := fresh.ScoreAll([]string{"func remove(entry)", "func delete(entry)", "%%%"}); all[0] != same || all[1] != syn || all[2] != 0 {
		t.Errorf("ScoreAll = %v, want Score's %v %v 0", all, same, syn)
	}
	if e.NewMaxSim("%%%", nil) != nil {
		t.Error("a query without tokens should give no scorer")
	}
	// the built-in model: a question's words meet the code's
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	q := b.NewMaxSim("remove the entry from the cache", nil)
	if d, a := q.Score("func (c *Cache) Delete(key string) { delete(c.items, key) }"),
		q.Score("func (c *Cache) Len() int { return len(c.items) }"); !(d > a) {
		t.Errorf("built-in model: Delete %.4f, Len %.4f; want Delete above", d, a)
	}
}

// A one-shot search scores its candidates without building the
// vocabulary index: the query's words and then the candidates' words are
// found by one scan each (table.resolve), and the scores equal those of a
// process whose index is built.
func TestScoreAllWithoutIndex(t *testing.T) {
	texts := goChunks(t)[:40]
	const q = "allocate a span for the heap when the cache is empty"
	cold, err := viewTable(weights)
	if err != nil {
		t.Fatal(err)
	}
	ce := newEmbedder(cold)
	got := ce.NewMaxSim(q, nil).ScoreAll(texts)
	if cold.index.Load() != nil {
		t.Fatal("scoring a pool built the vocabulary index")
	}
	if cold.scans != 2 {
		t.Errorf("scans = %d, want 2 (the query's words, then the pool's)", cold.scans)
	}
	warm, err := viewTable(weights)
	if err != nil {
		t.Fatal(err)
	}
	we := newEmbedder(warm)
	we.Prepare()
	m := we.NewMaxSim(q, nil)
	for i, text := range texts {
		if w := m.Score(text); w != got[i] {
			t.Fatalf("text %d: %v without the index, %v with it", i, got[i], w)
		}
	}
}

// Searches share one Embedder: scorers made and run side by side (each
// priming the identifier cache and resolving words while the others
// look them up) give the scores one scorer gives alone.
func TestScoreAllConcurrent(t *testing.T) {
	texts := goChunks(t)[:30]
	v, err := viewTable(weights)
	if err != nil {
		t.Fatal(err)
	}
	e := newEmbedder(v)
	queries := []string{"close the idle connections", "parse the request line", "write the response header", "read a chunked body"}
	got := make([][]float64, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = e.NewMaxSim(q, nil).ScoreAll(texts)
		}()
	}
	wg.Wait()
	ref, err := viewTable(weights)
	if err != nil {
		t.Fatal(err)
	}
	re := newEmbedder(ref)
	re.Prepare()
	for i, q := range queries {
		want := re.NewMaxSim(q, nil).ScoreAll(texts)
		for k := range want {
			if got[i][k] != want[k] {
				t.Fatalf("%q text %d: %v side by side, %v alone", q, k, got[i][k], want[k])
			}
		}
	}
}
