package search

import (
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/lang"
)

const ioFixture = `package io

// Copy copies from src to dst until either EOF is reached on src or an
// error occurs. If src implements WriterTo, the copy is implemented by
// calling src.WriteTo(dst). Otherwise, if dst implements ReaderFrom, the
// copy is implemented by calling dst.ReadFrom(src).
func Copy(dst Writer, src Reader) (int64, error) {
	return copyBuffer(dst, src, nil)
}

// copyBuffer is the actual implementation of Copy.
func copyBuffer(dst Writer, src Reader, buf []byte) (int64, error) {
	if wt, ok := src.(WriterTo); ok {
		return wt.WriteTo(dst)
	}
	if rf, ok := dst.(ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	n := 0
	for {
		n++
		if n > 10 {
			break
		}
	}
	return int64(n), nil
}
`

const formatFixture = `package format

// Format writes the shortest decimal digits of a float, choosing the
// algorithm by size: formatShort or formatLong.
func Format(f float64, size int) string {
	if size == 32 {
		return formatShort(f)
	}
	return formatLong(f)
}

// formatShort handles float32.
func formatShort(f float64) string { return "decimal" }

// formatLong handles float64.
func formatLong(f float64) string { return "decimal digits" }
`

const shapeFixture = `package shape

// Area computes the surface of any shape by asking the shape itself.
func Area(s Shape) float64 {
	return s.surface()
}

// surface of a square: side times side.
func (q Square) surface() float64 { return q.side * q.side }

// surface of a circle: pi r squared.
func (c Circle) surface() float64 { return 3.14 * c.r * c.r }
`

func TestDelegateLiftsImplementationAboveThinWrapper(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{"io/io.go": ioFixture, "format/format.go": formatFixture, "shape/shape.go": shapeFixture})
	rs := top(t, s, "copy from a reader to a writer preferring WriterTo or ReaderFrom", RankerHybrid, 5)
	if len(rs) < 2 || !strings.HasPrefix(rs[0].Name, "copyBuffer") || !strings.HasPrefix(rs[1].Name, "Copy(") {
		t.Fatalf("want copyBuffer above its wrapper Copy, got %v", names(rs))
	}
	if rs[0].Explain.Signal("delegate") <= 0 || !strings.HasPrefix(rs[0].Explain.note("delegate"), "Copy(") {
		t.Fatalf("explain does not show the delegation: %+v", rs[0].Explain)
	}
	// without the step the wrapper, whose doc says it all, comes first
	hp := DefaultHybridParams()
	hp.VectorRerank, hp.Delegate = true, false
	s.Params = &hp
	rs = top(t, s, "copy from a reader to a writer preferring WriterTo or ReaderFrom", RankerHybrid, 5)
	if len(rs) == 0 || !strings.HasPrefix(rs[0].Name, "Copy(") {
		t.Fatalf("fixture no longer tests anything: %v", names(rs))
	}
	s.Params = nil
	// a dispatcher calling two candidates is not a wrapper: nothing moves
	rs = top(t, s, "shortest decimal digits of a float choosing the algorithm by size", RankerHybrid, 5)
	if len(rs) == 0 || !strings.HasPrefix(rs[0].Name, "Format(") {
		t.Fatalf("dispatcher lost its place: %v", names(rs))
	}
	for _, r := range rs {
		if r.Explain.Signal("delegate") != 0 {
			t.Fatalf("%s lifted from dispatcher %s", r.Name, r.Explain.note("delegate"))
		}
	}
	// a call through an interface has no single implementation to lift
	rs = top(t, s, "compute the surface of any shape", RankerHybrid, 5)
	if len(rs) == 0 || !strings.HasPrefix(rs[0].Name, "Area(") {
		t.Fatalf("interface call lifted an implementation: %v", names(rs))
	}
	for _, r := range rs {
		if r.Explain.Signal("delegate") != 0 {
			t.Fatalf("%s lifted from %s through an interface", r.Name, r.Explain.note("delegate"))
		}
	}
}

