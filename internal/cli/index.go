package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

func init() {
	register(command{name: "index", summary: "build or incrementally update the index of PATH (default .)", run: runIndex})
}

func runIndex(e *env, args []string) (err error) {
	fs := newFlags(e, "index", "[flags] [PATH]",
		`Index PATH: walk it (honouring .gitignore and .coderagignore), chunk every source file
with tree-sitter, embed the chunks and store everything in $CODERAG_HOME/index.db.
Unchanged files are skipped (size+mtime, then SHA-256 and embedder id). The default
embedder, local, is built in: no server, no download. Its default model is
coderag's own learned code model (a static token table trained on registry
code; docs/MODEL.md), which relates words such as "remove" and "delete";
EMBEDDING_MODEL=hashing-768-v1 selects the lexical feature-hashing embedder.
Set EMBEDDING_PROVIDER=ollama or openai for a server's model.`)
	configFlags(fs, e, "provider", "model", "base-url", "batch-size", "threads")
	asJSON := fs.Bool("json", false, `print the run report as JSON; an error as {"error": MSG} (a run whose files failed: the report with "error")`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	watch := fs.Bool("watch", false, "after indexing, watch the tree and re-index saved files; meanwhile answer this index's 'coderag search' warm (CODERAG_RESIDENT)")
	quiet := fs.Bool("quiet", false, "no progress output")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("want at most one PATH, got %d", len(pos))
	}
	dir := "."
	if len(pos) == 1 {
		if dir, err = pathArg(pos[0]); err != nil {
			return err
		}
	}
	root, err := rootrule.Resolve(dir)
	if err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	// the configured embedder (flags merged) is the run's: the engine's
	// rule for every index run; a bad one is a usage error now
	if err := e.embeddingErr(); err != nil {
		return err
	}
	// Build the Chinese dictionary's cache while the files are parsed, so
	// that the first Chinese search after the first index is fast. Once
	// the cache is there, a search reads it when it needs it: loading it
	// here was 30 ms of a no-change run on GOROOT/src.
	if !dictionaryCached(e.cfg) {
		go e.an.Dictionary()
	}
	// A project not indexed yet has every file parsed: its languages'
	// queries and the model's vocabulary index are made beside the
	// database's opening (index.Warm), at once when there is no index
	// file yet, else once the index says the project is not in it.
	wctx, stopWarm := context.WithCancel(e.ctx)
	defer stopWarm()
	warm := sync.OnceFunc(func() {
		if emb, err := e.newEmbedder(); err == nil {
			index.Warm(wctx, root, emb, e.cfg.AllowSecrets)
		}
	})
	if exists, err := store.Exists(e.cfg.DBPath()); err == nil && !exists {
		warm()
	}
	eng, release, err := openEngineFor(e, true)
	if err != nil {
		return err
	}
	defer release()
	if err := eng.CheckRoot(e.ctx, root); err != nil {
		return fmt.Errorf("index %s: %w", dir, err)
	}
	if eng.ReadOnly() {
		return fmt.Errorf("%s is read-only: cannot index (check the permissions of CODERAG_HOME)", eng.StorePath())
	}
	if _, err := eng.Find(e.ctx, root, false); errors.Is(err, store.ErrNotIndexed) {
		warm()
		if p, err := eng.Find(e.ctx, filepath.Dir(root), true); err == nil {
			fmt.Fprintf(e.stderr, "note: %s is inside the indexed project %s; it becomes a project of its own, and its files stay in %s too (`coderag remove %s` undoes it)\n", root, p.Path, p.Path, shellQuote(root))
		}
	}
	// no Embedder: the engine's rule for an index run, the configured one
	req := engine.IndexRequest{
		OnWait:   func(msg string) { fmt.Fprintln(e.stderr, "note: "+msg) },
		OnSwitch: func(old, next string) { fmt.Fprintln(e.stderr, "note: "+switchNote(root, old, next)) }}
	var prog *progress
	if !*quiet {
		prog = newProgress(e.stderr)
	}
	restoreGC := scanGC()
	req.Progress = func(pr index.Progress) {
		if pr.Phase == "index" {
			restoreGC() // files are read: memory is the pipeline's now
		}
		if prog != nil {
			prog.update(pr)
		}
	}
	rep, err := indexNow(e, eng, root, req)
	restoreGC()
	if prog != nil {
		prog.finish()
	}
	if err != nil {
		if errors.Is(err, e.ctx.Err()) {
			// jsonError writes nothing for an interrupt: with --json the
			// report of what was committed is the one object on stdout
			msg := "interrupted before any file was committed"
			if rep != nil {
				// with the run's embedder: run with the default's, the rest
				// of a change of embedder would be undone
				msg = fmt.Sprintf("interrupted after %s %s committed; run `%scoderag index %s` again to finish", english.Counted(rep.Changed, "changed file"), english.Agree(rep.Changed, "was", "were"), search.EmbedderEnv(rep.Embedder), dir)
				fmt.Fprintln(e.stderr, msg)
			}
			if *asJSON {
				writeJSON(e.stdout, indexJSON{Report: rep, Error: msg, Interrupted: true})
			}
		}
		return err
	}
	var failed error
	if rep.Failed > 0 && !*watch {
		failed = fmt.Errorf("%s failed and %s previous index rows; %s retried on the next run", english.Counted(rep.Failed, "file"),
			english.Agree(rep.Failed, "keeps its", "keep their"), english.Agree(rep.Failed, "it is", "they are"))
	}
	if *asJSON {
		// the report is the one JSON object: a failure is its "error"
		out := indexJSON{Report: rep}
		if failed != nil {
			out.Error = e.jsonMessage(failed)
			failed = jsonReported{failed}
		}
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		printReport(e.stdout, rep)
	}
	if *watch {
		req.Progress, req.OnSwitch = nil, nil
		return watchLoop(e, eng, root, req)
	}
	return failed
}

