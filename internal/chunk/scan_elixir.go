package chunk

import (
	"cmp"
	"slices"
	"strings"
)

var (
	exImportRe = lazyRegexp(`^(?:alias|import|use|require)\s+([A-Z][\w.]*)`)
	exNameRe   = lazyRegexp(`^\s+([A-Z][\w.]*|[A-Za-z_][\w]*[!?]?)`)
	exForRe    = lazyRegexp(`^\s*,\s*for:\s*([A-Z][\w.]*)`)
	exDefs     = map[string]string{
		"defmodule": KindClass, "defprotocol": KindClass, "defimpl": KindClass,
		"def": KindFunction, "defp": KindFunction, "defmacro": KindFunction, "defmacrop": KindFunction,
		"defguard": KindFunction, "defguardp": KindFunction, "defdelegate": KindFunction, "defn": KindFunction, "defnp": KindFunction,
	}
	exStop = set("def", "defp", "defmacro", "defmacrop", "defmodule", "defguard", "defguardp", "defdelegate",
		"defimpl", "defprotocol", "defstruct", "defexception", "if", "unless", "case", "cond", "with", "for", "fn", "do", "end",
		"quote", "unquote", "receive", "try", "import", "alias", "use", "require", "when", "and", "or", "not", "in")
	exStdMods = set("Kernel", "Enum", "Map", "String", "List", "Keyword", "Logger", "Application", "GenServer",
		"Supervisor", "Agent", "Task", "Process", "IO", "File", "Path", "System", "Code", "Macro", "Module", "Access",
		"Inspect", "Protocol", "Stream", "Regex", "URI", "Base", "Integer", "Float", "Tuple", "Atom", "MapSet", "Range",
		"Date", "DateTime", "NaiveDateTime", "Time", "Calendar", "Exception", "Record", "Registry", "ExUnit", "Bitwise",
		"Port", "Node", "Function", "DynamicSupervisor", "Config", "Mix", "EEx", "Version", "OptionParser", "StringIO")
)

func isElixirStd(s string) bool { return exStdMods[strings.SplitN(s, ".", 2)[0]] }

// exFrame is one open do/fn block of an Elixir file.
type exFrame struct {
	d *exPending
}

type exPending struct {
	kind, name, params string
	start, nm          int
}

