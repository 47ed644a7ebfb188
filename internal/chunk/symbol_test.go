package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseSymbol(t *testing.T) {
	for _, c := range []struct {
		kind, name, owner string
		want              Symbol
		call              string
	}{
		{KindFunction, "Copy(dst Writer, src Reader)", "", Symbol{Name: "Copy", Params: "dst Writer, src Reader"}, "Copy"},
		{KindMethod, "Buffer.Grow(n int)", "Buffer", Symbol{Name: "Grow", Owner: "Buffer", Params: "n int"}, "Buffer.Grow"},
		{KindMethod, "ThreadLocalMap.expungeStaleEntries()", "ThreadLocalMap",
			Symbol{Name: "expungeStaleEntries", Owner: "ThreadLocalMap"}, "ThreadLocalMap.expungeStaleEntries"},
		// a dotted method name under its owner keeps the dots; without the
		// owner prefix the last segment is the name
		{KindMethod, "Layer.prototype.match(path)", "Layer", Symbol{Name: "prototype.match", Owner: "Layer", Params: "path"}, "Layer.prototype.match"},
		{KindFunction, "res.send(body)", "", Symbol{Name: "send", Params: "body"}, "send"},
		// parameters holding dots do not move the cut
		{KindMethod, "Server.Serve(l net.Listener)", "Server", Symbol{Name: "Serve", Owner: "Server", Params: "l net.Listener"}, "Server.Serve"},
		{KindFunction, "f(a int, b…)", "", Symbol{Name: "f", Params: "a int, b…"}, "f"},
		{KindClass, "Outer.Inner", "Outer", Symbol{Name: "Inner", Owner: "Outer"}, "Outer.Inner"},
		{KindClass, "Pretty (Queue a)", "", Symbol{Name: "Pretty (Queue a)"}, "Pretty (Queue a)"},
		{KindText, "README.md#2", "", Symbol{}, ""},
		// an impl block names no symbol; a macro is its name without "!";
		// an accessor's "(get)" is not part of its name
		{KindImpl, "From<ParserNumber> for Number", "", Symbol{}, ""},
		{KindMacro, "json!", "", Symbol{Name: "json"}, "json"},
		{KindMethod, "Request.contentType (get)", "Request", Symbol{Name: "contentType", Owner: "Request", Params: "get"}, "Request.contentType"},
	} {
		got := ParseSymbol(c.kind, c.name, c.owner)
		if got != c.want {
			t.Errorf("ParseSymbol(%s, %q, %q) = %+v, want %+v", c.kind, c.name, c.owner, got, c.want)
		}
		if cn := got.CallName(); cn != c.call {
			t.Errorf("CallName of %q = %q, want %q", c.name, cn, c.call)
		}
	}
}

// Every definition chunk of the golden corpus parses back into a symbol
// whose name is in the chunk name and whose owner is the chunk's owner.
func TestParseSymbolGoldenCorpus(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		res, err := Parse(p, data)
		if err != nil || res == nil {
			return nil // inputs the chunker refuses are tested elsewhere
		}
		for _, c := range res.Chunks {
			if c.Type == KindText || c.Type == KindImpl {
				continue // no symbol: an impl block's type is defined elsewhere
			}
			n++
			s := ParseSymbol(c.Type, c.Name, c.Owner)
			if s.Name == "" || !strings.Contains(c.Name, s.Name) || s.Owner != c.Owner {
				t.Errorf("%s: %q owner %q -> %+v", p, c.Name, c.Owner, s)
			}
			if c.Type == KindClass && s.Params != "" {
				t.Errorf("%s: class %q has params %q", p, c.Name, s.Params)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d definition chunks in testdata", n)
	}
}

// TestLongSignatureKeepsWholeCharacters parses a Go function whose
// parameter list is longer than maxSignatureParams and made of two-byte
// characters placed so that the byte cut falls inside one: the signature
// must stay valid UTF-8, end in "…)", and keep every whole character
// before the cut.
func TestLongSignatureKeepsWholeCharacters(t *testing.T) {
	params := []string{"abcd int"} // 10 bytes with its ", ": byte 400 falls on the second byte of an é
	for i := 0; i < 60; i++ {
		params = append(params, fmt.Sprintf("é%02dé int", i)) // 10 bytes each, ", " between
	}
	src := "package p\n\nfunc Long(" + strings.Join(params, ", ") + ") {}\n"
	res, err := Parse("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var sig string
	for _, c := range res.Chunks {
		if strings.HasPrefix(c.Signature, "Long(") {
			sig = c.Signature
		}
	}
	if sig == "" {
		t.Fatalf("no chunk for Long: %+v", res.Chunks)
	}
	if !utf8.ValidString(sig) {
		t.Fatalf("signature is not valid UTF-8: %q", sig)
	}
	if !strings.HasSuffix(sig, "…)") {
		t.Fatalf("a long signature ends in …): %q", sig)
	}
	kept := strings.TrimSuffix(strings.TrimPrefix(sig, "Long"), "…)")
	full := "(" + strings.Join(params, ", ") + ")"
	if !strings.HasPrefix(full, kept) || len(kept) > maxSignatureParams || len(kept) < maxSignatureParams-3 {
		t.Fatalf("kept %d bytes %q, want the first %d bytes of the list up to a character boundary", len(kept), kept, maxSignatureParams)
	}
	// the cut really falls inside a character: without the back-off the
	// signature would split one
	if utf8.RuneStart(full[maxSignatureParams]) {
		t.Fatalf("test data does not put byte %d inside a character", maxSignatureParams)
	}
}
