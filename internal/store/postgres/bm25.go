package postgres

// BM25 on PostgreSQL, the same numbers FTS5 computes on SQLite.
//
// FTS5's bm25() (Robertson & Zaragoza, 2009; fts5_aux.c) scores a row D for
// a query of phrases q1..qn as
//
//	sum_i IDF(qi) * f(qi,D) * (k1+1) / (f(qi,D) + k1 * (1 - b + b*|D|/avgdl))
//
// with k1 = 1.2, b = 0.75, IDF(q) = ln((N - n(q) + 0.5) / (n(q) + 0.5)),
// replaced by 1e-6 when it is not positive; N is the rows of the table,
// n(q) the rows holding q, f(q,D) the occurrences of q in D's columns each
// multiplied by its column weight, |D| the tokens of D over all columns
// (unweighted) and avgdl the tokens of the table over N. FTS5 returns the
// negated sum; KeywordSearch returns it positive.
//
// The columns hold pre-analysed terms, which FTS5's unicode61 tokenizer
// (remove_diacritics 2) splits and folds once more; ftsTokens does the same
// in Go, so a chunk's rows in fts_postings are the tokens FTS5 would have
// indexed. Per project, as one FTS5 table per project on SQLite:
// fts_stats holds N and the total tokens, fts_terms n(q), fts_docs |D|,
// fts_postings f per column. A query is KeywordSearch's terms, tokenised
// by pgTerms; every term the analyzer makes is one token, so every phrase
// is one token (a term of several tokens, which the analyzer never makes,
// counts as that many one-token phrases).

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/store"
)

// bm25K1 and bm25B are FTS5's constants.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// ftsTokens appends the tokens FTS5's unicode61 tokenizer with
// remove_diacritics 2 makes of text: runs of letters, digits and
// private-use characters, lower-cased, with Latin diacritics removed.
func ftsTokens(dst []string, text string) []string {
	start := -1
	var b strings.Builder
	flush := func() {
		if start >= 0 {
			dst = append(dst, b.String())
			b.Reset()
			start = -1
		}
	}
	for i, r := range text {
		if !(unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)) {
			if unicode.Is(unicode.Mn, r) && start >= 0 {
				continue // a combining diacritic inside a token is dropped
			}
			flush()
			continue
		}
		if start < 0 {
			start = i
		}
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		b.WriteString(foldRune(unicode.ToLower(r)))
	}
	flush()
	return dst
}

// foldRune removes the diacritic of a lower-case Latin letter ("é" -> "e").
func foldRune(r rune) string {
	if f, ok := latinFold[r]; ok {
		return f
	}
	return string(r)
}

// latinFold maps the accented lower-case letters of Latin-1 and Latin
// Extended-A to their base letters, as unicode61's remove_diacritics does.
var latinFold = func() map[rune]string {
	m := map[rune]string{}
	for base, accented := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ď", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥ",
		"i": "ìíîïĩīĭįı", "j": "ĵ", "k": "ķ", "l": "ĺļľ", "n": "ñńņňŉ", "o": "òóôõöōŏő",
		"r": "ŕŗř", "s": "śŝşš", "t": "ţť", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
	} {
		for _, r := range accented {
			m[r] = base
		}
	}
	return m
}()

// ftsDoc is one chunk's full-text statistics: per token, its occurrences
// in the five columns (name, owner, path, doc, body), and the total.
type ftsDoc struct {
	freq map[string]*[5]int32
	len  int
}

func newFTSDoc(cols [5]string) ftsDoc {
	d := ftsDoc{freq: map[string]*[5]int32{}}
	var toks []string
	for c, text := range cols {
		toks = ftsTokens(toks[:0], text)
		d.len += len(toks)
		for _, t := range toks {
			f := d.freq[t]
			if f == nil {
				f = new([5]int32)
				d.freq[t] = f
			}
			f[c]++
		}
	}
	return d
}

// ftsBatch collects the full-text rows of a batch of chunks, written by
// flush in a few statements.
type ftsBatch struct {
	ids, docIDs        []int64
	docLens            []int32
	terms              []string
	f0, f1, f2, f3, f4 []int32
	df                 map[string]int64
	tokens             int64

	// vectors and relations of the batch, written by flush too (one
	// statement instead of a round trip per row)
	vecFile, vecN             []int64
	vecEmb                    []string
	vecIDs, vecs              [][]byte
	relFrom, relTo, relKind   []string
	relFile, relLine, relForm []int64
}

