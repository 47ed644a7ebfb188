package chunk

import (
	"strings"
)

var (
	luaNamedFnRe = lazyRegexp(`^function\s+([A-Za-z_][\w]*(?:\s*[.:]\s*[A-Za-z_]\w*)*)\s*\(`)
	luaAssignRe  = lazyRegexp(`(?:^|[\s,{;])(?:local\s+)?([A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_]\w*)*|\[\s*["'][^"'\n]*["']\s*\])\s*=\s*$`)
	// luaRequireRe reads the local a require is bound to: the text of its
	// line before "require" ("local vers = ", "cfg = ").
	luaRequireRe = lazyRegexp(`^\s*(?:local\s+)?([A-Za-z_]\w*)\s*=\s*$`)
	// luaAliasRe reads a file-level local bound to other names, one each:
	// "local concat = table.concat", "local assert_arg,usplit =
	// utils.assert_arg,utils.split", "local type = type".
	luaAliasRe = lazyRegexp(`(?m)^local[ \t]+([A-Za-z_]\w*(?:[ \t]*,[ \t]*[A-Za-z_]\w*)*)[ \t]*=[ \t]*([A-Za-z_][\w.]*(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*)*)[ \t]*(?:;[ \t]*)?$`)
	luaStop    = set("function", "if", "while", "until", "return", "and", "or", "not", "local", "elseif",
		"then", "do", "end", "in", "for", "repeat", "else", "require")
)

// luaFrame is one open block (function, do, if, repeat) of a Lua file.
type luaFrame struct {
	closer     string // "end" or "until"
	def        bool
	name       string
	owner      string
	start, nm  int
	params     string
	paramsFrom int
}

