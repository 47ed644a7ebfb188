package relate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coderag/coderag/internal/index"
)

// TestCacheReloadsAfterWrites: the cached resolver answers repeated queries
// without reloading, sees a new definition after the index changed, and
// serves concurrent callers.
func TestCacheReloadsAfterWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc Alpha() { beta() }\n\nfunc beta() {}\n"), 0o644)
	st, root := indexDir(t, dir)
	ctx := context.Background()
	var c Cache
	var first *Resolver
	for i := 0; i < 2; i++ {
		if err := c.Use(ctx, st, root, func(r *Resolver) error {
			if first == nil {
				first = r
			} else if r != first {
				t.Error("resolver reloaded without a write")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Describe(ctx, st, root, "Gamma"); err == nil {
		t.Fatal("Gamma found before it exists")
	}
	os.WriteFile(filepath.Join(dir, "g.go"), []byte("package a\n\nfunc Gamma() { Alpha() }\n"), 0o644)
	if _, err := index.Run(ctx, st, fakeEmbedder{}, root, index.Options{Threads: 1}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Describe(ctx, st, root, "Gamma")
	if err != nil || !strings.Contains(out, "Alpha") {
		t.Fatalf("after the write: %v %q", err, out)
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := c.Describe(ctx, st, root, "Alpha"); err != nil || !strings.Contains(out, "beta") {
				t.Errorf("concurrent Describe: %v %q", err, out)
			}
		}()
	}
	wg.Wait()
}

// TestGraphOmitsHugeAmbiguity: a call whose name more than maxCandidates
// definitions share is counted, not listed, in the graph of one of them;
// an ambiguous edge in the tree names a few candidates and how many more.
func TestGraphOmitsHugeAmbiguity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package p\n\n")
	for i := 0; i < maxCandidates+2; i++ {
		fmt.Fprintf(&b, "type T%d struct{}\n\nfunc (T%d) Close() error { return nil }\n\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "types.go"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "use.go"), []byte("package p\n\nfunc Shut(c interface{ Close() error }) { c.Close() }\n"), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.Graph("T3.Close")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range g.Edges {
		if e.Caller != nil && e.Caller.Name == "Shut(c interface{ Close() error })" {
			t.Errorf("a call with %d candidates is listed: %+v", maxCandidates+2, e)
		}
	}
	if g.OmittedAmbiguous != 1 {
		t.Errorf("OmittedAmbiguous = %d, want 1", g.OmittedAmbiguous)
	}
	out, err := runQuery(r, query{"callees", []string{"Shut"}}, FormatTree)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, fmt.Sprintf("and %d more", maxCandidates+2-treeCandidates)) {
		t.Errorf("tree does not cap the candidates:\n%s", out)
	}
}

// TestLookupPackagePathOutsideModule: a Go name qualified by an import path
// that the project's directories do not spell (a copy of net/http in
// /tmp/x) still finds the definition by the rest of the name.
func TestLookupPackagePathOutsideModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "server.go"), []byte("package http\n\ntype Server struct{}\n\nfunc (s *Server) Shutdown() {}\n"), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Lookup("net/http.(*Server).Shutdown")
	if err != nil || d.call != "Server.Shutdown" {
		t.Fatalf("Lookup = %+v, %v", d, err)
	}
	if _, err := r.Lookup("net/http.(*Server).Missing"); err == nil {
		t.Fatal("a missing method found")
	}
}

