package index

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed"
)

// fileIDs decides the embedder id a file's fingerprint records
// (store.FileRecord.Embedder) and whether a recorded one is current.
//
// An embedder whose vectors of Chinese text depend on the text analysis it
// was built with (embed.Translator: the local hashing embedder, with the
// glossary and, when present, CC-CEDICT) gets, for a file holding Han
// text, "ID+ANALYSIS" (embed.Analysis, analyze.Analyzer.Identity, e.g.
// "local:hashing-768-v1+zh:1a2b3c4d+cedict:0123456789abcdef"); every other
// file records the bare ID, as its vectors do not depend on that data. So
// installing or removing the dictionary (or a glossary change) makes
// exactly the files with Chinese text out of date, and the next run
// re-embeds them. Chunk and vector rows keep the bare ID: search selects
// vectors by it.
type fileIDs struct {
	id  string
	emb embed.Embedder

	once sync.Once
	han  string // id + "+" + analysis, on first use (it may load the dictionary); "" when emb translates nothing
}

func newFileIDs(emb embed.Embedder) *fileIDs {
	return &fileIDs{id: emb.ID(), emb: emb}
}

// hanID is the id recorded for a file holding Han text ("" when the
// embedder's vectors depend on no analysis).
func (f *fileIDs) hanID() string {
	f.once.Do(func() {
		if a := embed.Analysis(f.emb); a != "" {
			f.han = f.id + "+" + a
		}
	})
	return f.han
}

// record is the id to record for a file of this content.
func (f *fileIDs) record(content []byte) string {
	if hasHan(content) {
		if h := f.hanID(); h != "" {
			return h
		}
	}
	return f.id
}

// current reports whether a recorded id is what this embedder would
// record for the same bytes: the bare id (the file has no Han text, as it
// had none then), or the Han id with today's analysis.
func (f *fileIDs) current(rec string) bool {
	if rec == f.id {
		return true
	}
	return strings.HasPrefix(rec, f.id+"+") && rec == f.hanID()
}

// OtherAnalysis reports whether rec, the embedder id recorded for a file
// (store.FileRecord.Embedder), names the same embedder as emb but another
// text analysis than emb's (see fileIDs): the file's vectors of Chinese
// text were made with other data, and a query embedded by emb mixes the
// two. Diff counts such a file as changed; a search that cannot re-index
// it marks its results stale.
func OtherAnalysis(rec string, emb embed.Embedder) bool {
	if emb == nil {
		return false
	}
	rest, ok := strings.CutPrefix(rec, emb.ID()+"+")
	return ok && rest != embed.Analysis(emb)
}

// hasHan reports whether b (UTF-8) holds a Han character; ASCII bytes are
// skipped without decoding.
func hasHan(b []byte) bool {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if analyze.IsHan(r) {
			return true
		}
		i += n
	}
	return false
}