func TestCodeLinesAndCallName(t *testing.T) {
	t.Parallel()
	if n := codeLines("// doc\n/* c */\nfunc F() {\n\n\treturn g()\n}\n"); n != 3 {
		t.Fatalf("codeLines = %d, want 3", n)
	}
	py := "def copy(a, b):\n    \"\"\"Copy a to b.\n\n    Long story.\n    \"\"\"\n    return _copy(a, b)\n"
	if n := codeLines(py); n != 2 {
		t.Fatalf("codeLines(python) = %d, want 2", n)
	}
	if n := codeLines("def f():\n    \"\"\"One line.\"\"\"\n    return g()\n"); n != 2 {
		t.Fatalf("codeLines(one-line docstring) = %d, want 2", n)
	}
	// codeLinesUpTo stops past its limit, and agrees with codeLines up to it
	for _, src := range []string{py, "a\nb\n\nc\n// d\ne", "", "x", "\n\n", "'''\ndoc\n'''\ny\nz"} {
		all := codeLines(src)
		for limit := 0; limit <= all+1; limit++ {
			if got, want := codeLinesUpTo(src, limit), min(all, limit+1); got != want {
				t.Fatalf("codeLinesUpTo(%q, %d) = %d, want %d", src, limit, got, want)
			}
		}
	}
	for _, c := range []struct {
		a, b, qual string
		want       bool
	}{
		{"io/io.go", "io/multi.go", "", true},
		{"crypto/hmac/hmac.go", "crypto/subtle/constant_time.go", "subtle", true},
		{"crypto/hmac/hmac.go", "crypto/subtle/constant_time.go", "", false},
		{"a/x.go", "b/y.go", "b.grow", false},
	} {
		if got := sameUnit(c.a, c.b, c.qual); got != c.want {
			t.Errorf("sameUnit(%q, %q, %q) = %v", c.a, c.b, c.qual, got)
		}
	}
}

// A lift is computed from the scores before any lift: an implementation
// lifted above its wrapper does not pass the lift on to what it calls
// itself (ExecuteContext -> Execute -> ExecuteC lifted ExecuteC to the
// top), and a call on another value (t.Execute on a template) lifts
// nothing, since its receiver's type is unknown.
func TestDelegateNeverChainsNorFollowsGuesses(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{"run/run.go": `package run

// RunWithContext runs the command with a context, retrying the command on failure.
func RunWithContext(ctx Context) error { return Run() }

// Run runs the command, retrying on failure.
func Run() error {
	for i := 0; i < 3; i++ {
		if err := runCommand(); err == nil {
			return nil
		}
	}
	return errRetry
}

// runCommand executes.
func runCommand() error {
	cmd := exec.Command("true")
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Wait()
}
`, "tmpl/tmpl.go": `package tmpl

// Render renders the page template with the data, escaping every value.
func Render(t *Template, data any) error { return t.Execute(data) }

// Execute writes the page output.
func Execute() error { return nil }
`})
	rs := top(t, s, "run the command with a context, retrying on failure", RankerHybrid, 5)
	if len(rs) < 3 {
		t.Fatalf("too few results: %v", names(rs))
	}
	if strings.HasPrefix(rs[0].Name, "runCommand") {
		t.Fatalf("the lift chained RunWithContext -> Run -> runCommand: %v", names(rs))
	}
	if !strings.HasPrefix(rs[0].Name, "Run(") || rs[0].Explain.Signal("delegate") <= 0 {
		t.Fatalf("want Run lifted above its wrapper RunWithContext: %v", names(rs))
	}
	rs = top(t, s, "render the page template with the data, escaping every value", RankerHybrid, 5)
	for _, r := range rs {
		if strings.HasPrefix(r.Name, "Execute") && r.Explain.Signal("delegate") != 0 {
			t.Fatalf("a call on another value (t.Execute) lifted %s", r.Name)
		}
	}
}

// A constructor initialises its object: the setter or base-class method it
// calls is not what a query about the class asks for (fmt's
// basic_memory_buffer constructor lifted buffer::set of base.h to the
// top). A method that calls its own name in another file forwards to
// another value's method, whose type the bare name cannot tell (circe's
// KeyDecoder.map lifted Decoder.map).
func TestDelegateSkipsConstructorsAndNamesakes(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"buffer/MemoryBuffer.java": `package buffer;

/** A growing memory buffer that keeps its first bytes inline. */
class MemoryBuffer extends Buffer {
  /** Creates a growing memory buffer that keeps its first bytes inline. */
  MemoryBuffer(int size) { set(new byte[size], size); }
}
`,
		"buffer/Buffer.java": `package buffer;

class Buffer {
  /** Sets the data and the capacity of a buffer. */
  void set(byte[] data, int capacity) {
    this.data = data;
    this.capacity = capacity;
    this.size = 0;
  }
}
`,
		"circe/KeyDecoder.scala": `package io.circe

trait KeyDecoder[A] {
  def apply(key: String): Option[A]

  /** Map a decoded map key to another type with a function. */
  final def map[B](f: A => B): KeyDecoder[B] = KeyDecoder.instance(key => lookup(key).map(f))
}
`,
		"circe/Decoder.scala": `package io.circe

trait Decoder[A] {
  /** Map a function over this decoder. */
  final def map[B](f: A => B): Decoder[B] = new Decoder[B] {
    final def apply(c: HCursor): Result[B] = tryDecode(c) match {
      case Right(a) => Right(f(a))
      case l        => l
    }
  }
}
`})
	for _, c := range []struct{ query, first string }{
		{"growing memory buffer that keeps its first bytes inline", "MemoryBuffer"},
		{"map a decoded map key to another type with a function", "KeyDecoder.map"},
	} {
		rs := top(t, s, c.query, RankerHybrid, 5)
		if len(rs) == 0 {
			t.Fatalf("%q: no results", c.query)
		}
		for _, r := range rs {
			if r.Explain.Signal("delegate") != 0 {
				t.Errorf("%q: %s lifted from %s", c.query, r.Name, r.Explain.note("delegate"))
			}
		}
		if !strings.HasPrefix(rs[0].Name, c.first) {
			t.Errorf("%q: want %s first, got %v", c.query, c.first, names(rs))
		}
	}
}

