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
// An embedder whose vectors of Chinese text depend on the translation
// data installed (embed.Translator: the local embedder, with the glossary
// and, when present, CC-CEDICT) gets, for a file holding Han text,
// "ID+IDENTITY" (analyze.Identity, e.g.
// "local:hashing-768-v1+zh:1a2b3c4d+cedict:0123456789abcdef"); every other
// file records the bare ID, as its vectors do not depend on that data. So
// installing or removing the dictionary (or a glossary change) makes
// exactly the files with Chinese text out of date, and the next run
// re-embeds them. Chunk and vector rows keep the bare ID: search selects
// vectors by it.
type fileIDs struct {
	id         string
	translates bool

	once sync.Once
	han  string // id + "+" + analyze.Identity(), on first use (it may load the dictionary)
}

func newFileIDs(emb embed.Embedder) *fileIDs {
	return &fileIDs{id: emb.ID(), translates: embed.TranslatesHan(emb)}
}

// hanID is the id recorded for a file holding Han text.
func (f *fileIDs) hanID() string {
	f.once.Do(func() { f.han = f.id + "+" + analyze.Identity() })
	return f.han
}

// record is the id to record for a file of this content.
func (f *fileIDs) record(content []byte) string {
	if f.translates && hasHan(content) {
		return f.hanID()
	}
	return f.id
}

// current reports whether a recorded id is what this embedder would
// record for the same bytes: the bare id (the file has no Han text, as it
// had none then), or the Han id with today's translation data.
func (f *fileIDs) current(rec string) bool {
	if rec == f.id {
		return true
	}
	return f.translates && strings.HasPrefix(rec, f.id+"+") && rec == f.hanID()
}

// staleAnalysis reports whether rec, recorded for a file of a project
// whose embedder id is id, names translation data other than today's (see
// fileIDs); Diff counts such a file as changed.
func staleAnalysis(rec, id string) bool {
	rest, ok := strings.CutPrefix(rec, id+"+")
	return ok && rest != analyze.Identity()
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
