package chunk

import (
	"strings"
)

// annot is a name declared with a class (the query's @annot.name and
// @annot.type): in Python a parameter ("entry: StatsEntry", "entry:
// StatsEntry = None") or a local ("entry: StatsEntry = ..."); in Java and
// C# a field, a local, a parameter or a loop variable ("Executor
// executor").
type annot struct {
	name, class string
	at          uint // byte offset of the name
}

// pyTypes returns the typed callee of every Python call on a name its
// function annotates with a class: byte offset of the method name ->
// "T.m". An annotation holds in the innermost function (def) around it,
// a nested one included, and a call takes the annotations of the
// innermost function around it: a nested function keeps its own. The
// annotations come from collect's one query pass (ps.annots); only a
// class name is taken (pyAnnotatedClassText).
func (ps *parsed) pyTypes() map[uint]string {
	if len(ps.annots) == 0 {
		return nil
	}
	names := map[string]bool{}
	for _, a := range ps.annots {
		names[a.name] = true
	}
	// every def of a function, nested ones too (they are dropped as
	// units, not as scopes)
	var fns []*def
	for _, d := range ps.defs {
		if d.kind == KindFunction {
			fns = append(fns, d)
		}
	}
	innermost := func(off uint) *def {
		var in *def
		for _, d := range fns {
			if d.start <= off && off < d.end && (in == nil || d.start >= in.start) {
				in = d
			}
		}
		return in
	}
	out := map[uint]string{}
	for _, r := range ps.rels {
		if r.kind != RelCalls || !r.recvIsName || !names[r.recv] {
			continue
		}
		fn := innermost(r.start)
		if fn == nil {
			continue
		}
		for _, a := range ps.annots {
			if a.name == r.recv && innermost(a.at) == fn {
				out[r.start] = a.class + "." + r.text
				break
			}
		}
	}
	return out
}

// pyAnnotatedClassText returns the class an annotation names: StatsEntry,
// "StatsEntry" (a forward reference), stats.StatsEntry (its last
// segment), Optional[StatsEntry] and StatsEntry | None (the class); "" for
// anything else (a builtin such as str, a generic such as list[T], a
// union of classes).
func pyAnnotatedClassText(s string) string {
	s = strings.Trim(strings.TrimSpace(s), `"'`)
	if inner, ok := strings.CutPrefix(s, "Optional["); ok && strings.HasSuffix(inner, "]") {
		s = strings.TrimSuffix(inner, "]")
	}
	if a, b, ok := strings.Cut(s, "|"); ok {
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		switch {
		case b == "None":
			s = a
		case a == "None":
			s = b
		default:
			return ""
		}
	}
	s = s[strings.LastIndexByte(s, '.')+1:]
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return ""
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return s
}
