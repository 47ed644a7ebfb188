package chunk

import (
	"slices"
	"strings"
)

var (
	hsImportRe = lazyRegexp(`^import\s+(?:safe\s+)?(?:qualified\s+)?(?:"[^"]*"\s+)?([A-Z][\w.']*)`)
	hsTypeRe   = lazyRegexp(`^(data|newtype|type|class)\s+(?:(?:family|instance)\s+)?(?:[^=]*=>\s*)?\(?\s*([A-Z][\w']*|\([^)\s]+\))`)
	hsInstRe   = lazyRegexp(`^instance\s+(?:[^=]*=>\s*)?(.*?)\s*(?:\bwhere\b|$)`)
	hsFnRe     = lazyRegexp(`^([a-z_][\w']*|\([^)\sA-Za-z0-9]+\))`)
	hsIdentRe  = lazyRegexp(`\b[a-z_][\w']*`)
	hsSkip     = set("module", "import", "infixl", "infixr", "infix", "deriving", "foreign", "pattern", "default", "where")
)

func isHaskellStd(s string) bool {
	return s == "Prelude" || strings.HasPrefix(s, "Data.") || strings.HasPrefix(s, "Control.") ||
		strings.HasPrefix(s, "System.") || strings.HasPrefix(s, "GHC.") || strings.HasPrefix(s, "Text.Read") ||
		strings.HasPrefix(s, "Foreign") || strings.HasPrefix(s, "Numeric") || strings.HasPrefix(s, "Debug.")
}

// hsDecl is one top-level declaration: its first and last lines.
type hsDecl struct {
	kind, name string
	first, end int // lines
	nameAt     int // byte
}

// scanHaskell finds top-level declarations by layout: a declaration starts
// at a line whose masked text begins in column 0 and runs to the last
// non-blank line before the next one. A type signature and the equations
// of the same name form one function chunk named after it; data, newtype,
// type and class declarations and instances are class chunks. Calls are the
// identifiers of a body that name a function of the same file.
func scanHaskell(s *scan) {
	n := s.idx.Count()
	var decls []hsDecl
	imps := hsImports{names: map[string]string{}, quals: map[string]string{}}
	for l := 1; l <= n; l++ {
		t := s.line(l)
		if t == "" || t[0] == ' ' || t[0] == '\t' || strings.TrimSpace(t) == "" {
			continue
		}
		if len(decls) > 0 && decls[len(decls)-1].kind == "skip" && strings.HasPrefix(strings.TrimSpace(t), ")") {
			continue // the closing parenthesis of an export list
		}
		d := hsDecl{first: l, nameAt: s.idx.Start(l)}
		word := identAt([]byte(t), 0)
		switch {
		case word == "module":
			d.kind, d.name = "module", strings.TrimSpace(strings.TrimPrefix(t, "module"))
			if k := strings.IndexAny(d.name, " (\t"); k >= 0 {
				d.name = d.name[:k]
			}
			d.nameAt = s.idx.Start(l) + len("module ")
		case hsSkip[word] || strings.HasPrefix(t, "{-#") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "$("):
			d.kind = "skip"
			if m := hsImportRe().FindStringSubmatch(t); m != nil {
				s.imp(m[1], s.idx.Start(l))
				imps.add(s, l, n, m[1])
			}
		case word == "instance":
			d.kind, d.name = KindClass, "instance"
			if m := hsInstRe().FindStringSubmatch(hsHead(s, l, n)); m != nil && m[1] != "" {
				d.name = collapse(m[1])
			}
		case word == "data" || word == "newtype" || word == "type" || word == "class":
			t := hsHead(s, l, n)
			m := hsTypeRe().FindStringSubmatchIndex(t)
			if m == nil {
				d.kind = "skip"
				break
			}
			d.kind, d.name, d.nameAt = KindClass, t[m[4]:m[5]], s.idx.Start(l)+m[4]
		default:
			m := hsFnRe().FindStringSubmatchIndex(t)
			if m == nil {
				d.kind = "skip"
				break
			}
			d.kind, d.name, d.nameAt = KindFunction, t[m[2]:m[3]], s.idx.Start(l)+m[2]
			if op, at := hsInfixDef(t, m[3]); op != "" {
				d.name, d.nameAt = op, s.idx.Start(l)+at // x <|> y = ...: the operator's equation
			}
			if prev := len(decls) - 1; prev >= 0 && decls[prev].kind == KindFunction &&
				(decls[prev].name == d.name || hsInfixEquation(t, decls[prev].name)) {
				continue // another equation (or the definition after its signature)
			}
		}
		decls = append(decls, d)
	}
	for i := range decls {
		last := n
		if i+1 < len(decls) {
			last = decls[i+1].first - 1
		}
		for last > decls[i].first && strings.TrimSpace(s.line(last)) == "" {
			last--
		}
		decls[i].end = last
	}
	for _, d := range decls {
		if d.kind == "skip" && strings.HasPrefix(s.line(d.first), "import") {
			s.skips = append(s.skips, [2]uint{uint(s.idx.Start(d.first)), uint(s.idx.End(d.end, s.code))})
		}
		if d.kind == "module" {
			hsModule(s, d)
			continue
		}
		if d.kind == "skip" {
			continue
		}
		a, b := s.idx.Start(d.first), s.idx.End(d.end, s.code)
		def := s.add(d.kind, d.name, a, b, d.nameAt, "", "")
		if def == nil {
			continue
		}
		if d.kind == KindFunction {
			hsCalls(s, d.name, a, b, imps)
			continue
		}
		if w := identAt(s.code, a); w == "instance" || w == "class" {
			hsMethods(s, d, imps)
		}
	}
}

