package chunk

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestGoTypes: receivers typed from declarations, and left untyped when a
// name is bound to two types or to a value of unknown type.
func TestGoTypes(t *testing.T) {
	t.Parallel()
	pkg := NewGoPackage(map[string][]byte{"types.go": []byte(`package p

import "bytes"

type Base struct{}

func (b *Base) Reset() {}

type Command struct {
	Base
	buf  bytes.Buffer
	subs []*Command
	hook func()
	out  *Writer
}

type Writer struct{}

func (w *Writer) Write(b []byte) {}

func NewCommand() *Command { return nil }

func (c *Command) Commands() []*Command { return c.subs }

func (c *Command) Root() *Command { return c }

func (c *Command) Run() {}
`)})
	src := []byte(`package p

import tmpl "text/template"

func use(c *Command, t *tmpl.Template, any interface{ Run() }) {
	c.Run()                    // Command.Run
	c.out.Write(nil)           // Writer.Write (field)
	c.buf.Len()                // bytes.Buffer.Len
	c.Reset()                  // Base.Reset (promoted)
	c.hook()                   // Command.hook: a func field, which no method answers (relate)
	t.Execute(nil, nil)        // template.Template.Execute
	x := NewCommand()
	x.Root().Run()             // Command.Root, Command.Run
	for _, s := range c.Commands() {
		s.Run()                // Command.Run (range over a result)
	}
	y := &Writer{}
	y.Write(nil)               // Writer.Write
	z := new(Writer)
	z.Write(nil)               // Writer.Write
	c.subs[0].Run()            // Command.Run (index)
	var v interface{} = y
	v.(*Writer).Write(nil)     // Writer.Write (assertion)
	w := y
	w = nil
	any.Run()                  // an interface literal: untyped
	q := unknown()
	q.Run()                    // untyped
	if true {
		r := NewCommand()
		r.Run()
	} else {
		r := &Writer{}
		r.Write(nil)           // r bound to two types: untyped
	}
}
`)
	got := goTypes(src, pkg)
	var names []string
	for off, n := range got {
		line := strings.Count(string(src[:off]), "\n") + 1
		names = append(names, fmt.Sprintf("%d %s", line, n))
	}
	num := func(s string) int { n, _ := strconv.Atoi(s[:strings.IndexByte(s, ' ')]); return n }
	sort.Slice(names, func(i, j int) bool {
		return num(names[i]) < num(names[j]) || num(names[i]) == num(names[j]) && names[i] < names[j]
	})
	want := []string{
		"6 Command.Run", "7 Writer.Write", "8 bytes.Buffer.Len", "9 Base.Reset", "10 Command.hook", "11 template.Template.Execute",
		"13 Command.Root", "13 Command.Run", "14 Command.Commands", "15 Command.Run", "18 Writer.Write", "20 Writer.Write", "21 Command.Run",
		"23 Writer.Write",
	}
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Errorf("typed calls:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
}

// TestGoPackageOrderFree: a package whose files declare the same function,
// method and var with different types (build-tagged variants, as in
// runtime) types calls the same way however the map of files is iterated:
// a declaration the files disagree on is untyped, one they agree on typed.
// Before NewGoPackage sorted its files and recorded disagreements, the last
// file read won and the result changed from run to run (#25 item 12).
func TestGoPackageOrderFree(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"types.go":     []byte("package p\ntype A struct{}\nfunc (A) Run() {}\ntype B struct{}\nfunc (B) Run() {}\ntype M struct{}\n"),
		"os_linux.go":  []byte("package p\nfunc current() *A { return nil }\nfunc same() *A { return nil }\nfunc (M) get() *A { return nil }\nvar g = &A{}\n"),
		"os_darwin.go": []byte("package p\nfunc current() *B { return nil }\nfunc same() *A { return nil }\nfunc (M) get() *B { return nil }\nvar g = &B{}\n"),
		"os_plan9.go":  []byte("package p\nfunc current() *A { return nil }\nfunc same() *A { return nil }\nfunc (M) get() *A { return nil }\nvar g = &A{}\n"),
	}
	src := []byte("package p\nfunc use(m M) {\n\tcurrent().Run()\n\tsame().Run()\n\tm.get().Run()\n\tg.Run()\n}\n")
	for i := 0; i < 30; i++ {
		got := goTypes(src, NewGoPackage(files))
		var typed []string
		for off, callee := range got {
			typed = append(typed, fmt.Sprintf("%d %s", strings.Count(string(src[:off]), "\n")+1, callee))
		}
		sort.Strings(typed)
		if want := "4 A.Run, 5 M.get"; strings.Join(typed, ", ") != want {
			t.Fatalf("build %d: typed calls %q, want %q", i, strings.Join(typed, ", "), want)
		}
	}
}