// indexJSON is `index --json`: the run's report and, when files failed
// (the exit status is then 1), the error line in "error", as a failing
// command's {"error": MSG}.
type indexJSON struct {
	*index.Report
	// Error is the line the run fails with (stderr has it after "coderag
	// index: "), or says how far an interrupted run got; omitted when no
	// file failed.
	Error string `json:"error,omitempty"`
	// Interrupted is set when the run was stopped (Ctrl-C, SIGTERM): the
	// counts are what it committed, and the exit status is 130 or 143.
	Interrupted bool `json:"interrupted,omitempty"`
}

// scanGCPercent is the collector's GOGC while an index run scans (see
// scanGC).
const scanGCPercent = 400

// scanGC sets the collector's target to scanGCPercent and returns the
// function that sets it back (once; later calls do nothing). A run's scan
// allocates a few MB that stay live until it ends (the tree listing, the
// fingerprints, the file list: 7 MB on GOROOT/src) and at the collector's
// first targets (4, then 7 MB) it ran twice in a no-change run, a tenth
// of its CPU counting the assists (perf); at 400 it runs at most once.
// runIndex sets it back when the first changed file has been read, so a
// run that indexes files does so at the default, and peak memory is the
// pipeline's, as before: 5x a scan's live heap is far below it (a no-change
// run on GOROOT/src peaked at 37 MiB against 38).
func scanGC() (restore func()) {
	old := debug.SetGCPercent(scanGCPercent)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(old) }) }
}

// switchNote says that every file of root is embedded again because the
// project was indexed with embedder old and this run uses next (ids), and
// how to keep the old one when it was the built-in hashing embedder.
func switchNote(root, old, next string) string {
	n := fmt.Sprintf("%s was indexed with %s; every file is embedded again with %s", root, old, next)
	if p, m := embed.ParseID(old); p == "local" && strings.HasPrefix(m, "hashing-") {
		n += fmt.Sprintf(" (to keep the feature-hashing embedder instead: EMBEDDING_MODEL=%s)", m)
	}
	return n
}

// indexNow runs req over root as the root's index job and waits for it;
// the report comes back with the run's error (or ctx's, when interrupted:
// then it holds what was committed).
func indexNow(e *env, eng *engine.Engine, root string, req engine.IndexRequest) (*index.Report, error) {
	out, err := eng.Index(e.ctx, root, req)
	if out == nil {
		return nil, err
	}
	if err == nil {
		err = out.Err
	}
	return out.Report, err
}