// A thin function that hands a value to a helper as short as itself (a
// print, an echo) does its own work: the helper is no implementation, and
// the delegate step leaves the wrapper first.
func TestDelegateSkipsHelpersNoLongerThanTheWrapper(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{
		"install/install.go": `package install

// echo prints its arguments on a line.
func echo(args ...any) { fmt.Println(args...) }

// nodeVersion prints the Node.js version to install.
func nodeVersion() { echo(os.Getenv("NODE_VERSION")) }
`,
		"install/other.go": `package install

// home returns the install directory.
func home() string { return os.Getenv("NVM_DIR") }
`})
	const q = "print the Node.js version to install"
	rs := top(t, s, q, RankerHybrid, 5)
	if len(rs) == 0 || !strings.HasPrefix(rs[0].Name, "nodeVersion") {
		t.Fatalf("want the wrapper nodeVersion first, got %v", names(rs))
	}
	for _, r := range rs {
		if r.Explain.Signal("delegate") != 0 {
			t.Errorf("%s lifted from %s", r.Name, r.Explain.note("delegate"))
		}
	}
}

// A call on the wrapper's own receiver reaches a method of the wrapper's
// own type: Request.WriteProxy's r.write is Request.write, never the
// package's response.write, which net/http's "parse the HTTP request line"
// lifted to fifth place while Request.write was not a candidate. A Go call
// without a receiver reaches a function, never a method of that name.
func TestDelegateFollowsTheCallsForm(t *testing.T) {
	t.Parallel()
	s := fixture(t, map[string]string{"http/request.go": `package http

// WriteProxy writes the request line and headers for a proxy, with the absolute URL.
func (r *Request) WriteProxy(w Writer) error { return r.write(w, true) }
`, "http/server.go": `package http

// write sends the response body bytes to the connection, chunked.
func (w *response) write(n int, data []byte) (int, error) {
	if w.conn.hijacked() {
		return 0, ErrHijacked
	}
	if !w.wroteHeader {
		w.WriteHeader(StatusOK)
	}
	if n == 0 {
		return 0, nil
	}
	if !w.bodyAllowed() {
		return 0, ErrBodyNotAllowed
	}
	w.written += int64(n)
	return w.w.Write(data)
}
`, "pool/pool.go": `package pool

// Drain empties the pool of idle connections, closing each.
func Drain(p *Pool) { drain(p) }

// drain closes each idle connection of the pool and empties it.
func (p *Pool) drain() {
	for _, c := range p.idle {
		c.Close()
	}
	p.idle = nil
	p.count = 0
	p.closed = true
	p.cond.Broadcast()
}
`})
	for _, q := range []string{
		"write the request line and headers for a proxy with the absolute URL",
		"empty the pool of idle connections, closing each",
	} {
		rs := top(t, s, q, RankerHybrid, 5)
		if len(rs) == 0 {
			t.Fatalf("%q: no results", q)
		}
		for _, r := range rs {
			if r.Explain.Signal("delegate") != 0 {
				t.Errorf("%q: %s lifted from %s: the call cannot reach it", q, r.Name, r.Explain.note("delegate"))
			}
		}
	}
}

