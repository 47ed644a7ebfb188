package search

import (
	"context"
	"regexp"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
)

// pinnable reports whether exactPin would pin r for the symbol name: a
// definition (not a text chunk) outside tests, examples, docs and
// declarations whose bare name is name, or name with a '$' sigil.
func pinnable(r Result, name string) bool {
	bn := r.sym.Name
	return r.Type != chunk.KindText && (bn == name || sigilName(bn) == name) && !isTestPath(r.Path) && auxKind(r.Path) == ""
}

// definesSymbol reports whether any row is a definition exactPin pins for
// name.
func definesSymbol(rows map[int64]*warmRow, name string) bool {
	for _, row := range rows {
		if pinnable(fromRow(row.ChunkRow), name) {
			return true
		}
	}
	return false
}

// symbolSites is the exact-name pin's fallback for a symbol query that no
// parsed definition answers: it returns, for chunks that declare the name
// in their text or re-export it, the pin to add (declarations pin, re-exports
// pin/2), and adds those not yet in rows to rows. Two kinds of code reach
// it. A file the parser could not split (a macro-heavy C++ header parsed
// with too many errors, a language indexed as text) still spells the
// declaration, "class basic_format_args {" or "#define FMT_API". And a name
// defined outside the indexed tree (another crate, package or module)
// enters the project through a re-export, "pub use axum_core::extract::{
// FromRequest, ... }" or "export { Foo } from './foo'": that is where a
// reader of this project finds it. A name that only tests spell pins the
// tests that spell it (pin/2). The chunks are those the keyword
// route ranked (rows) plus the hp.SymbolSiteCandidates best chunks for the
// name's whole-identifier term, since a long module chunk that re-exports
// many names ranks below the short functions that call the name.
func (s *Searcher) symbolSites(ctx context.Context, name string, hp HybridParams, rows map[int64]*warmRow) (map[int64]float64, error) {
	terms := analyze.Terms(nil, name)
	if len(terms) == 0 {
		return nil, nil
	}
	// the first term is the whole identifier (basicformatargs), or the
	// stemmed word of a one-word name
	kw, err := s.keywordSearch(ctx, terms[:1], hp.FTS, hp.SymbolSiteCandidates)
	if err != nil {
		return nil, err
	}
	var missing []int64
	for _, x := range kw {
		if _, ok := rows[x.ID]; !ok {
			missing = append(missing, x.ID)
		}
	}
	if len(missing) > 0 {
		more, err := s.chunksByID(ctx, missing)
		if err != nil {
			return nil, err
		}
		for id, row := range more {
			rows[id] = row
		}
	}
	decl, reexport := siteRegexps(name)
	pins := map[int64]float64{}
	inCode := false
	var inTests []int64
	for id, row := range rows {
		if !strings.Contains(row.Content, name) {
			continue
		}
		if isTestPath(row.Path) {
			inTests = append(inTests, id)
			continue
		}
		if auxKind(row.Path) != "" || isDocFile(row.Path) {
			continue
		}
		inCode = true
		switch {
		case declares(row.Content, decl):
			pins[id] = hp.ExactPin
		case reexports(row.Content, name, reexport):
			pins[id] = hp.ExactPin / 2
		}
	}
	// an identifier that only tests spell (a test's local variable or
	// fixture, inputString) is found where it is, not passed over for
	// code that merely shares its parts
	if !inCode && len(pins) == 0 {
		for _, id := range inTests {
			pins[id] = hp.ExactPin / 2
		}
	}
	return pins, nil
}

// siteRegexps returns the patterns of a textual declaration of name (a
// declaration keyword of any indexed language, then at most a few
// upper-case macro words such as FMT_API, then the name as a whole word)
// and of the start of an export statement (Rust pub use, a JS/TS export
// list or export-from, Python from-import).
func siteRegexps(name string) (decl, reexport *regexp.Regexp) {
	q := regexp.QuoteMeta(name)
	decl = regexp.MustCompile(`(?m)(?:^|[^\w$#])(?:class|struct|union|enum|interface|trait|type|typedef|def|fn|func|function|module|object|protocol|record|namespace|macro_rules!|#\s*define)\s+(?:[A-Z_][A-Z0-9_]*\s+){0,3}` + q + `(?:[^\w$]|$)`)
	reexport = regexp.MustCompile(`(?m)^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+use\b|export[ \t]+(?:type[ \t]+)?[{*]|from[ \t]+\S+[ \t]+import\b)`)
	return decl, reexport
}

// declares reports whether content holds a match of decl (see siteRegexps)
// that defines the name: not a forward declaration ("class
// basic_format_args;", whose line goes on with ';') nor a C++ friend
// declaration, which names a class defined elsewhere.
func declares(content string, decl *regexp.Regexp) bool {
	for _, loc := range decl.FindAllStringIndex(content, -1) {
		ls := strings.LastIndexByte(content[:loc[0]], '\n') + 1
		le := strings.IndexByte(content[loc[1]-1:], '\n')
		if le < 0 {
			le = len(content)
		} else {
			le += loc[1] - 1
		}
		if strings.Contains(content[ls:loc[0]+1], "friend") {
			continue
		}
		rest := strings.TrimSpace(content[loc[1]-1 : le])
		// the match ends one byte after the name; skip template arguments
		if strings.HasPrefix(rest, "<") {
			if i := strings.LastIndexByte(rest, '>'); i >= 0 {
				rest = strings.TrimSpace(rest[i+1:])
			}
		}
		if strings.HasPrefix(rest, ";") {
			continue
		}
		return true
	}
	return false
}

// reexports reports whether name is a whole word inside an export statement
// of content: from a match of the reexport pattern to the statement's end
// (';', a blank line, or 2,000 bytes), so that the names of a multi-line
// "pub use a::{\n  B,\n  C,\n};" count.
func reexports(content, name string, reexport *regexp.Regexp) bool {
	for _, loc := range reexport.FindAllStringIndex(content, -1) {
		stmt := content[loc[0]:]
		end := len(stmt)
		if i := strings.IndexByte(stmt, ';'); i >= 0 {
			end = i
		}
		if i := strings.Index(stmt, "\n\n"); i >= 0 && i < end {
			end = i
		}
		end = min(end, 2000)
		if hasWord(stmt[:end], name) {
			return true
		}
	}
	return false
}

// hasWord reports whether w occurs in s with no identifier character
// ([A-Za-z0-9_$]) on either side.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !isIdentByte(s[a-1])) && (b == len(s) || !isIdentByte(s[b])) {
			return true
		}
		i = a + 1
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
