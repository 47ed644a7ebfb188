package cli

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/coderag/coderag/internal/agent"
	"github.com/coderag/coderag/internal/llm"
	"github.com/coderag/coderag/internal/llm/llmtest"
	"github.com/coderag/coderag/internal/testutil"
)

// TestREPLPiped drives the REPL in process with piped input and no chat
// model: /index switches the project, /search and /graph use it, free text
// falls back to search with a one-time hint.
func TestREPLPiped(t *testing.T) {
	root := askFixture(t)
	askEnv(t, "")
	in := strings.Join([]string{
		"/help",
		"/search exponential backoff", // before /index: the cwd is not indexed
		"/index " + root,
		"/search exponential backoff",
		"/graph Retry",
		"/graph Retry --format mermaid",
		"/graph --limit 1 Retry",
		"/index " + filepath.Join(root, "missing"),
		"/index /etc",
		"where does the server start",
		"and where is NewServer",
		"/bogus",
		"/serch backoff",
		"/exit",
		"/search never reached",
	}, "\n") + "\n"
	code, out, errs := askRun(t, in)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, w := range []string{
		"/index [path]   index a directory",
		"error: not indexed yet",
		"project: " + root,
		"retry/retry.go:",
		"Graph of Retry",
		"flowchart", // /graph takes the flags of `coderag graph`
		"the session keeps project " + root,
		noModelHint,
		"server/server.go:",
		"unknown command /bogus (/help)",
		"unknown command /serch; did you mean /search? (/help)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if strings.Count(out, noModelHint) != 1 {
		t.Errorf("hint shown %d times, want once", strings.Count(out, noModelHint))
	}
	if strings.Contains(out, "never reached") {
		t.Error("input after /exit was run")
	}
	if strings.Contains(out, "no function or class named") {
		t.Error("/graph took its flags for a part of the name")
	}
	// a run that fails says why, once, not "no searchable chunks" first
	if !strings.Contains(out, "error: index /etc: not a project root") || strings.Contains(out, "no searchable chunks in /etc") {
		t.Error("/index /etc: want its error alone")
	}
	if t.Failed() {
		t.Logf("output:\n%s\nstderr:\n%s", out, errs)
	}
}

// TestREPLAgent: with a chat model configured, free text goes to the agent
// over the session's project, and the next question carries the previous
// exchange.
func TestREPLAgent(t *testing.T) {
	root := askFixture(t)
	srv := llmtest.New(t, func(turn int, req llm.Request) llmtest.Reply {
		switch turn {
		case 1:
			return llmtest.ToolCalls(llmtest.Call("g", agent.ToolGrep, `{"pattern":"func NewServer"}`))
		case 2:
			return llmtest.Text("NewServer is at server/server.go:7.")
		default:
			return llmtest.Text("It returns a *Server (server/server.go:7).")
		}
	})
	askEnv(t, srv.URL)
	in := "/index " + root + "\nwhere is NewServer?\nwhat does it return?\n/exit\n"
	code, out, errs := askRun(t, in)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "chat model: gpt-test") || !strings.Contains(out, "NewServer is at server/server.go:7.") ||
		!strings.Contains(out, "It returns a *Server (server/server.go:7).") || strings.Contains(out, noModelHint) {
		t.Fatalf("output:\n%s", out)
	}
	if !strings.Contains(errs, "→ grep_code") {
		t.Errorf("tool calls not shown: %q", errs)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	if tr := llmtest.ToolResults(reqs[1]); len(tr) != 1 || !strings.Contains(tr[0].Content, "server/server.go") {
		t.Errorf("grep over the session project: %+v", tr)
	}
	var roles []string
	for _, m := range reqs[2].Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,user" || reqs[2].Messages[2].Content != "NewServer is at server/server.go:7." {
		t.Errorf("second question's messages: %s", got)
	}
}