// TestFormReaches: the kinds of definition each call form can reach.
func TestFormReaches(t *testing.T) {
	req := chunk.Symbol{Name: "WriteProxy", Owner: "Request"}
	for _, c := range []struct {
		form     lang.CallForm
		callee   chunk.Symbol
		sameFile bool
		want     bool
	}{
		{lang.CallSelf, chunk.Symbol{Name: "write", Owner: "Request"}, false, true},
		{lang.CallSelf, chunk.Symbol{Name: "write", Owner: "response"}, false, false},
		{lang.CallSelf, chunk.Symbol{Name: "write", Owner: "response"}, true, true}, // embedded or base type beside it
		{lang.CallSelf, chunk.Symbol{Name: "write"}, false, false},
		{lang.CallPlain, chunk.Symbol{Name: "write"}, false, true},
		{lang.CallPlain, chunk.Symbol{Name: "write", Owner: "Request"}, true, false},
		{lang.CallBare, chunk.Symbol{Name: "write", Owner: "response"}, false, true},
	} {
		if got := formReaches(c.form, req, c.callee, c.sameFile); got != c.want {
			t.Errorf("formReaches(%v, %+v, same file %v) = %v, want %v", c.form, c.callee, c.sameFile, got, c.want)
		}
	}
	if formReaches(lang.CallSelf, chunk.Symbol{Name: "f"}, chunk.Symbol{Name: "g"}, true) {
		t.Error("a call on a receiver from a function without owner reached a function")
	}
}

// The implementation a thin wrapper hands its work to must answer the
// question too: a callee no word of the query occurs in (keyword rank 0,
// a candidate by its vector alone) is the wrapper's plumbing and is not
// lifted (net/http's startGracefulShutdown lifted the generic
// sendServeMsg above Server.Shutdown for "how does the server shut down
// gracefully"); the same callee with a keyword rank is lifted.
func TestDelegateNeedsTheCalleesOwnWords(t *testing.T) {
	t.Parallel()
	mk := func(calleeKeywordRank int) []Result {
		return []Result{
			{Path: "s.go", Name: "conn.startGracefulShutdown()", Type: chunk.KindMethod, Score: 0.020,
				content: "func (sc *conn) startGracefulShutdown() {\n\tsc.sendServeMsg(gracefulShutdownMsg)\n}",
				sym:     chunk.Symbol{Name: "startGracefulShutdown", Owner: "conn"}, Explain: &Explain{KeywordRank: 1}},
			{Path: "s.go", Name: "conn.sendServeMsg(msg any)", Type: chunk.KindMethod, Score: 0.010,
				content: "func (sc *conn) sendServeMsg(msg any) {\n\ta := 1\n\tb := 2\n\tc := 3\n\td := 4\n\te := 5\n\tselect {\n\tcase sc.serveMsgCh <- msg:\n\tcase <-sc.doneServing:\n\t}\n\t_ = a + b + c + d + e\n}",
				sym:     chunk.Symbol{Name: "sendServeMsg", Owner: "conn"}, Explain: &Explain{KeywordRank: calleeKeywordRank, VectorRank: 4}},
		}
	}
	callees := map[[2]string][]wrapperCall{{"s.go", "conn.startGracefulShutdown"}: {{to: "sendServeMsg", form: lang.CallSelf}}}
	hp := DefaultHybridParams()
	if rs := mk(0); delegate(rs, callees, false, hp) || rs[1].Explain.Signal("delegate") != 0 {
		t.Errorf("a callee without the query's words was lifted: %+v", rs[1].Explain)
	}
	if rs := mk(7); !delegate(rs, callees, false, hp) || rs[1].Explain.Signal("delegate") <= 0 {
		t.Errorf("a callee the keyword route found was not lifted: %+v", rs[1].Explain)
	}
}

// TestDelegableCall: a call on a value of unknown type is not followed;
// one typed by its value's declared class in Java, C# or C++ (a .h
// header too) is followed by name, as it was before such calls were
// typed; a typed Go call (a func-typed field) is not.
func TestDelegableCall(t *testing.T) {
	for _, c := range []struct {
		file, to string
		form     lang.CallForm
		want     string
		ok       bool
	}{
		{"q.h", "circular_q.push_back", lang.CallValue, "push_back", true},
		{"A.java", "Executor.query", lang.CallValue, "query", true},
		{"V.cs", "IValidator.Validate", lang.CallValue, "Validate", true},
		{"a.go", "Server.handler", lang.CallValue, "", false},
		{"a.cc", "size", lang.CallValue, "", false},
		{"a.go", "copyBuffer", lang.CallPlain, "copyBuffer", true},
		{"a.py", "self.grow", lang.CallSelf, "self.grow", true},
	} {
		got, ok := delegableCall(c.file, c.to, c.form)
		if ok != c.ok || got.to != c.want {
			t.Errorf("delegableCall(%s, %s, %v) = %q, %v; want %q, %v", c.file, c.to, c.form, got.to, ok, c.want, c.ok)
		}
	}
}