// hsHead returns the head of the declaration at line l (of n): the line
// itself, or with the indented lines that continue its context when the
// context's "=>" comes on a later line ("class (Functor m, Monad m)\n
// => PandocMonad m where" is the class PandocMonad, not Functor), up to
// the line of that "=>" and the one after it when "=>" ends a line; a
// "::", "=" or "where" before it ends the search (a method's signature). The
// head starts at the line's first byte, so offsets into it are offsets
// from there.
func hsHead(s *scan, l, n int) string {
	t := s.line(l)
	if strings.Contains(t, "=>") || !strings.Contains(t, "(") || hsBodyStarts(t) {
		return t
	}
	for k := l + 1; k <= n && k <= l+4; k++ {
		nt := s.line(k)
		if nt == "" || nt[0] != ' ' && nt[0] != '\t' {
			break
		}
		trim := strings.TrimSpace(nt)
		before, _, found := strings.Cut(trim, "=>")
		if hsBodyStarts(before) {
			break // a method signature's context, not the declaration's
		}
		if !found {
			continue
		}
		if strings.HasSuffix(trim, "=>") && k < n {
			k++
		}
		return string(s.code[s.idx.Start(l):s.idx.End(k, s.code)])
	}
	return t
}

// hsBodyStarts reports whether a declaration's text holds a "where", a
// "::" or an "=" other than "=>": its head has ended.
func hsBodyStarts(t string) bool {
	if strings.Contains(t, "::") || hsIdentWhere(t) {
		return true
	}
	return strings.Contains(strings.ReplaceAll(t, "=>", ""), "=")
}

// hsIdentWhere reports whether t holds the word "where".
func hsIdentWhere(t string) bool {
	for i := strings.Index(t, "where"); i >= 0; {
		end := i + len("where")
		if (i == 0 || !isIdentByte(t[i-1])) && (end == len(t) || !isIdentByte(t[end])) {
			return true
		}
		j := strings.Index(t[end:], "where")
		if j < 0 {
			return false
		}
		i = end + j
	}
	return false
}