// addVectors adds the code_vectors row of file (store's vector.go).
func (b *ftsBatch) addVectors(file int64, p *store.VectorPack) {
	b.vecFile, b.vecN, b.vecEmb = append(b.vecFile, file), append(b.vecN, int64(p.Len())), append(b.vecEmb, p.Embedder())
	b.vecIDs, b.vecs = append(b.vecIDs, p.IDs()), append(b.vecs, p.Vecs())
}

func (b *ftsBatch) addRelation(file int64, r store.RelationRow) {
	b.relFile, b.relFrom, b.relTo, b.relKind = append(b.relFile, file), append(b.relFrom, r.From), append(b.relTo, r.To), append(b.relKind, r.Kind)
	b.relLine, b.relForm = append(b.relLine, int64(r.Line)), append(b.relForm, lang.PackCall(r.Form, r.Args))
}

func (b *ftsBatch) add(id int64, c store.ChunkRow) {
	d := newFTSDoc([5]string{c.NameTerms, c.OwnerTerms, c.PathTerms, c.DocTerms, c.BodyTerms})
	if b.df == nil {
		b.df = map[string]int64{}
	}
	b.docIDs = append(b.docIDs, id)
	b.docLens = append(b.docLens, int32(d.len))
	b.tokens += int64(d.len)
	for t, f := range d.freq {
		b.ids = append(b.ids, id)
		b.terms = append(b.terms, t)
		b.f0, b.f1, b.f2, b.f3, b.f4 = append(b.f0, f[0]), append(b.f1, f[1]), append(b.f2, f[2]), append(b.f3, f[3]), append(b.f4, f[4])
		b.df[t]++
	}
}

