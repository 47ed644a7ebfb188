package search

import (
	"context"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/vec"
)

// Acronyms. Code abbreviates what questions spell out: BFSIterator for
// "breadth first search", LRUCache for "least recently used", ReadBOM for
// "byte order mark", ttl for "time to live". The keyword route never
// joins the spelled words to the acronym, and BM25 then favours long
// chunks that hold the words one by one. acronymTerms adds the acronym of
// a run of the query's words to the keyword route when the built-in
// learned model confirms it: the acronym is a word of its vocabulary
// (a code token) and its row lies near the run's query vector
// (HybridParams.AcronymMin). The model separates the real ones from chance
// initials well (session 29, cosine of the acronym's row and the run's
// query vector): bfs 0.30, lru 0.32, ttl 0.56, bom 0.25, ast 0.43, crc
// 0.20, eof 0.37, dag 0.33, scc 0.33, rpc 0.25, csv 0.26; chance initials
// "copy a pointer" -> cap 0.04, "parse every line" -> pel 0.10, "read the
// file" -> rtf 0.10, "get all tags" -> gat 0.06. It does not know every
// acronym (fifo -0.06, wal 0.00): those are left as they were.

// acronymLinks are the short words an acronym's run may hold inside it,
// and whose initial it takes: "time to live" (ttl), "end of file" (eof),
// "first in first out" (fifo). A run starts and ends with a content word.
var acronymLinks = map[string]bool{"to": true, "in": true, "of": true, "and": true, "on": true, "for": true}

// acronymModel is what acronymTerms reads of the learned model.
type acronymModel interface {
	Vector(token string) []float32
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// acronymTerms returns the acronyms of the query's runs of 3 to 5 English
// words that the built-in learned model confirms (see above), each with
// the run it came from ("bfs<-breadth first search"); none for a query
// the model cannot read, a code query, or min <= 0.
func acronymTerms(ctx context.Context, q *Query, min float64) []expansion {
	if min <= 0 || q.Code || q.Symbol != "" {
		return nil
	}
	m, err := static.New()
	if err != nil {
		return nil
	}
	return acronymsOf(ctx, m, q, min)
}

// acronymsOf is acronymTerms with the model given (tests).
func acronymsOf(ctx context.Context, m acronymModel, q *Query, min float64) []expansion {
	words := strings.FieldsFunc(strings.ToLower(q.Text), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	have := map[string]bool{}
	for _, t := range q.Terms {
		have[t] = true
	}
	var out []expansion
	for i := range words {
		if analyze.EnglishStop(words[i]) {
			continue
		}
		for n := 3; n <= 5 && i+n <= len(words); n++ {
			run := words[i : i+n]
			if analyze.EnglishStop(run[n-1]) || !linked(run[1:n-1]) {
				continue
			}
			var b strings.Builder
			for _, w := range run {
				b.WriteByte(w[0])
			}
			acr := b.String()
			if have[acr] {
				continue
			}
			row := m.Vector(acr)
			if row == nil {
				continue
			}
			qv, err := m.EmbedQuery(ctx, strings.Join(run, " "))
			if err != nil || len(qv) != len(row) {
				continue
			}
			if s := float64(vec.Dot(qv, row)); s >= min {
				have[acr] = true
				out = append(out, expansion{Term: acr, From: strings.Join(run, " "), Score: s})
			}
		}
	}
	return out
}

// linked reports whether the inner words of a run are content words or
// acronymLinks ("a", "the" and other stop words break it).
func linked(inner []string) bool {
	for _, w := range inner {
		if analyze.EnglishStop(w) && !acronymLinks[w] {
			return false
		}
	}
	return true
}

// acronymStage notes, on each candidate holding an acronym the keyword
// route added, which words it came from (Explain.FromModel); it changes
// no score: the acronym's BM25 is in the keyword route's.
func acronymStage(p *pool) {
	for i := range p.res {
		r := &p.res[i]
		if r.Explain == nil {
			continue
		}
		lc := strings.ToLower(r.content + " " + r.Name + " " + r.Path)
		var from []string
		for _, x := range p.acronyms {
			if strings.Contains(lc, x.Term) {
				from = append(from, x.Term+"<-"+x.From)
			}
		}
		r.Explain.FromModel = strings.Join(from, " ")
	}
}
