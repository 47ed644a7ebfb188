package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/walk"
)

// The ripgrep engine runs in two passes, so that results are in path order
// (like the native engine) without `--sort path`, which makes rg
// single-threaded:
//
//  1. `rg --files-with-matches` (parallel) lists the matching files. rg is
//     told the walk's rules that need no ignore file (hidden files yes,
//     hidden and default-skipped directories no, --max-filesize 256M (see rgMaxFileBytes), --text
//     so that binary detection is ours) and reads no ignore file itself
//     (--no-ignore: a hostile .gitignore may be a FIFO or a symlink to
//     /dev/zero); the list is then filtered with walk.Matcher, which
//     applies every .gitignore and .coderagignore, read safely, and sorted.
//  2. the first files of that list, at most max_results+1 with a match,
//     are read here through os.Root (regular files only, never outside the
//     root, whatever was swapped in since pass 1) and scanned with the
//     native engine's scanner (binary files skipped as walk.IsBinary): rg
//     chooses the files, but every line shown comes from bytes read safely.
//
// rg gets the pattern printed from Go's parse tree (see pattern.go), so its
// matches follow Go RE2 semantics; --crlf makes `$` match before "\r\n".

// rgMaxFileBytes is the largest file ripgrep searches. Lines are shown
// only from files up to MaxFileBytes (read here, in pass 2); a larger file
// that matches is named in the result's note and makes it partial
// (ReasonTooLarge), so that a search never answers "no matches" for a
// string that sits in a large file. Files over this cap (a data dump, a
// disk image) are not read at all.
const rgMaxFileBytes = 256 << 20

// rgPath finds ripgrep; a variable so tests can hide it.
var rgPath = func() (string, error) { return exec.LookPath("rg") }

// rgCommon are the flags every rg run gets.
var rgCommon = []string{"--no-config", "--no-ignore-messages", "--text", "--crlf"}

func searchRipgrep(ctx context.Context, q *query, emit func(fileHits) bool) error {
	if q.pat.never {
		return nil
	}
	bin, err := rgPath()
	if err != nil {
		return err
	}
	if !q.t.info.IsDir() {
		// One named file is read here, as pass 2 reads: rg would open
		// whatever the path names by then (a FIFO blocks it) and would
		// search a named file of any size.
		if !q.globOK(q.t.rel) {
			return nil
		}
		sc := newScanner(q)
		defer sc.files.close()
		if hits := sc.file(walk.File{Path: q.t.rel}); len(hits) > 0 {
			emit(fileHits{path: q.t.rel, hits: hits})
		}
		return nil
	}
	args := append([]string{}, rgCommon...)
	// --no-ignore: rg reads no ignore file at all. It would follow a
	// .gitignore symlinked to /dev/zero and block on a FIFO .gitignore;
	// ruleFilter applies the project's ignore files, read safely by
	// walk.Matcher, to what rg lists.
	args = append(args, "--files-with-matches", "--null", "--no-ignore", "--hidden", "--max-filesize", strconv.Itoa(rgMaxFileBytes))
	opts := q.walkOptions(-1)
	if !opts.Hidden {
		args = append(args, "--glob", "!.*/")
	}
	if !opts.NoIgnore {
		for _, d := range sortedSkipDirs() {
			args = append(args, "--glob", "!"+d+"/")
		}
	}
	if simpleGlob(q.globS) {
		args = append(args, "--glob", q.globS)
	}
	search := "."
	if q.t.rel != "." {
		search = q.t.rel
	}
	args = append(args, "-e", q.pat.rg, "--", search)

	var files []string
	timedOut := false
	err = runRG(ctx, bin, q.t.root, args, q.noteUnreadable, func(r *bufio.Reader) error {
		for {
			p, err := r.ReadString(0)
			if p = strings.TrimSuffix(p, "\x00"); p != "" {
				files = append(files, strings.TrimPrefix(p, "./"))
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
		}
	})
	if err != nil {
		if ctx.Err() == nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return err
		}
		timedOut = true // show what was found in the time
	}
	sort.Slice(files, func(i, j int) bool { return pathLess(files[i], files[j]) })

	// Pass 2: the matching lines come from bytes read here, through the
	// query's os.Root, not from rg, which opened the files by name: a file
	// swapped for a symlink to outside after pass 1 is refused at open, and
	// rg's answer never carries file content into the result.
	f := newRuleFilter(q)
	sc := newScanner(q)
	sc.listed = true
	defer sc.files.close()
	emitted := 0
	for _, p := range files {
		if emitted >= q.files {
			break
		}
		if !f.allowed(p) || !q.globOK(p) {
			continue
		}
		hits := sc.file(walk.File{Path: p})
		if len(hits) == 0 {
			continue
		}
		emitted++
		if !emit(fileHits{path: p, hits: hits}) {
			break
		}
	}
	if timedOut {
		return context.DeadlineExceeded
	}
	return nil
}