// flush writes the batch's postings, document lengths, document
// frequencies and project totals.
func (b *ftsBatch) flush(ctx context.Context, tx *sql.Tx, project string) error {
	const step = 20000
	for i := 0; i < len(b.vecFile); i += 1000 {
		j := min(i+1000, len(b.vecFile))
		if _, err := tx.ExecContext(ctx, `INSERT INTO code_vectors(file_id, embedder, n, ids, vecs)
			SELECT * FROM unnest(?::bigint[], ?::text[], ?::bigint[], ?::bytea[], ?::bytea[])`,
			b.vecFile[i:j], b.vecEmb[i:j], b.vecN[i:j], b.vecIDs[i:j], b.vecs[i:j]); err != nil {
			return fmt.Errorf("insert vectors: %w", err)
		}
	}
	if len(b.relFile) > 0 {
		names := map[string]int64{}
		for i := range b.relFrom {
			names[b.relFrom[i]], names[b.relTo[i]] = 0, 0
		}
		if err := store.NameIDs(ctx, tx, nameTable{}, names); err != nil {
			return err
		}
		from, to := make([]int64, len(b.relFrom)), make([]int64, len(b.relTo))
		for i := range b.relFrom {
			from[i], to[i] = names[b.relFrom[i]], names[b.relTo[i]]
		}
		for i := 0; i < len(b.relFile); i += step {
			j := min(i+step, len(b.relFile))
			if _, err := tx.ExecContext(ctx, `INSERT INTO code_relations(file_id, from_id, to_id, relation_type, line, plain)
				SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::bigint[], ?::bigint[])`,
				b.relFile[i:j], from[i:j], to[i:j], b.relKind[i:j], b.relLine[i:j], b.relForm[i:j]); err != nil {
				return fmt.Errorf("insert relations: %w", err)
			}
		}
	}
	if len(b.docIDs) == 0 {
		*b = ftsBatch{}
		return nil
	}
	key := projectKey(project)
	for i := 0; i < len(b.ids); i += step {
		j := min(i+step, len(b.ids))
		if _, err := tx.ExecContext(ctx, `INSERT INTO fts_postings(project, term, id, f_name, f_owner, f_path, f_doc, f_body)
			SELECT ?, * FROM unnest(?::text[], ?::bigint[], ?::int[], ?::int[], ?::int[], ?::int[], ?::int[])`,
			key, b.terms[i:j], b.ids[i:j], b.f0[i:j], b.f1[i:j], b.f2[i:j], b.f3[i:j], b.f4[i:j]); err != nil {
			return fmt.Errorf("insert postings: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO fts_docs(id, project, len) SELECT id, ?, len FROM unnest(?::bigint[], ?::int[]) AS u(id, len)`,
		key, b.docIDs, b.docLens); err != nil {
		return fmt.Errorf("insert document lengths: %w", err)
	}
	terms := make([]string, 0, len(b.df))
	dfs := make([]int64, 0, len(b.df))
	for t, n := range b.df {
		terms = append(terms, t)
		dfs = append(dfs, n)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO fts_terms(project, term, df) SELECT ?, * FROM unnest(?::text[], ?::bigint[])
		ON CONFLICT (project, term) DO UPDATE SET df = fts_terms.df + excluded.df`, key, terms, dfs); err != nil {
		return fmt.Errorf("count terms: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO fts_stats(project, docs, tokens) VALUES(?, ?, ?)
		ON CONFLICT (project) DO UPDATE SET docs = fts_stats.docs + excluded.docs, tokens = fts_stats.tokens + excluded.tokens`,
		key, int64(len(b.docIDs)), b.tokens); err != nil {
		return fmt.Errorf("count documents: %w", err)
	}
	*b = ftsBatch{}
	return nil
}

// pgDeleteFTS removes the full-text rows of one file's chunks and takes
// them out of the project's statistics.
func pgDeleteFTS(ctx context.Context, tx *sql.Tx, project, path string) error {
	key := projectKey(project)
	ids := store.FileChunkIDs
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE fts_terms t SET df = t.df - d.n FROM (SELECT term, count(*) AS n FROM fts_postings
			WHERE id IN (` + ids + `) GROUP BY term) d WHERE t.project=? AND t.term=d.term`, []any{project, path, key}},
		{`UPDATE fts_stats s SET docs = s.docs - d.n, tokens = s.tokens - d.len FROM (SELECT count(*) AS n,
			coalesce(sum(len), 0) AS len FROM fts_docs WHERE id IN (` + ids + `)) d WHERE s.project=? AND d.n > 0`, []any{project, path, key}},
		{`DELETE FROM fts_postings WHERE id IN (` + ids + `)`, []any{project, path}},
		{`DELETE FROM fts_docs WHERE id IN (` + ids + `)`, []any{project, path}},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			return err
		}
	}
	return nil
}

// pgRemoveFTS deletes every full-text row of project.
func pgRemoveFTS(ctx context.Context, tx *sql.Tx, project string) error {
	key := projectKey(project)
	for _, t := range []string{"fts_postings", "fts_docs", "fts_terms", "fts_stats"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE project=?`, key); err != nil {
			return err
		}
	}
	return nil
}

// pgTerms returns the tokens PostgreSQL's BM25 sums over for terms, in
// order, repeats kept (a repeated term counts twice in FTS5's sum): each
// term's FTS5 tokens (ftsTokens), with a NUL byte read as a space and blank
// terms dropped, as ftsMatch drops them for SQLite.
func pgTerms(terms []string) []string {
	var out []string
	for _, t := range terms {
		t = strings.ReplaceAll(t, "\x00", " ")
		if strings.TrimSpace(t) == "" {
			continue
		}
		out = ftsTokens(out, t)
	}
	return out
}

// KeywordSearch is store.Store.KeywordSearch on PostgreSQL: the terms
// tokenised (pgTerms) and scored by pgKeywordSearch.
func (s *backend) KeywordSearch(ctx context.Context, project string, terms []string, w store.FTSWeights, k int) ([]store.Scored, error) {
	return s.pgKeywordSearch(ctx, project, pgTerms(terms), w, k)
}