func printReport(w io.Writer, rep *index.Report) {
	fmt.Fprintf(w, "indexed %s with %s\n", walk.DisplayPath(rep.Project), rep.Embedder)
	touched := ""
	if rep.Touched > 0 {
		// the progress lines counted them among the files to index
		touched = fmt.Sprintf(" (%d read again: content the same)", rep.Touched)
	}
	fmt.Fprintf(w, "files: %d scanned, %d changed, %d unchanged%s, %d removed, %d failed, %d skipped\n",
		rep.Scanned, rep.Changed, rep.Unchanged, touched, rep.Removed, rep.Failed, rep.Skipped)
	fmt.Fprintf(w, "chunks: %d, relations: %d written in %s", rep.Chunks, rep.Relations, rep.Elapsed.Round(time.Millisecond))
	if rep.Waited > 0 {
		fmt.Fprintf(w, " (after waiting %s for another run of it)", rep.Waited.Round(time.Millisecond))
	}
	fmt.Fprintln(w)
	if rep.ModelChanged {
		fmt.Fprintf(w, "note: %s\n", index.ModelChangedNote(rep.Embedder))
	}
	if rep.Reused > 0 {
		fmt.Fprintf(w, "note: %d of those chunks kept their stored vectors (their text had not changed): not sent to the embedder again\n", rep.Reused)
	}
	if rep.Reread > 0 {
		fmt.Fprintf(w, "note: %d of the changed files did not change themselves: they were parsed again because the declarations or C++ sources of their directory did\n", rep.Reread)
	}
	if rep.Reanalysed > 0 {
		fmt.Fprintf(w, "note: %s with Chinese text re-embedded because the text analysis changed (CC-CEDICT installed or removed, or a new glossary)\n", english.Counted(rep.Reanalysed, "file"))
	}
	for i, f := range rep.Failures {
		if i == 10 {
			fmt.Fprintf(w, "failed: ... and %d more (see --json)\n", len(rep.Failures)-i)
			break
		}
		fmt.Fprintf(w, "failed: %s: %s\n", f.Path, oneLine(f.Err))
	}
	for i, f := range rep.Fallbacks {
		if i == 10 {
			fmt.Fprintf(w, "text fallback: ... and %d more (see --json or `coderag stats`)\n", len(rep.Fallbacks)-i)
			break
		}
		fmt.Fprintf(w, "text fallback: %s (%s): %s\n", f.Path, f.Language, f.Reason)
	}
	if len(rep.Unindexed) > 0 {
		n := 0
		for _, c := range rep.Unindexed {
			n += c
		}
		fmt.Fprintf(w, "not indexed (no language for the extension): %s%s\n", english.Counted(n, "file"), topCounts(rep.Unindexed, 8))
	}
	shown := 0
	for _, s := range rep.Skips {
		if shown == 10 {
			fmt.Fprintf(w, "skipped: ... and %d more (see --json)\n", len(rep.Skips)-shown)
			break
		}
		fmt.Fprintf(w, "skipped: %s (%s)\n", s.Path, s.Reason)
		shown++
	}
}

// progress shows a progress bar on a terminal and plain lines otherwise (a
// log or a pipe): one once the first 10 files are done (or progressEvery
// has passed), then at most one every progressEvery of the run's time, and
// the last one when every file is done: a run over tens of thousands of
// files writes a few dozen lines, not thousands.
type progress struct {
	w     io.Writer
	tty   bool
	bar   *progressbar.ProgressBar
	last  int           // files done at the last plain line
	at    time.Duration // the run's time at the last plain line
	total int
	// first is the first plain line's progress, from which later lines
	// measure the rate (see progressLine)
	first index.Progress
}

// progressEvery is the least time between two plain progress lines (the
// first and the last are not held back).
const progressEvery = 5 * time.Second

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *progress) update(pr index.Progress) {
	if pr.Total == 0 {
		return
	}
	if p.tty {
		if p.bar == nil {
			p.total = pr.Total
			p.bar = progressbar.NewOptions(pr.Total,
				progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription("indexing"),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionSetItsString("files"),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
		}
		_ = p.bar.Set(pr.Done)
		return
	}
	if pr.Phase != "index" || pr.Done == p.last {
		return
	}
	first := p.last == 0 && pr.Done >= 10
	if first || pr.Done == pr.Total || pr.Elapsed-p.at >= progressEvery {
		if first {
			p.first = pr
		}
		p.last, p.at = pr.Done, pr.Elapsed
		fmt.Fprintln(p.w, progressLine(pr, p.first))
	}
}

// progressLine is the plain progress line of an index run: files done of
// those to index, the rate so far in files per second, and while files
// remain after the first line (from), the time they take at the rate
// since that line (an estimate, rounded to the second). The first line
// has no estimate: its rate holds the run's start (the walk, the parsers'
// queries compiled once), which made "about 13s left" of a 2 s run.
func progressLine(pr, from index.Progress) string {
	secs := max(pr.Elapsed.Seconds(), 1e-3)
	line := fmt.Sprintf("processed %d/%d files to index (%.0f files/s", pr.Done, pr.Total, float64(pr.Done)/secs)
	if left, done, dt := pr.Total-pr.Done, pr.Done-from.Done, (pr.Elapsed - from.Elapsed).Seconds(); left > 0 && done > 0 && dt > 0 {
		eta := time.Duration(float64(left) / (float64(done) / dt) * float64(time.Second)).Round(time.Second)
		line += fmt.Sprintf(", about %s left", eta)
	}
	return line + ")"
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