// TestGoReceiverCalls: a Go call on the method's own receiver reaches the
// receiver type's method; a call of the same name on another value never
// resolves to the caller itself or, by assumption, to its own type.
func TestGoReceiverCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "body.go"), []byte(`package p

type body struct{ rc closer }

// Close closes the wrapped reader: not itself.
func (b *body) Close() error { return b.rc.Close() }

type conn struct{ b *body }

func (c *conn) serve() { c.read(); c.b.Close() }

func (c *conn) read() {}

type file struct{}

func (f *file) Close() error { return nil }
`), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Callees("body.Close", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range w.Edges {
		if e.Target != nil && e.Target.call == "body.Close" {
			t.Errorf("b.rc.Close() resolved to the caller itself (%s)", e.Resolution)
		}
		if e.Resolution == ResReceiver {
			t.Errorf("b.rc.Close() resolved by the receiver rule")
		}
	}
	w, err = r.Callees("conn.serve", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range w.Edges {
		tgt := e.Resolution
		if e.Target != nil {
			tgt = e.Target.call + " " + e.Resolution
		}
		got[e.To] = tgt
	}
	if got["read"] != "conn.read receiver" {
		t.Errorf("c.read(): %q", got["read"])
	}
	// c.b is a field of type *body: typed from the struct declaration
	if got["body.Close"] != "body.Close typed" {
		t.Errorf("c.b.Close() with two Close methods, b a *body field: %q, want body.Close typed", got["body.Close"])
	}
}

// TestValueCallsAreNotAssumed: in Python (and the other languages whose
// receivers are read), a call on self reaches the caller's class, while a
// call on another value neither resolves to the caller's class nor, by
// uniqueness alone, to the one method of that name in the project.
func TestValueCallsAreNotAssumed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "decoder.py"), []byte(`class JSONDecoder:
    def decode(self, s):
        return s
`), 0o644)
	os.WriteFile(filepath.Join(dir, "orders.py"), []byte(`class Order:
    def save(self):
        return 1

    def process(self, repo):
        self.save()
        repo.save()

def host_info(host):
    return host.decode("idna")
`), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Callees("Order.process", 1)
	if err != nil {
		t.Fatal(err)
	}
	var self, other []string
	for _, e := range w.Edges {
		got := e.Resolution
		if e.Target != nil {
			got = e.Target.call + " " + e.Resolution
		}
		if e.Line == 6 {
			self = append(self, got)
		} else {
			other = append(other, got)
		}
	}
	if len(self) != 1 || self[0] != "Order.save receiver" {
		t.Errorf("self.save(): %v", self)
	}
	if len(other) != 1 || strings.Contains(other[0], "receiver") {
		t.Errorf("repo.save() taken for the caller's class: %v", other)
	}
	w, err = r.Callees("host_info", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Edges) != 1 || w.Edges[0].Resolution != ResAmbiguous || w.Edges[0].Target != nil {
		t.Errorf("host.decode() resolved by uniqueness: %+v", w.Edges)
	}
}

// TestJSBareCallsAreFunctions: JavaScript has no implicit this, so a bare
// call inside a method reaches a function, never the method of the same
// name on the caller's object; this.x() does reach it.
func TestJSBareCallsAreFunctions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "response.js"), []byte(`var send = require('send');

res.send = function send(body) {
  return body;
};

res.sendFile = function sendFile(path) {
  var file = send(path);
  this.send(file);
};
`), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	w, err := r.Callees("res.sendFile", 1)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, e := range w.Edges {
		s := e.Resolution
		if e.Target != nil {
			s = e.Target.call + " " + e.Resolution
		}
		got[e.Line] = s
	}
	if got[8] != ResUnresolved || got[9] != "res.send receiver" {
		t.Errorf("send(path) and this.send(file): %v", got)
	}
}

// TestNewIsAConstructorCall: "new Foo(...)" (Java, JS, TS, C#, PHP) is a
// call of Foo's constructor, found among Foo's callers.
func TestNewIsAConstructorCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Shop.java"), []byte("class Cart {\n  Cart(int n) {}\n}\nclass Shop {\n  Cart open() { return new Cart(1); }\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "layer.js"), []byte("function Layer(path) { this.path = path; }\nfunction route(p) { return new Layer(p); }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "inv.php"), []byte("<?php\nclass Invoice { function __construct($a) {} }\nfunction make() { return new Invoice(1); }\n"), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	for name, caller := range map[string]string{"Cart.Cart": "Shop.open", "Layer": "route", "Invoice.__construct": "make"} {
		w, err := r.Callers(name, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		found := false
		for _, e := range w.Edges {
			found = found || e.Caller != nil && e.Caller.call == caller && e.Resolved()
		}
		if !found {
			t.Errorf("%s: %s is not a resolved caller: %+v", name, caller, w.Edges)
		}
	}
}

// TestGraphListsRecursionOnce: a function that calls itself has that call
// among its callees and among its callers; the graph lists it once, and
// counts it once.
func TestGraphListsRecursionOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "walk.go"), []byte(`package p

func Walk(n int) int {
	if n == 0 {
		return 0
	}
	return Walk(n-1) + step(n)
}

func step(n int) int { return n }

func Start() int { return Walk(3) }
`), 0o644)
	st, root := indexDir(t, dir)
	r, err := NewResolver(context.Background(), st, root)
	if err != nil {
		t.Fatal(err)
	}
	g, err := r.Graph("Walk")
	if err != nil {
		t.Fatal(err)
	}
	self, callers := 0, 0
	for _, e := range g.Edges {
		if e.Kind != "calls" {
			continue
		}
		if e.Line == 7 && e.To == "Walk" {
			self++
		}
		if e.Target != nil && e.Target.Name == g.Defs[0].Name {
			callers++
		}
	}
	if self != 1 {
		t.Errorf("the recursive call at walk.go:7 is listed %d times, want 1: %+v", self, g.Edges)
	}
	if callers != 2 { // itself, and Start
		t.Errorf("%d calls reach Walk, want 2 (Walk itself and Start)", callers)
	}
}