// pgKeywordSearch is KeywordSearch over tokens: FTS5's BM25 (see above) over the
// project's statistics, the k best chunks, score descending then id; scores
// are compared rounded as PostgreSQL's round(score::numeric, 9) rounds them
// (roundKey), so a tie FTS5 sees exactly is a tie here too whatever order
// the sum is taken in.
//
// The server returns the raw statistics of the query's terms (bm25Rows) and
// the sum is taken here: a new server process plans and runs a statement of
// a join and a filter in a fraction of the CPU it spends resolving the
// functions, operators, casts and aggregate of the whole formula in SQL
// (bench/PROFILE.md, session 14), and a search process's connection is a
// new server process.
func (s *backend) pgKeywordSearch(ctx context.Context, project string, terms []string, w store.FTSWeights, k int) ([]store.Scored, error) {
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	index := map[string]int{} // distinct terms, in order of first use
	var distinct []string
	for _, t := range terms {
		if _, ok := index[t]; !ok {
			index[t] = len(distinct)
			distinct = append(distinct, t)
		}
	}
	st, err := s.bm25Rows(ctx, projectKey(project), distinct, index)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return st.top(terms, index, w, k), nil
}

// bm25Stats is what the server holds for one query's BM25: the project's
// rows and tokens, each term's document frequency, and per chunk its length
// and each term's occurrences per column.
type bm25Stats struct {
	docs, tokens int64
	df           []int64 // by term index; 0: the term is in no chunk
	chunks       map[int64]*bm25Chunk
	order        []int64 // chunk ids as first read
}

// bm25Chunk is one chunk's part of a query: its length in tokens and, per
// term index, the term's occurrences in its five columns (nil: none).
type bm25Chunk struct {
	len  int64
	freq [][5]int32
	has  []bool
}