// runRG runs rg in dir and feeds its stdout to read. Exit status 1 (no
// match) is success; status 2 with an empty stderr is too (--no-messages
// hides per-file errors, such as unreadable files, but rg still exits 2).
// Cancelling ctx kills the process; it is always waited for.
//
// rg reports a file or directory it cannot read on stderr ("rg: PATH:
// Permission denied (os error 13)") and exits 2; each such line goes to
// pathErr ("PATH: permission denied") and is not a failure when pathErr is
// set. Any other message is.
func runRG(ctx context.Context, bin, dir string, args []string, pathErr func(string), read func(*bufio.Reader) error) error {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitWriter{w: &stderr, n: 4096}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("rg: %w", err)
	}
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("rg: %w", err)
	}
	rerr := read(bufio.NewReaderSize(out, 64<<10))
	if rerr != nil {
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, out)
	}
	werr := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if rerr != nil {
		return rerr
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code := ee.ExitCode()
		if code == 1 || (code == 2 && stderr.Len() == 0) {
			return nil
		}
		if code == 2 && pathErr != nil {
			if errs, ok := rgPathErrors(stderr.String()); ok {
				for _, e := range errs {
					pathErr(e)
				}
				return nil
			}
		}
		return fmt.Errorf("rg exit %d: %s", code, strings.TrimSpace(stderr.String()))
	}
	if werr != nil {
		return fmt.Errorf("rg: %w", werr)
	}
	return nil
}

// rgPathErrors parses rg's per-path messages ("./a.py: Permission denied
// (os error 13)", with "rg: " before it in older versions) into "a.py: permission denied"; ok is false when
// some line is another kind of message.
func rgPathErrors(stderr string) ([]string, bool) {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		rest := strings.TrimPrefix(l, "rg: ") // older rg versions prefix their name
		i := strings.LastIndex(rest, ": ")
		if i < 0 || !strings.Contains(rest[i:], "(os error") {
			return nil, false
		}
		p := strings.TrimPrefix(rest[:i], "./")
		msg := strings.ToLower(strings.TrimSpace(rest[i+2 : strings.Index(rest[i:], "(os error")+i]))
		out = append(out, p+": "+msg)
	}
	return out, len(out) > 0
}

// limitWriter keeps the first n bytes written to it.
type limitWriter struct {
	w *bytes.Buffer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// simpleGlob reports whether a grep glob may be passed to rg for pruning:
// a file-name pattern (no '/') in the syntax rg and doublestar share.
func simpleGlob(g string) bool {
	if g == "" || strings.HasPrefix(g, "!") {
		return false
	}
	for _, c := range g {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.-*?", c)) {
			return false
		}
	}
	return true
}

func sortedSkipDirs() []string {
	var ds []string
	for d := range walk.SkipDirs {
		if !walk.OutputDirs[d] { // decided per directory by ruleFilter
			ds = append(ds, d)
		}
	}
	sort.Strings(ds)
	return ds
}

// ruleFilter re-applies walk's rules (walk.Rules, with the search
// directory as the walk's start) to the paths rg found: default-skipped and
// hidden directories below the search directory, and every .gitignore and
// .coderagignore from the root down.
type ruleFilter struct {
	q     *query
	rules *walk.Rules
}

func newRuleFilter(q *query) *ruleFilter {
	return &ruleFilter{q: q, rules: walk.NewRules(q.t.root, q.walkOptions(-1))}
}

// allowed reports whether the walk would list root-relative file p.
func (f *ruleFilter) allowed(p string) bool {
	if !f.q.t.info.IsDir() {
		return p == f.q.t.rel // a single file is searched as asked
	}
	// as walk.Walk: an ignored search directory yields nothing
	if f.q.dir != "" && !f.rules.Candidate(f.q.dir, fs.FileInfoToDirEntry(f.q.t.info)).OK {
		return false
	}
	return f.rules.Candidate(p, nil).OK
}

// pathLess orders '/' paths as the walk visits them: component by
// component, so "a/b/c" comes before "a/b.go" (directory "b" < "b.go").
func pathLess(a, b string) bool {
	for {
		i, j := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		ca, cb := a, b
		if i >= 0 {
			ca = a[:i]
		}
		if j >= 0 {
			cb = b[:j]
		}
		if ca != cb || i < 0 || j < 0 {
			if ca == cb {
				return i < 0 && j >= 0
			}
			return ca < cb
		}
		a, b = a[i+1:], b[j+1:]
	}
}
