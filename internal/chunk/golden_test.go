package chunk

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*/*.golden.json from the current output")

// golden is the reviewed expectation for one testdata source file. Chunks
// and relations are one line each so that a diff reads like a review.
type golden struct {
	Language    string   `json:"language"`
	Fallback    bool     `json:"fallback"`
	ParseErrors int      `json:"parse_errors"`
	Chunks      []string `json:"chunks"`
	Relations   []string `json:"relations"`
}

func render(r *FileResult) golden {
	g := golden{Language: r.Language, Fallback: r.Fallback, ParseErrors: r.ParseErrors}
	for _, c := range r.Chunks {
		s := fmt.Sprintf("%d-%d %s %s", c.StartLine, c.EndLine, c.Type, c.Name)
		if c.DeclEndLine != c.EndLine {
			s += fmt.Sprintf(" decl-end=%d", c.DeclEndLine)
		}
		if c.Owner != "" {
			s += " owner=" + c.Owner
		}
		if c.Doc != "" {
			s += fmt.Sprintf(" doc=%q", c.Doc)
		}
		g.Chunks = append(g.Chunks, s)
	}
	for _, rel := range r.Relations {
		g.Relations = append(g.Relations, fmt.Sprintf("%d %s %s -> %s", rel.Line, rel.Kind, rel.From, rel.To))
	}
	return g
}

// TestGolden parses every source file under testdata/<lang>/ and compares
// chunks and relations with the reviewed <file>.golden.json beside it.
func TestGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") || strings.HasPrefix(filepath.ToSlash(f), "testdata/fuzz/") {
			continue // the fuzz corpus has no golden output
		}
		n++
		t.Run(filepath.ToSlash(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel := strings.TrimPrefix(filepath.ToSlash(f), "testdata/")
			res, err := Parse(rel, src)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			checkInvariants(t, rel, src, res)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(render(res)); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			gf := f + ".golden.json"
			if *update {
				if err := os.WriteFile(gf, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(gf)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/chunk -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from golden:\n%s", f, diffLines(string(want), string(got)))
			}
		})
	}
	if n < 15 {
		t.Errorf("only %d golden sources, want one per language (15)", n)
	}
}

// diffLines is a small line diff: lines only in want (-) and only in got (+).
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	inW, inG := map[string]int{}, map[string]int{}
	for _, l := range w {
		inW[l]++
	}
	for _, l := range g {
		inG[l]++
	}
	var b strings.Builder
	for _, l := range w {
		if inG[l] == 0 {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range g {
		if inW[l] == 0 {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}

// checkInvariants holds for every Parse result: valid 1-based line ranges
// inside the file, byte ranges matching the lines, no '\r' anywhere, and
// Content equal to the cleaned bytes.
func checkInvariants(t *testing.T, path string, src []byte, r *FileResult) {
	t.Helper()
	nl := strings.Count(string(src), "\n")
	if len(src) > 0 && src[len(src)-1] != '\n' {
		nl++
	}
	for _, c := range r.Chunks {
		if c.StartLine < 1 || c.EndLine < c.StartLine || c.EndLine > nl || c.DeclEndLine < c.EndLine {
			t.Errorf("%s: bad lines %d-%d (decl %d) of %d in %q", path, c.StartLine, c.EndLine, c.DeclEndLine, nl, c.Name)
		}
		if c.StartByte < 0 || c.EndByte < c.StartByte || c.EndByte > len(src) {
			t.Errorf("%s: bad bytes %d-%d in %q", path, c.StartByte, c.EndByte, c.Name)
		} else if cleanText(src[c.StartByte:c.EndByte]) != c.Content {
			t.Errorf("%s: content of %q does not match its bytes", path, c.Name)
		}
		if strings.ContainsRune(c.Content+c.Name+c.Signature+c.Doc, '\r') {
			t.Errorf("%s: \\r in chunk %q", path, c.Name)
		}
		if c.Path != path || c.Type == "" || c.Name == "" {
			t.Errorf("%s: incomplete chunk %+v", path, c)
		}
		if (c.Type == KindMethod || c.Type == KindFunction) && !strings.Contains(c.Name, "(") {
			t.Errorf("%s: function name without '(': %q", path, c.Name)
		}
	}
	// no line is in two chunks but for the name line of a class or an impl
	// written on one line with its members: a class or impl head stops
	// before its first member, and a carved function's parts skip its
	// nested definitions
	owner := map[int]string{}
	for _, c := range r.Chunks {
		if (c.Type == KindClass || c.Type == KindImpl) && c.StartLine == c.EndLine {
			continue
		}
		for l := c.StartLine; l <= c.EndLine; l++ {
			if o, ok := owner[l]; ok {
				t.Errorf("%s: line %d in %q and %q", path, l, o, c.Name)
				break
			}
			owner[l] = c.Name
		}
	}
	for _, rel := range r.Relations {
		if rel.Line < 1 || rel.Line > nl || rel.From == "" || rel.To == "" || strings.ContainsRune(rel.From+rel.To, '\r') {
			t.Errorf("%s: bad relation %+v", path, rel)
		}
	}
}