// scanElixir finds defmodule/defprotocol/defimpl (classes) and
// def/defp/defmacro/defguard/defdelegate (functions; methods of their
// module) with do ... end blocks matched by keyword nesting (do and fn open,
// end closes). A "do:" one-liner ends with its line and the more-indented
// lines after it. A module is named in full ("Phoenix.Router"), so its
// functions read "Phoenix.Router.call(conn, opts)".
func scanElixir(s *scan) {
	s.docPrefixes = []string{"@doc", "@spec", "@impl", "@deprecated", "@decorate", `"""`, "'''"}
	code := s.code
	var stack []exFrame
	var pending *exPending
	for i := 0; i < len(code); {
		if !isIdentByte(code[i]) || i > 0 && (isIdentByte(code[i-1]) || code[i-1] == '.' || code[i-1] == ':' || code[i-1] == '@') {
			i++
			continue
		}
		w := identAt(code, i)
		if w == "" {
			for i < len(code) && isIdentByte(code[i]) {
				i++
			}
			continue
		}
		j := i + len(w)
		switch {
		case w == "do" && j < len(code) && code[j] == ':':
			if pending != nil {
				s.add(pending.kind, pending.name, pending.start, exOneLinerEnd(s, pending.start, j), pending.nm, pending.params, "")
				pending = nil
			}
		case w == "do":
			stack = append(stack, exFrame{d: pending})
			pending = nil
		case w == "fn":
			stack = append(stack, exFrame{})
		case w == "end":
			if n := len(stack); n > 0 {
				f := stack[n-1]
				stack = stack[:n-1]
				if f.d != nil {
					d := s.add(f.d.kind, f.d.name, f.d.start, j, f.d.nm, f.d.params, "")
					if d != nil && f.d.kind == KindClass && d.doc == "" {
						d.doc = exModuleDoc(s, f.d.start, j)
					}
				}
			}
		case exDefs[w] != "" && strings.TrimSpace(string(code[s.idx.Start(s.idx.Line(i)):i])) == "":
			if pending != nil { // a body-less head (def foo(a, b \\ 1)) or defdelegate
				s.add(pending.kind, pending.name, pending.start, lineEnd(code, pending.nm), pending.nm, pending.params, "")
			}
			pending = nil
			m := exNameRe().FindSubmatchIndex(code[j:])
			if m == nil {
				break
			}
			p := &exPending{kind: exDefs[w], name: string(code[j+m[2] : j+m[3]]), start: i, nm: j + m[2]}
			k := j + m[1]
			if w == "defimpl" {
				if f := exForRe().FindSubmatch(code[k:]); f != nil {
					p.name += "." + string(f[1])
				}
			}
			if k < len(code) && code[k] == '(' {
				e := s.matchClose(k)
				p.params = s.codeText(k, e)
				k = e
			}
			pending = p
			j = k
		}
		i = j
	}
	exMergeClauses(s)
	s.lineStarts(func(at int, w string) {
		if w == "alias" || w == "import" || w == "use" || w == "require" {
			if m := exImportRe().FindSubmatchIndex(code[at:]); m != nil {
				s.imp(string(code[at+m[2]:at+m[3]]), at+m[2])
			}
		}
	})
	from := len(s.rels)
	s.calls(0, len(code), exStop)
	s.rels = append(s.rels[:from], exModuleCalls(s, s.rels[from:])...)
}

// exTypeAttrs are the module attributes whose value is a type, not code:
// "@spec f(integer(), any()) :: :ok" calls nothing.
var exTypeAttrs = []string{"@spec ", "@type ", "@typep ", "@opaque ", "@callback ", "@macrocallback "}

// exModuleCalls rewrites the calls scan.calls found in an Elixir file, in
// place, and returns those kept. A call on a module is a function of that
// module, not a call on a value of unknown type (a guess): "Multipart.add_field(mp, ...)",
// "Tesla.Multipart.add_field(...)" (stored by the last segment of the
// module, as written before the name) and an Erlang module's
// ":rand.uniform()" are stored as "Module.name" with no receiver. Calls
// inside a type attribute (exTypeAttrs, with the more indented lines
// after it) are dropped: integer() there is a type.
func exModuleCalls(s *scan, rels []rawRel) []rawRel {
	var typeSpans [][2]int // byte spans of type attributes
	s.lineStarts(func(at int, _ string) {
		if hasAnyPrefix(string(s.src[at:min(len(s.src), at+16)]), exTypeAttrs) {
			typeSpans = append(typeSpans, [2]int{at, exOneLinerEnd(s, at, at)})
		}
	})
	out := rels[:0]
	next := 0 // typeSpans and rels are both in file order
	for _, r := range rels {
		at := int(r.start)
		for next < len(typeSpans) && typeSpans[next][1] <= at {
			next++
		}
		if next < len(typeSpans) && at >= typeSpans[next][0] {
			continue
		}
		if r.kind == RelCalls && r.recv != "" {
			// the receiver ends at the '.' before the name
			rs := at - 1 - len(r.recv)
			erlang := rs > 0 && string(s.code[rs:at-1]) == r.recv && s.code[rs-1] == ':'
			if erlang || r.recv[0] >= 'A' && r.recv[0] <= 'Z' {
				r.text, r.recv, r.recvIsName = r.recv+"."+r.text, "", false
			}
		}
		out = append(out, r)
	}
	return out
}