// hsCalls records the identifiers of a body [a,b) as calls (kept only when
// they name a function of the file: localCallsOnly).
func hsCalls(s *scan, self string, a, b int, imps hsImports) {
	for _, m := range hsIdentRe().FindAllIndex(s.code[a:b], -1) {
		at := a + m[0]
		name := string(s.code[at : a+m[1]])
		if name == self {
			continue
		}
		// M.f: a function of the module imported qualified as M
		if at >= 2 && s.code[at-1] == '.' {
			q := at - 1
			for q > 0 && (isIdentByte(s.code[q-1]) || s.code[q-1] == '.' || s.code[q-1] == '\'') {
				q--
			}
			if mod := imps.quals[string(s.code[q:at-1])]; mod != "" {
				s.rels = append(s.rels, rawRel{kind: RelCalls, text: mod + "." + name, start: uint(at), imported: true})
			}
			continue
		}
		if len(s.rels) < 4*maxRelations {
			r := rawRel{kind: RelCalls, text: name, start: uint(at)}
			if mod := imps.names[name]; mod != "" {
				// named in an import list: that module's function
				r.text, r.imported = mod+"."+name, true
			}
			s.rels = append(s.rels, r)
		}
	}
}

// hsImports are the names a Haskell file imports: names[f] for a function
// named in an import list ("import Hakyll.Core.Identifier (toFilePath)":
// toFilePath -> Identifier), quals[A] for a module imported qualified, by
// its alias or its own name ("import qualified Data.Map as M": M -> Map).
// Either way the call is stored as "Segment.f", the module's last segment
// (relate.resolveQualified finds a module's functions by its file's name;
// a module outside the project makes it a library call).
type hsImports struct {
	names map[string]string
	quals map[string]string
}

// hsImportLines bounds the lines of one import list that hsImports.add
// reads.
const hsImportLines = 200

// add reads the import of module mod that starts at line l (of n), with
// the lines of its import list that follow.
func (im hsImports) add(s *scan, l, n int, mod string) {
	// the import list's lines, up to hsImportLines of them (an import
	// left open must not read the rest of the file, once per import)
	var b strings.Builder
	b.WriteString(s.line(l))
	open := strings.Count(s.line(l), "(") - strings.Count(s.line(l), ")")
	for k := l + 1; k <= n && k <= l+hsImportLines && open > 0; k++ {
		t := s.line(k)
		open += strings.Count(t, "(") - strings.Count(t, ")")
		b.WriteString(" ")
		b.WriteString(t)
	}
	text := b.String()
	seg := mod[strings.LastIndexByte(mod, '.')+1:]
	head, list, hasList := strings.Cut(text, "(")
	f := strings.Fields(head)
	if i := slices.Index(f, "as"); i >= 0 && i+1 < len(f) {
		im.quals[f[i+1]] = seg
	}
	im.quals[mod] = seg
	// "qualified" before or after the module (ImportQualifiedPost) is in
	// the head: its names are written qualified; a list after "hiding"
	// names what is not imported
	if !hasList || slices.Contains(f, "qualified") || slices.Contains(f, "hiding") {
		return
	}
	for _, m := range hsIdentRe().FindAllString(list, -1) {
		im.names[m] = seg
	}
}

// hsMethods adds the methods of a class or instance declaration: the
// signatures and equations at the indentation of its first body line,
// grouped by name like top-level functions. An instance's methods are owned
// by its type ("instance FromJSON Foo" gives "Foo.parseJSON()"), a class's
// by the class.
func hsMethods(s *scan, d hsDecl, imps hsImports) {
	owner := d.name
	if identAt(s.code, s.idx.Start(d.first)) == "instance" {
		f := strings.Fields(strings.NewReplacer("(", " ", ")", " ").Replace(d.name))
		for i := 1; i < len(f); i++ { // the first capitalised word after the class name
			if f[i] != "" && f[i][0] >= 'A' && f[i][0] <= 'Z' {
				owner = f[i]
				break
			}
		}
	}
	indent := -1
	type group struct {
		name        string
		first, last int
		nameAt      int
	}
	var gs []group
	for l := d.first + 1; l <= d.end; l++ {
		t := s.line(l)
		if strings.TrimSpace(t) == "" {
			continue
		}
		in := indentOf(t)
		if indent < 0 {
			indent = in
		}
		if in > indent && len(gs) > 0 {
			gs[len(gs)-1].last = l
			continue
		}
		if in != indent {
			continue
		}
		m := hsFnRe().FindStringSubmatchIndex(t[in:])
		if m == nil {
			continue
		}
		name, nameAt := t[in+m[2]:in+m[3]], in+m[2]
		if op, at := hsInfixDef(t[in:], m[3]); op != "" {
			name, nameAt = op, in+at
		}
		if n := len(gs); n > 0 && (gs[n-1].name == name || hsInfixEquation(t[in:], gs[n-1].name)) {
			gs[n-1].last = l
			continue
		}
		gs = append(gs, group{name: name, first: l, last: l, nameAt: s.idx.Start(l) + nameAt})
	}
	for _, g := range gs {
		a, b := s.idx.Start(g.first)+indentOf(s.line(g.first)), s.idx.End(g.last, s.code)
		if s.add(KindFunction, g.name, a, b, g.nameAt, "", owner) != nil {
			hsCalls(s, g.name, a, b, imps)
		}
	}
}