// scanLua finds Lua functions: "function a.b:c(...)", "local function f",
// and "x.y = function(...)" / "local f = function" / table fields
// "name = function". Blocks are matched by keyword nesting (function, if,
// do and repeat open; end and until close). "function M.f" is the method
// "M.f(...)" (owner M); anonymous callbacks stay in their enclosing chunk.
func scanLua(s *scan) {
	code := s.code
	var stack []luaFrame
	for i := 0; i < len(code); {
		if !isIdentByte(code[i]) || i > 0 && (isIdentByte(code[i-1]) || code[i-1] == '.' || code[i-1] == ':') {
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
		switch w {
		case "if", "do":
			stack = append(stack, luaFrame{closer: "end"})
		case "repeat":
			stack = append(stack, luaFrame{closer: "until"})
		case "end", "until":
			if n := len(stack); n > 0 {
				f := stack[n-1]
				stack = stack[:n-1]
				if f.def {
					s.add(KindFunction, f.name, f.start, i+len(w), f.nm, f.params, f.owner)
				}
			}
		case "function":
			f := luaFrame{closer: "end"}
			ls := s.idx.Start(s.idx.Line(i))
			if m := luaNamedFnRe().FindSubmatchIndex(code[i:]); m != nil {
				full := strings.Join(strings.Fields(string(code[i+m[2]:i+m[3]])), "")
				f.def, f.nm = true, i+m[2]
				f.start = i
				if p := strings.TrimSpace(string(code[ls:i])); p == "local" {
					f.start = skipSpace(code, ls)
				}
				if k := strings.LastIndexAny(full, ".:"); k >= 0 {
					f.owner, f.name = full[:k], full[k+1:]
				} else {
					f.name = full
				}
				open := i + m[1] - 1
				e := s.matchClose(open)
				f.params = s.codeText(open, e)
			} else if m := luaAssignRe().FindSubmatchIndex(code[ls:i]); m != nil {
				full := strings.Join(strings.Fields(string(code[ls+m[2]:ls+m[3]])), "")
				if strings.HasPrefix(full, "[") {
					full = strings.Trim(string(s.src[ls+m[2]:ls+m[3]]), "[]\"' \t")
				}
				f.def, f.nm, f.start = true, ls+m[2], skipSpace(code, ls)
				if k := strings.LastIndexAny(full, ".:"); k >= 0 {
					f.owner, f.name = full[:k], full[k+1:]
				} else {
					f.name = full
				}
				if j := skipSpace(code, i+len(w)); j < len(code) && code[j] == '(' {
					f.params = s.codeText(j, s.matchClose(j))
				}
			}
			stack = append(stack, f)
		}
		i += len(w)
	}
	alias := map[string]string{} // local name -> last segment of the module it requires
	for i := 0; ; {
		k := indexFrom(code, i, "require")
		if k < 0 {
			break
		}
		i = k + len("require")
		if k > 0 && (isIdentByte(code[k-1]) || code[k-1] == '.') {
			continue
		}
		q := skipSpace(code, i)
		if q < len(code) && code[q] == '(' {
			q = skipSpace(code, q+1)
		}
		if q < len(code) && (code[q] == '"' || code[q] == '\'') {
			if e := indexFrom(s.src, q+1, string(s.src[q])); e > q && e-q < 200 {
				mod := string(s.src[q+1 : e])
				s.imp(mod, k)
				ls := s.idx.Start(s.idx.Line(k))
				if m := luaRequireRe().FindSubmatch(code[ls:k]); m != nil {
					alias[string(m[1])] = mod[strings.LastIndexAny(mod, "./")+1:]
				}
			}
		}
	}
	from := len(s.rels)
	s.calls(0, len(code), luaStop)
	luaModuleCalls(s, s.rels[from:], alias, luaAliases(code))
}

// luaAliases returns the file-level locals bound to a field of another
// name (luaAliasRe, unindented lines only): local name -> the field as
// written ("concat" -> "table.concat", "usplit" -> "utils.split"). A
// local bound to a bare name ("local type = type") keeps that global's
// name, and is no alias here.
func luaAliases(code []byte) map[string]string {
	out := map[string]string{}
	for _, m := range luaAliasRe().FindAllSubmatch(code, -1) {
		names, vals := strings.Split(string(m[1]), ","), strings.Split(string(m[2]), ",")
		if len(names) != len(vals) {
			continue
		}
		for i := range names {
			n, v := strings.TrimSpace(names[i]), strings.TrimSpace(vals[i])
			if strings.Count(v, ".") == 1 && !strings.HasSuffix(v, ".") {
				out[n] = v
			}
		}
	}
	return out
}

// luaStdTables are the tables of Lua's standard libraries (the reference
// manual's §6): table.insert(t, x) is a library call, not one on a value.
var luaStdTables = set("string", "table", "math", "io", "os", "coroutine", "debug", "utf8", "package", "bit32")

// luaModuleCalls names the calls made through a module table by the
// module (a bare call of a file-level alias, locals, first becomes the
// call through a table it stands for): "vers.parse_version(v)" after "local vers =
// require('luarocks.core.vers')" (the alias stands for the required
// module's last segment, whatever the local is called), and "M.helper(x)"
// or "M:helper(x)" in the file whose definitions M owns, and calls of the
// standard libraries' tables (luaStdTables) are stored as
// "module.name" with no receiver: a call of a module's function, which the
// resolver looks up in that module (relate.resolveQualified), not a call
// on a value whose type is unknown (a guess).
func luaModuleCalls(s *scan, rels []rawRel, alias, locals map[string]string) {
	owners := map[string]bool{}
	for _, d := range s.defs {
		if d.owner != "" && !strings.ContainsAny(d.owner, ".:") {
			owners[d.owner] = true
		}
	}
	for i := range rels {
		r := &rels[i]
		if r.kind == RelCalls && r.recv == "" && !strings.ContainsAny(r.text, ".:") {
			// a bare call of a file-level alias: the field it stands for,
			// read as a call written through its table
			if f, ok := locals[r.text]; ok {
				r.recv, r.text = f[:strings.IndexByte(f, '.')], f[strings.IndexByte(f, '.')+1:]
				r.recvIsName = true
			}
		}
		if r.kind != RelCalls || r.recv == "" || r.recv == "self" {
			continue
		}
		mod := alias[r.recv]
		if mod == "" && (owners[r.recv] || luaStdTables[r.recv]) {
			mod = r.recv
		}
		if mod != "" {
			r.text, r.recv, r.recvIsName = mod+"."+r.text, "", false
		}
	}
}
