package local

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/testutil"
	"github.com/coderag/coderag/internal/vec"
)

// raceEnabled is set by race_test.go under -race.
var raceEnabled bool

func mustNew(t testing.TB, o Options) *Embedder {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func embedText(t testing.TB, e *Embedder, s string) []float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), []string{s})
	if err != nil {
		t.Fatal(err)
	}
	return v[0]
}

func names(terms []Term) []string {
	var out []string
	for _, t := range terms {
		out = append(out, t.Name)
	}
	return out
}

func TestTerms(t *testing.T) {
	e := mustNew(t, Options{})
	for _, tc := range []struct {
		text string
		want []string // must all be present
		not  []string // must be absent
	}{
		{"OvertimeService", []string{"word:overtim", "word:servic", "pair:overtim+servic", "ident:overtimeservice", "gram:#ov", "gram:ce#"}, nil},
		{"overtime service", []string{"word:overtim", "word:servic", "pair:overtim+servic"}, []string{"ident:overtimeservice"}},
		{"overtime(service)", []string{"word:overtim", "word:servic"}, []string{"pair:overtim+servic"}},
		{"parse_json_body", []string{"word:pars", "word:json", "word:bodi", "pair:pars+json", "ident:parsejsonbody"}, nil},
		{"HTTPServer", []string{"word:http", "word:server", "ident:httpserver"}, []string{"word:h", "word:httpserv"}},
		{"utf8Decode2", []string{"word:utf", "digits:8", "word:decod", "digits:2"}, nil},
		{"http.Client.Do", []string{"word:http", "word:client", "stop:do"}, []string{"pair:http+client"}},
		{"return err", []string{"stop:return", "stop:err"}, []string{"gram:#re"}},
		{"x := i", nil, []string{"word:x", "word:i"}},
		{"读取配置文件", []string{"cjk2:读取", "cjk2:配置", "cjk2:文件", "cjk1:读"}, nil},
		{"获取user列表", []string{"cjk2:获取", "word:user", "cjk2:列表"}, nil},
		{"naïveCafé", []string{"word:naïve", "word:café"}, nil},
	} {
		got := names(e.Terms(tc.text))
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("Terms(%q) lacks %q; got %q", tc.text, w, got)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(got, w) {
				t.Errorf("Terms(%q) has %q; got %q", tc.text, w, got)
			}
		}
	}
	// Sublinear tf: 4 occurrences weigh 1+ln 4, not 4.
	for _, term := range e.Terms("cache cache cache cache") {
		if term.Name == "word:cach" && (term.Count != 4 || math.Abs(term.Weight-(1+math.Log(4))) > 1e-9) {
			t.Errorf("tf weighting: %+v", term)
		}
	}
}

func TestSimilarity(t *testing.T) {
	e := mustNew(t, Options{})
	cos := func(a, b string) float32 { return vec.Dot(embedText(t, e, a), embedText(t, e, b)) }
	for _, tc := range []struct{ q, near, far string }{
		{"overtime service", "OvertimeService", "func parseConfig(path string) (*Config, error)"},
		{"OvertimeService", "class OvertimeService { double calculateOvertimePay(Employee e) }", "class UserRepository { User findById(long id) }"},
		{"parse json body", "func parseJSONBody(r *http.Request) error", "func renderTemplate(w io.Writer) error"},
		{"retrying requests", "func (c *Client) retryRequest(req *Request) error", "func drawCircle(x, y, r float64)"},
		{"读取配置文件", "// 读取配置文件并返回配置\nfunc loadConfig()", "// 计算加班工资\nfunc calcPay()"},
	} {
		n, f := cos(tc.q, tc.near), cos(tc.q, tc.far)
		if n <= f {
			t.Errorf("%q: near %.3f <= far %.3f", tc.q, n, f)
		}
	}
}

func TestExpand(t *testing.T) {
	gloss := map[string][]string{"加班": {"overtime"}, "服务": {"service"}}
	plain := mustNew(t, Options{})
	bi := mustNew(t, Options{Expand: func(term string) []string { return gloss[term] }})
	doc := "public class OvertimeService { }"
	q := "加班服务"
	without := vec.Dot(embedText(t, plain, q), embedText(t, plain, doc))
	with := vec.Dot(embedText(t, bi, q), embedText(t, bi, doc))
	if without > 0.05 || with < 0.3 {
		t.Errorf("cosine(%q, %q): %.3f without glossary, %.3f with; want ~0 and >= 0.3", q, doc, without, with)
	}
	if !slices.Contains(names(bi.Terms(q)), "pair:overtim+servic") && !slices.Contains(names(bi.Terms(q)), "word:overtim") {
		t.Errorf("expanded terms missing: %q", names(bi.Terms(q)))
	}
}