// hsModule adds the module header ("module X (exports) where") as a class
// chunk named after the module; the header comment above it (often set off
// by a blank line, after the LANGUAGE pragmas) is its doc and opens its
// chunk. Functions are not nested in it: they stay top-level functions.
func hsModule(s *scan, d hsDecl) {
	end := d.end
	for l := d.first; l <= d.end; l++ {
		if strings.Contains(" "+s.line(l)+" ", " where ") || strings.HasSuffix(strings.TrimSpace(s.line(l)), "where") {
			end = l
			break
		}
	}
	def := s.add(KindClass, d.name, s.idx.Start(d.first), s.idx.End(end, s.code), d.nameAt, "", "")
	if def == nil || def.doc != "" {
		return
	}
	l := d.first - 1
	for l >= 1 && strings.TrimSpace(s.origLine(l)) == "" {
		l--
	}
	last := l
	var docs []string
	for ; l >= 1 && strings.TrimSpace(s.origLine(l)) != "" || l >= 1 && l < last && strings.TrimSpace(s.line(l)) == ""; l-- {
		if strings.TrimSpace(s.line(l)) != "" {
			break
		}
		docs = append([]string{strings.TrimSpace(s.origLine(l))}, docs...)
	}
	if len(docs) == 0 {
		return
	}
	def.extStart = uint(s.idx.Start(l + 1))
	def.startLine = l + 1
	def.doc = scanDoc(docs)
}

// hsInfixEquation reports an equation of operator op ("(<+>)") written
// infix: "a <+> b = ...".
// hsInfixDef reads an equation written infix, whose first word (ending
// at byte end of line) is the left operand: "x <|> y = ..." defines
// (<|>), "a `union` b = ..." defines union. It returns the defined name,
// "(op)" for an operator, and its byte offset in line; "" when the word
// after the first is no operator ("f x = ...", "x = ...", "f !x = ..."
// with a bang pattern, "xs :: [a]").
func hsInfixDef(line string, end int) (string, int) {
	i := end
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i == end || i >= len(line) {
		return "", 0
	}
	if line[i] == '`' {
		j := strings.IndexByte(line[i+1:], '`')
		if j <= 0 || !hsFnRe().MatchString(line[i+1:i+1+j]) {
			return "", 0
		}
		return line[i+1 : i+1+j], i + 1
	}
	j := i
	for j < len(line) && strings.IndexByte("!#$%&*+./<=>?@\\^|-~:", line[j]) >= 0 {
		j++
	}
	op := line[i:j]
	if op == "" || j < len(line) && line[j] != ' ' || hsReservedOps[op] {
		return "", 0
	}
	return "(" + op + ")", i
}

// hsReservedOps are Haskell's reserved operators: after a first word they
// start a binding, a guard, a signature or a pattern, not an operator's
// equation.
var hsReservedOps = set("=", "|", "::", "->", "<-", "=>", "@", "~", "\\", "..", ":")

func hsInfixEquation(line, op string) bool {
	if len(op) < 3 || op[0] != '(' {
		return false
	}
	eq := strings.Index(line, "=")
	if eq < 0 {
		eq = len(line)
	}
	return strings.Contains(line[:eq], " "+op[1:len(op)-1]+" ")
}