// screen collects a pseudo-terminal's output.
type screen struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	mark int // Expect searches after this offset of the cleaned text
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]|\r`)

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// raw is everything written, escape sequences and carriage returns kept.
func (s *screen) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ansiRE.ReplaceAllString(s.buf.String(), "")
}

// expect waits until want appears after the previous match.
func (s *screen) expect(t *testing.T, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		txt := s.text()
		if i := strings.Index(txt[min(s.mark, len(txt)):], want); i >= 0 {
			s.mark += i + len(want)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q; screen after last match:\n%s", want, txt[min(s.mark, len(txt)):])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestREPLTerminal runs the built binary on a pseudo-terminal, so the
// readline editor is in use: /index a fixture, /search, /graph, Tab to
// complete /grep, Ctrl-C to
// clear a line, free text without a model, /exit; the history file keeps
// the lines.
func TestREPLTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the coderag binary")
	}
	bin := testutil.Binary(t)
	root := askFixture(t)
	home := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "CODERAG_HOME="+home, "LLM_BASE_URL=", "LLM_MODEL=", "LLM_API_KEY=",
		"EMBEDDING_PROVIDER=", "TERM=xterm")
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 250})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	scr := &screen{}
	copied := make(chan struct{})
	go func() { io.Copy(scr, ptmx); close(copied) }()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
	}()
	send := func(s string) {
		t.Helper()
		if _, err := ptmx.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	const wait = 30 * time.Second
	scr.expect(t, "/help for commands", wait)
	scr.expect(t, "coderag> ", wait)

	send("/index " + root + "\r")
	scr.expect(t, "chunks: ", wait)
	scr.expect(t, "project: "+root, wait)
	scr.expect(t, "coderag> ", wait)

	send("/search exponential backoff\r")
	scr.expect(t, "retry/retry.go:", wait)
	scr.expect(t, "coderag> ", wait)

	send("/graph Retry\r")
	scr.expect(t, "Graph of Retry", wait)
	scr.expect(t, "1 call to builtins and other packages not listed", wait)
	scr.expect(t, "coderag> ", wait)

	// Tab completes a command's name
	send("/gre\t")
	scr.expect(t, "/grep ", wait)
	send("Retry\r")
	scr.expect(t, "retry/retry.go", wait)
	scr.expect(t, "coderag> ", wait)

	// Ctrl-C discards the line being typed.
	send("/search half typed")
	scr.expect(t, "half typed", wait)
	send("\x03")
	scr.expect(t, "^C", wait)
	send("/help\r")
	scr.expect(t, "/graph NAME", wait)
	// the command's first line starts at column 0: the echoed line's
	// newline, written in raw mode, is followed by a carriage return
	if raw := scr.raw(); !regexp.MustCompile(`/help\r?\n\r(\x1b\[[0-9;?]*[A-Za-z])*/index \[path\]`).MatchString(raw) {
		i := strings.LastIndex(raw, "/help")
		t.Errorf("first line after /help does not start at column 0: %q", raw[i:min(len(raw), i+60)])
	}
	scr.expect(t, "coderag> ", wait)

	send("where does the server start\r")
	scr.expect(t, "no chat model configured", wait)
	scr.expect(t, "server/server.go:", wait)
	scr.expect(t, "coderag> ", wait)

	send("/exit\r")
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, scr.text())
		}
	case <-time.After(wait):
		t.Fatalf("REPL did not exit\n%s", scr.text())
	}
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	if strings.Contains(scr.text(), "half typed\n") || strings.Contains(scr.text(), "no results for \"half typed\"") {
		t.Errorf("the interrupted line was run:\n%s", scr.text())
	}
	if os.Getenv("CODERAG_SHOW_SCREEN") != "" {
		t.Log(scr.text())
	}
	hist, err := os.ReadFile(filepath.Join(home, "history"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(hist), "/search exponential backoff\n") || strings.Contains(string(hist), "half typed") {
		t.Errorf("history file:\n%s", hist)
	}
}