// bm25Rows reads the statistics of the terms distinct (index maps each to
// its position) in the project of key: one row per posting of a term, with
// the project's totals, the term's document frequency and the chunk's
// length beside it. A project with no statistics row has no rows.
func (s *backend) bm25Rows(ctx context.Context, key int64, distinct []string, index map[string]int) (*bm25Stats, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.docs, s.tokens, t.term, t.df, p.id, p.f_name, p.f_owner, p.f_path, p.f_doc, p.f_body, d.len
		FROM fts_stats s JOIN fts_terms t ON t.project = s.project AND t.term = ANY(?::text[]) AND t.df > 0
		JOIN fts_postings p ON p.project = s.project AND p.term = t.term
		JOIN fts_docs d ON d.id = p.id
		WHERE s.project = ?`, distinct, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	st := &bm25Stats{df: make([]int64, len(distinct)), chunks: map[int64]*bm25Chunk{}}
	var (
		term string
		df   int64
		id   int64
		f    [5]int64
		n    int64
	)
	for rows.Next() {
		if err := rows.Scan(&st.docs, &st.tokens, &term, &df, &id, &f[0], &f[1], &f[2], &f[3], &f[4], &n); err != nil {
			return nil, err
		}
		i, ok := index[term]
		if !ok {
			return nil, fmt.Errorf("term %q was not asked for", term)
		}
		st.df[i] = df
		c := st.chunks[id]
		if c == nil {
			c = &bm25Chunk{len: n, freq: make([][5]int32, len(distinct)), has: make([]bool, len(distinct))}
			st.chunks[id] = c
			st.order = append(st.order, id)
		}
		c.freq[i], c.has[i] = [5]int32{int32(f[0]), int32(f[1]), int32(f[2]), int32(f[3]), int32(f[4])}, true
	}
	return st, rows.Err()
}

// top scores every chunk of st for the query terms (repeats count once
// each, as FTS5 sums over a query's phrases) with the column weights w and
// returns the k best: FTS5's bm25() formula, with IDF(q) =
// ln((N - n(q) + 0.5) / (n(q) + 0.5)) replaced by 1e-6 when it is not
// positive; score descending by roundKey, then id ascending.
func (st *bm25Stats) top(terms []string, index map[string]int, w store.FTSWeights, k int) []store.Scored {
	if len(st.chunks) == 0 {
		return nil
	}
	n := float64(st.docs)
	avgdl := float64(st.tokens) / float64(max(st.docs, 1))
	idf := make([]float64, len(st.df))
	for i, df := range st.df {
		d := float64(df)
		if n-d+0.5 <= d+0.5 {
			idf[i] = 1e-6
		} else {
			idf[i] = math.Log((n - d + 0.5) / (d + 0.5))
		}
	}
	type ranked struct {
		store.Scored
		key roundedScore
	}
	out := make([]ranked, 0, len(st.order))
	for _, id := range st.order {
		c := st.chunks[id]
		norm := bm25K1 * (1 - bm25B + bm25B*float64(c.len)/avgdl)
		score := 0.0
		for _, t := range terms {
			i := index[t]
			if !c.has[i] {
				continue
			}
			// as fts5_aux.c: the column's weight added once per
			// occurrence, in column order; then IDF times the fraction
			f := 0.0
			for col, wc := range [5]float64{w.Name, w.Owner, w.Path, w.Doc, w.Body} {
				for range c.freq[i][col] {
					f += wc
				}
			}
			score += idf[i] * ((f * (bm25K1 + 1)) / (f + norm))
		}
		out = append(out, ranked{store.Scored{ID: id, Score: score}, roundKey(score)})
	}
	slices.SortFunc(out, func(a, b ranked) int {
		if c := b.key.cmp(a.key); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	res := make([]store.Scored, min(k, len(out)))
	for i := range res {
		res[i] = out[i].Scored
	}
	return res
}

// roundedScore is a score as PostgreSQL's round(v::numeric, 9) gives it:
// v written with 15 significant digits (float8_numeric's "%.15g"), then
// rounded half away from zero at the 9th decimal. units is that value in
// units of 1e-9 when it fits (|v| < 1e9); big holds it otherwise.
type roundedScore struct {
	units int64
	big   *big.Rat
}

// roundKey returns v's roundedScore.
func roundKey(v float64) roundedScore {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return roundedScore{big: new(big.Rat)} // not produced by the formula
	}
	neg := v < 0
	s := strconv.FormatFloat(math.Abs(v), 'e', 14, 64) // d.dddddddddddddde±XX
	mant, exp, _ := strings.Cut(s, "e")
	m, _ := strconv.ParseInt(strings.Replace(mant, ".", "", 1), 10, 64) // 15 digits
	e, _ := strconv.Atoi(exp)
	// v = m * 10^(e-14); in units of 1e-9: m * 10^(e-5)
	var units int64
	switch sh := e - 5; {
	case m == 0:
	case sh >= 0:
		if sh > 3 { // 1e9 and more: m * 10^sh may not fit
			r, _ := new(big.Rat).SetString(mant + "e" + exp)
			if neg {
				r.Neg(r)
			}
			return roundedScore{big: r}
		}
		units = m * pow10[sh]
	case sh > -16:
		p := pow10[-sh]
		units = (m + p/2) / p // half away from zero (m is positive)
	}
	if neg {
		units = -units
	}
	return roundedScore{units: units}
}

// pow10[i] is 10^i.
var pow10 = func() (p [16]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// cmp compares two rounded scores: -1, 0 or 1 as a is less than, equal to
// or greater than b.
func (a roundedScore) cmp(b roundedScore) int {
	if a.big == nil && b.big == nil {
		return cmp.Compare(a.units, b.units)
	}
	return a.rat().Cmp(b.rat())
}

func (a roundedScore) rat() *big.Rat {
	if a.big != nil {
		return a.big
	}
	return new(big.Rat).SetFrac64(a.units, 1e9)
}

// nameTable is how PostgreSQL looks up and adds code_names rows
// (store.NameIDs): ids come from the identity column.
type nameTable struct{}

// Key returns name made storable (pgText), as PostgreSQL stores it.
func (nameTable) Key(name string) string { return pgText(name) }

// Lookup queries the (id, name) rows of names.
func (nameTable) Lookup(ctx context.Context, tx *sql.Tx, part []string) (*sql.Rows, error) {
	return tx.QueryContext(ctx, `SELECT id, name FROM code_names WHERE name = ANY(?::text[])`, part)
}

// Add inserts the names of missing, in order; their ids are looked up
// after.
func (nameTable) Add(ctx context.Context, tx *sql.Tx, missing []string, _ map[string]int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO code_names(name) SELECT n FROM unnest(?::text[]) AS u(n) ORDER BY n
				ON CONFLICT (name) DO NOTHING`, missing); err != nil {
		return fmt.Errorf("add names: %w", err)
	}
	return nil
}