func TestVectors(t *testing.T) {
	e := mustNew(t, Options{Dim: 256})
	if e.ID() != "local:hashing-256-v1" || e.Dim() != 256 {
		t.Fatalf("ID %q Dim %d", e.ID(), e.Dim())
	}
	for _, s := range []string{"OvertimeService", "加班", "中文注释：读取文件", "{}"} {
		v := embedText(t, e, s)
		if len(v) != 256 {
			t.Fatalf("%q: %d values", s, len(v))
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if s == "{}" {
			if n != 0 {
				t.Errorf("%q: want a zero vector (no features), norm² %v", s, n)
			}
			continue
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm² %v", s, n)
		}
	}
	// Same vector across instances and calls, bit for bit.
	a, b := embedText(t, e, "func (s *Server) Serve(l net.Listener) error"), embedText(t, mustNew(t, Options{Dim: 256}), "func (s *Server) Serve(l net.Listener) error")
	if !slices.Equal(a, b) {
		t.Error("not deterministic")
	}
	if q, err := e.EmbedQuery(context.Background(), "func (s *Server) Serve(l net.Listener) error"); err != nil || !slices.Equal(q, a) {
		t.Errorf("EmbedQuery differs from Embed: %v", err)
	}
	if !strings.Contains(e.Describe(), "not synonyms") || !strings.Contains(e.Describe(), "EMBEDDING_PROVIDER=ollama") {
		t.Errorf("Describe: %s", e.Describe())
	}
}

func TestModelNames(t *testing.T) {
	for _, tc := range []struct {
		model string
		dim   int
		ok    bool
	}{
		{"", 768, true}, {"hashing-768-v1", 768, true}, {"hashing-512-v1", 512, true},
		{"hashing-768-v2", 0, false}, {"hashing-8-v1", 0, false}, {"hash-v1", 0, false}, {"nomic-embed-text", 0, false},
	} {
		d, err := ParseModel(tc.model)
		if d != tc.dim || (err == nil) != tc.ok {
			t.Errorf("ParseModel(%q) = %d, %v", tc.model, d, err)
		}
	}
	if _, err := New(Options{Dim: 10}); err == nil {
		t.Error("Dim 10 accepted")
	}
}

// goChunks splits the Go files of $GOROOT/src/net/http into ~1 KB chunks of
// whole lines, like the text chunker does.
func goChunks(tb testing.TB) []string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skip("no go env GOROOT:", err)
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
		if cur.Len() > 0 {
			chunks = append(chunks, cur.String())
		}
	}
	if len(chunks) < 100 {
		tb.Skipf("GOROOT/src/net/http of this Go gives %d chunks, fewer than the 100 the benchmark needs", len(chunks))
	}
	return chunks
}

// BenchmarkLocalEmbed reports chunks/s of one goroutine over the ~1 KB
// chunks of net/http, in batches of 32 as the indexer sends them: "chunks/s"
// by wall time, "chunks/cpu-s" by the thread's CPU time (one core's rate,
// robust on a loaded machine).
func BenchmarkLocalEmbed(b *testing.B) {
	chunks := goChunks(b)
	e := mustNew(b, Options{})
	ctx := context.Background()
	var bytes int
	for _, c := range chunks {
		bytes += len(c)
	}
	b.SetBytes(int64(bytes))
	b.ResetTimer()
	start := time.Now()
	cpu := testutil.ThreadCPU(func() {
		for i := 0; i < b.N; i++ {
			for j := 0; j < len(chunks); j += 32 {
				if _, err := e.Embed(ctx, chunks[j:min(j+32, len(chunks))]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	n := float64(b.N * len(chunks))
	b.ReportMetric(n/time.Since(start).Seconds(), "chunks/s")
	b.ReportMetric(n/cpu.Seconds(), "chunks/cpu-s")
	b.ReportMetric(float64(bytes)/float64(len(chunks)), "B/chunk")
}

// TestLocalSpeed reports against a floor of 5,000 chunks/s per core,
// measured in the embedding thread's CPU time (the benchmark reports both).
func TestLocalSpeed(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race (the race detector slows hashing ~50x)")
	}
	chunks := goChunks(t)
	e := mustNew(t, Options{})
	e.Embed(context.Background(), chunks[:100]) // warm the stem caches
	var err error
	cpu := testutil.ThreadCPU(func() { _, err = e.Embed(context.Background(), chunks) })
	if err != nil {
		t.Fatal(err)
	}
	rate := float64(len(chunks)) / cpu.Seconds()
	t.Logf("%d chunks of net/http: %.0f chunks per CPU-second", len(chunks), rate)
	if rate < 5000 { // reported, not asserted: speed belongs to benchmarks
		t.Logf("below the floor: %.0f chunks/cpu-s, want >= 5,000", rate)
	}
}
