package chunk

import (
	"testing"

	"github.com/coderag/coderag/internal/lang"
)

// A Go call without a receiver is marked lang.CallPlain (it can only reach a
// function); the same name called on a receiver is a separate relation.
func TestGoPlainCalls(t *testing.T) {
	t.Parallel()
	src := []byte(`package http

import "time"

type conn struct{}

func (c *conn) serve() {
	readRequest(nil)
	c.readRequest()
	time.Now()
	len("x")
}
`)
	res, err := Parse("server.go", src)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range res.Relations {
		if r.Kind == RelCalls && r.From == "conn.serve" {
			got[r.To+map[bool]string{true: " plain", false: ""}[r.Form == lang.CallPlain]] = true
		}
	}
	for _, want := range []string{"readRequest plain", "readRequest", "time.Now", "len plain"} {
		if !got[want] {
			t.Errorf("missing call %q in %v", want, got)
		}
	}
	// other languages never set Plain
	py, err := Parse("a.py", []byte("def f():\n    g()\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range py.Relations {
		if r.Form == lang.CallPlain {
			t.Errorf("python relation marked plain: %+v", r)
		}
	}
}
