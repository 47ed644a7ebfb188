//go:build unix

package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/testutil"
)

// The tests in this file drive the real binary on hostile trees (FIFOs,
// symlinks to /dev/zero) and from directories that are not projects.

// hostileBinary returns the shared coderag binary, built once per test
// process; these tests are skipped with -short.
func hostileBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: builds and runs the coderag binary")
	}
	return testutil.Binary(t)
}

// hangLimit bounds a command that must finish; reaching it means a hang
// (the old code never finished), it is not a timing assertion.
const hangLimit = 2 * time.Minute

// runBin runs the binary with a hang guard and returns its exit code and
// output.
func runBin(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var out, errb lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("coderag %s hangs (killed after %s); stderr:\n%s", strings.Join(args, " "), hangLimit, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// hostileTree has a .gitignore symlinked to /dev/zero, FIFOs named
// .coderagignore, sub/.gitignore and pipe.go, and two Go files.
func hostileTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a.go"), "package a\n\n// Needle finds things.\nfunc Needle() {}\n")
	writeFile(t, filepath.Join(root, "sub", "b.go"), "package sub\n\n// Needle again.\nfunc Other() {}\n")
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".coderagignore", "sub/.gitignore", "pipe.go"} {
		if err := syscall.Mkfifo(filepath.Join(root, p), 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	return root
}

// TestHostileTreeCommands: index, glob, grep (both engines) and read finish
// on a tree whose ignore files are /dev/zero and FIFOs and which holds a
// FIFO named like source.
func TestHostileTreeCommands(t *testing.T) {
	t.Parallel() // a subprocess with its own environment; no t.Setenv
	bin := hostileBinary(t)
	root := hostileTree(t)
	env := serverEnv(t)
	code, out, errs := runBin(t, bin, env, "index", root)
	if code != 0 || !strings.Contains(out+errs, "ignore file not read") {
		t.Errorf("index: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runBin(t, bin, env, "glob", "--project", root, "**/*.go")
	if code != 0 || strings.TrimSpace(out) != "a.go\nsub/b.go" {
		t.Errorf("glob: exit %d\n%s%s", code, out, errs)
	}
	for _, eng := range []string{"native", "ripgrep"} {
		code, out, errs = runBin(t, bin, env, "grep", "--engine", eng, "--project", root, "Needle")
		if code != 0 || !strings.Contains(out, "a.go") || !strings.Contains(out, "sub/b.go") {
			t.Errorf("grep --engine %s: exit %d\n%s%s", eng, code, out, errs)
		}
		code, _, errs = runBin(t, bin, env, "grep", "--engine", eng, "--project", root, "--path", "pipe.go", "x")
		if code != 2 || !strings.Contains(errs, "not a regular file") {
			t.Errorf("grep --path pipe.go: exit %d, want 2 (an error, as rg's)\n%s", code, errs)
		}
	}
	code, _, errs = runBin(t, bin, env, "read", "--project", root, "pipe.go")
	if code != 1 || !strings.Contains(errs, "not a regular file (a FIFO)") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("read pipe.go: exit %d\n%s", code, errs)
	}
	code, out, errs = runBin(t, bin, env, "search", "--project", root, "Needle finds things")
	if code != 0 || !strings.Contains(out, "a.go") {
		t.Errorf("search: exit %d\n%s%s", code, out, errs)
	}
}

// rawServer is `coderag mcp` driven over raw stdio, so that the test
// controls stdin EOF and signals.
type rawServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	done  chan error
	errb  *lockedBuffer
}

func startRaw(t *testing.T, bin, dir string, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = serverEnv(t)
	cmd.Dir = dir
	s := &rawServer{cmd: cmd, lines: make(chan string, 100), done: make(chan error, 1), errb: &lockedBuffer{}}
	cmd.Stderr = s.errb
	var err error
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return s
}

func (s *rawServer) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := io.WriteString(s.stdin, msg+"\n"); err != nil {
		t.Fatal(err)
	}
}

// call sends a tools/call and returns the text of its answer.
func (s *rawServer) call(t *testing.T, id int, tool string, args map[string]any) string {
	t.Helper()
	a, _ := json.Marshal(args)
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, a))
	timeout := time.After(hangLimit)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("%s: the server ended; stderr:\n%s", tool, s.errb.String())
			}
			if strings.Contains(line, fmt.Sprintf(`"id":%d,`, id)) {
				return line
			}
		case <-timeout:
			t.Fatalf("%s: no answer (hang); stderr:\n%s", tool, s.errb.String())
		}
	}
}

func (s *rawServer) initialize(t *testing.T) {
	t.Helper()
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	<-s.lines
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wait returns when the server exits; it fails the test on a hang.
func (s *rawServer) wait(t *testing.T, what string) {
	t.Helper()
	go func() {
		for range s.lines {
		}
	}()
	select {
	case <-s.done:
	case <-time.After(hangLimit):
		t.Fatalf("the server did not exit after %s; stderr:\n%s", what, s.errb.String())
	}
}

// TestMCPHostileTreeExits: after read_file, grep_code, glob_files and
// search_code touch the FIFOs and the /dev/zero ignore file, the server
// answers each and still exits on stdin EOF, on SIGTERM and on SIGINT.
func TestMCPHostileTreeExits(t *testing.T) {
	t.Parallel() // a subprocess with its own environment; no t.Setenv
	bin := hostileBinary(t)
	root := hostileTree(t)
	for _, end := range []string{"EOF", "SIGTERM", "SIGINT"} {
		t.Run(end, func(t *testing.T) {
			s := startRaw(t, bin, t.TempDir(), "--root", root)
			s.initialize(t)
			if a := s.call(t, 2, "read_file", map[string]any{"path": "pipe.go"}); !strings.Contains(a, "not a regular file") {
				t.Errorf("read_file pipe.go: %s", a)
			}
			if a := s.call(t, 3, "grep_code", map[string]any{"pattern": "Needle"}); !strings.Contains(a, "sub/b.go") {
				t.Errorf("grep_code: %s", a)
			}
			if a := s.call(t, 4, "grep_code", map[string]any{"pattern": "x", "path": "pipe.go"}); !strings.Contains(a, "not a regular file") {
				t.Errorf("grep_code pipe.go: %s", a)
			}
			if a := s.call(t, 5, "glob_files", map[string]any{"pattern": "**"}); !strings.Contains(a, "a.go") {
				t.Errorf("glob_files: %s", a)
			}
			if a := s.call(t, 6, "search_code", map[string]any{"query": "Needle finds things"}); !strings.Contains(a, "a.go") {
				t.Errorf("search_code: %s", a)
			}
			switch end {
			case "EOF":
				s.stdin.Close()
			case "SIGTERM":
				s.cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				s.cmd.Process.Signal(syscall.SIGINT)
			}
			s.wait(t, end)
		})
	}
}

// TestMCPRefusesImplicitNonProjectRoot starts `coderag mcp` without --root
// from a temporary directory with no project marker, from the home
// directory and from /, with a client that declares no roots: read_file,
// glob_files, grep_code and search_code are refused with a message that
// says to pass --root.
func TestMCPRefusesImplicitNonProjectRoot(t *testing.T) {
	bin := hostileBinary(t)
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "secret.txt"), "TOPSECRET\n")
	writeFile(t, filepath.Join(home, ".git", "HEAD"), "ref: refs/heads/main\n") // a dotfiles repository: still home
	bare := t.TempDir()
	writeFile(t, filepath.Join(bare, "secret.txt"), "TOPSECRET\n")
	for _, dir := range []string{bare, home, "/"} {
		t.Run(strings.ReplaceAll(dir, "/", "_"), func(t *testing.T) {
			noRoots := sdk.NewClient(&sdk.Implementation{Name: "no-roots", Version: "1"},
				&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
			t.Setenv("HOME", home) // serverEnv copies the environment
			cs := connect(t, bin, noRoots, dir, legacyProtocol)
			for _, c := range []struct {
				tool string
				args map[string]any
			}{
				{"read_file", map[string]any{"path": "secret.txt"}},
				{"read_file", map[string]any{"path": "etc/passwd"}},
				{"glob_files", map[string]any{"pattern": "**"}},
				{"grep_code", map[string]any{"pattern": "TOPSECRET"}},
				{"search_code", map[string]any{"query": "secret"}},
				{"index_status", nil},
			} {
				text, isErr := call(t, cs, c.tool, c.args)
				if !isErr || !strings.Contains(text, "--root") || strings.Contains(text, "TOPSECRET") || strings.Contains(text, "root:x:0") {
					t.Errorf("%s %v from %s: error %v: %s", c.tool, c.args, dir, isErr, text)
				}
			}
		})
	}
	// a directory inside a project is served
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "go.mod"), "module p\n")
	writeFile(t, filepath.Join(proj, "pkg", "p.go"), "package pkg\n")
	noRoots := sdk.NewClient(&sdk.Implementation{Name: "no-roots", Version: "1"},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	cs := connect(t, bin, noRoots, filepath.Join(proj, "pkg"), legacyProtocol)
	mustCall(t, cs, "glob_files", map[string]any{"pattern": "*.go"}, "p.go")
}

// TestIndexHonoursSignals: a long `index` stops on SIGINT and on SIGTERM
// with exit status 130, and its database stays consistent; with --json,
// stdout is the one report object, marked interrupted, with what was
// committed and the line saying so in "error" (it was empty).
func TestIndexHonoursSignals(t *testing.T) {
	t.Parallel() // a subprocess with its own environment; no t.Setenv
	bin := hostileBinary(t)
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(strings.TrimSpace(string(out)), "src", "net")
	for _, tc := range []struct {
		sig    syscall.Signal
		asJSON bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, false}, {syscall.SIGINT, true}} {
		sig := tc.sig
		args := []string{"index", tree}
		if tc.asJSON {
			args = []string{"index", "--json", tree}
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = serverEnv(t)
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "processed ") {
		}
		cmd.Process.Signal(sig)
		go io.Copy(io.Discard, stderr)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
				t.Errorf("%v: index ended with %v, want exit status 130", sig, err)
			}
		case <-time.After(hangLimit):
			cmd.Process.Kill()
			t.Fatalf("%v: index did not stop", sig)
		}
		if !tc.asJSON {
			continue
		}
		var rep struct {
			Root        string `json:"root"`
			Changed     *int   `json:"changed"`
			Error       string `json:"error"`
			Interrupted bool   `json:"interrupted"`
		}
		dec := json.NewDecoder(&stdout)
		if err := dec.Decode(&rep); err != nil || dec.More() {
			t.Fatalf("--json, %v: stdout is not one JSON object (%v): %q", sig, err, stdout.String())
		}
		if !rep.Interrupted || rep.Changed == nil || rep.Root == "" || !strings.HasPrefix(rep.Error, "interrupted after ") {
			t.Errorf("--json, %v: report %+v, want interrupted with the committed counts and the line in error", sig, rep)
		}
	}
}