// exMergeClauses makes the clauses of one function one definition: a
// def/defp written several times in a row under one name (pattern-matched
// heads "def retry(env, next, %{max_retries: 0})", "def retry(env, next,
// context)", a body-less head with defaults before them, or the arities of
// one name side by side) spans from its first clause to its last, named by
// the first. Elixir requires the clauses of a name and arity to be grouped,
// so no other definition lies between them. Each clause alone was a chunk
// of its own and a definition of the name: a call of it was ambiguous
// between its own clauses, and the clauses took several places of one
// answer. Haskell's equations are merged the same way (scanHaskell).
func exMergeClauses(s *scan) {
	order := slices.Clone(s.defs)
	slices.SortStableFunc(order, func(a, b *def) int { return cmp.Compare(a.start, b.start) })
	drop := map[*def]bool{}
	var prev *def // the first clause of the run being merged
	for _, d := range order {
		if prev != nil && d.kind == KindFunction && prev.kind == KindFunction && d.name == prev.name && d.start >= prev.end {
			prev.end, prev.endLine = max(prev.end, d.end), max(prev.endLine, d.endLine)
			drop[d] = true
			continue
		}
		prev = d
	}
	if len(drop) > 0 {
		s.defs = slices.DeleteFunc(s.defs, func(d *def) bool { return drop[d] })
	}
}

// exOneLinerEnd returns the end of a "def f(x), do: ..." definition that
// starts at start and whose "do:" is at doAt: the line of "do:" and the
// following lines indented deeper than the definition.
func exOneLinerEnd(s *scan, start, doAt int) int {
	indent := indentOf(s.line(s.idx.Line(start)))
	l := s.idx.Line(doAt)
	for l+1 <= s.idx.Count() {
		next := s.line(l + 1)
		if strings.TrimSpace(next) == "" || indentOf(next) <= indent {
			break
		}
		l++
	}
	return s.idx.End(l, s.code)
}

func indentOf(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// exNextDef returns the offset of the first definition keyword (def,
// defp, defmodule, defmacro, ...) that begins a line of code in [i,b), or
// -1.
func exNextDef(code []byte, i, b int) int {
	for i < b {
		k := indexFrom(code[:b], i, "def")
		if k < 0 {
			return -1
		}
		ls := k
		for ls > 0 && (code[ls-1] == ' ' || code[ls-1] == '\t') {
			ls--
		}
		if (ls == 0 || code[ls-1] == '\n') && exDefs[identAt(code, k)] != "" {
			return k
		}
		i = k + 3
	}
	return -1
}

// exModuleDoc returns the text of the module's own @moduledoc string (not
// one of a nested module, already in s.defs) in the module spanning [a,b),
// cut to maxChunkChars; "" if none.
func exModuleDoc(s *scan, a, b int) string {
	// the module's own @moduledoc comes before its first definition (a
	// function's or a nested module's): reading no further keeps a file of
	// nested modules linear (each read to its end was quadratic: 50,000
	// nested modules, 950 KB, took a minute)
	end := b
	if i := exNextDef(s.code, a+len("defmodule"), b); i >= 0 {
		end = i
	}
	k := indexFrom(s.code[:end], a, "@moduledoc")
	if k < 0 {
		return ""
	}
	q := k + len("@moduledoc")
	for q < b && (s.src[q] == ' ' || s.src[q] == '~' || s.src[q] >= 'a' && s.src[q] <= 'z' || s.src[q] >= 'A' && s.src[q] <= 'Z') {
		q++
	}
	delim := `"`
	if hasAt(s.src, q, `"""`) {
		delim = `"""`
	} else if q >= b || s.src[q] != '"' {
		return ""
	}
	e := indexFrom(s.src[:b], q+len(delim), delim)
	if e < 0 {
		return ""
	}
	doc := strings.TrimSpace(string(s.src[q+len(delim) : e]))
	if len(doc) > maxChunkChars {
		doc = doc[:maxChunkChars]
	}
	return doc
}
