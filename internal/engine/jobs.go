package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// tickEvery is how often Wait reports a running job's state.
const tickEvery = time.Second

// job is the index state of one project root: at most one run at a time,
// its live progress, and the outcome of the last run. A run belongs to the
// Engine, not to the caller that started it: when the caller stops waiting
// the run goes on in the background until it ends or Close.
type job struct {
	root string

	mu        sync.Mutex
	run       *Run // the running run; nil when idle
	held      bool // Hold has the root: no run may start
	progress  index.Progress
	last      *Outcome
	freshAt   time.Time // end of the last successful whole-project run
	freshEmb  string    // embedder id of that run
	lastLogAt int       // progress.Done when progress was last logged
}

// IndexRequest says what an index run covers and with which embedder.
type IndexRequest struct {
	// Embedder embeds the chunks; nil: the configured one (NewEmbedder),
	// the rule of every index run asked for.
	Embedder embed.Embedder
	// Scope is "" for the whole project, else a root-relative '/' path of
	// a directory (its candidate files, and files deleted under it) or of
	// one file.
	Scope string
	// Paths, when set, limits the run to these root-relative files (as
	// index.Options.Paths: missing ones are removed); Scope then only
	// names the run in reports.
	Paths []string
	// Threads and BatchSize override Config.Index when positive.
	Threads, BatchSize int
	// Progress, when set, is called with the run's progress besides the
	// job's own record of it (from one goroutine at a time).
	Progress func(index.Progress)
	// OnWait, when set, is called once when another process holds the
	// project's index lock and the run waits for it.
	OnWait func(msg string)
	// OnSwitch, when set, is called by Start before a run it starts when
	// root is indexed with an embedder other than the run's: every file
	// is then embedded again (previous and next are embedder ids).
	OnSwitch func(previous, next string)
	// NoRetry sends each embedding request of the run once
	// (embed.WithoutRetry): a failed one fails its files at once, for a
	// caller that answers a user now (Freshen). A joined run keeps its own.
	NoRetry bool
}

// whole reports whether r covers the whole project.
func (r IndexRequest) whole() bool { return r.Scope == "" && r.Paths == nil }

// Run is one index run of a project root, started or joined by Start.
type Run struct {
	// Joined is true when Start found this run going and joined it
	// rather than starting one.
	Joined bool
	// Scope and Embedder describe the run ("" scope: whole project).
	Scope    string
	Embedder string
	// Started is when the run began; Deadline is Started plus the
	// engine's IndexBudget, shared by every caller that joins it.
	Started  time.Time
	Deadline time.Time

	done   chan struct{}
	cancel context.CancelFunc
	whole  bool
	out    *Outcome // set before done is closed
	orig   *Run     // for a joiner, the run it joined
}

// Done is closed when the run ends.
func (r *Run) Done() <-chan struct{} { return r.done }

// Outcome is how the run ended; nil until Done is closed.
func (r *Run) Outcome() *Outcome {
	select {
	case <-r.done:
		return r.result()
	default:
		return nil
	}
}

// Outcome is how a finished run ended: its report, or the error that
// stopped it (a cancelled run may have both).
type Outcome struct {
	Scope    string
	Embedder string
	Started  time.Time
	Ended    time.Time
	Report   *index.Report
	Err      error
	// Cancelled is true when the run was stopped (Cancel, the caller of
	// Index going away, Close) rather than failing: Err then matches
	// context.Canceled, and Done of Total changed files were written or
	// failed (what they committed stays; the report's count when there is
	// one, not the files handed to the writer).
	Cancelled   bool
	Done, Total int
}

// State is how the run ended, in one line for people: "done",
// "cancelled at 101/406" (changed files done / total), "cancelled after
// its last file (406/406): the index is complete", or "failed: " and the
// error's text.
func (o *Outcome) State() string {
	switch {
	case o.CancelledComplete():
		return fmt.Sprintf("cancelled after its last file (%d/%d): the index is complete", o.Done, o.Total)
	case o.Cancelled:
		return fmt.Sprintf("cancelled at %d/%d", o.Done, o.Total)
	case o.Err != nil:
		return "failed: " + o.Err.Error()
	}
	return "done"
}

// CancelledComplete reports a run cancelled after it had written (or
// failed) every changed file: its report counts them all, so nothing is
// left to index. Done alone does not tell: it counts the files handed to
// the writer, which a cancel may catch before their write.
func (o *Outcome) CancelledComplete() bool {
	return o.Cancelled && o.Report != nil && o.Total > 0 && o.Report.Changed+len(o.Report.Failures) >= o.Total
}

// JobState is a consistent copy of a root's index job for reporting.
type JobState struct {
	Root     string
	Running  bool
	Scope    string // of the running run
	Embedder string // of the running run
	Started  time.Time
	Progress index.Progress
	// Held is true while Hold (a Remove) has the root: runs are refused.
	Held bool
	// Last is the outcome of the last run that ended in this Engine; nil
	// when none did.
	Last *Outcome
}

// Line says where a running job is, in one line: "scanning files (3s
// elapsed)" or "12/40 changed files indexed, 900 files scanned (5s
// elapsed)".
func (s JobState) Line() string {
	p := s.Progress
	el := time.Since(s.Started).Round(time.Second)
	if p.Phase == "scan" || p.Phase == "" {
		return fmt.Sprintf("scanning files (%s elapsed)", el)
	}
	return fmt.Sprintf("%d/%d changed files indexed, %d files scanned (%s elapsed)", p.Done, p.Total, p.Scanned, el)
}

// job returns the job of root, creating it.
func (e *Engine) job(root string) *job {
	e.jobMu.Lock()
	defer e.jobMu.Unlock()
	j := e.jobs[root]
	if j == nil {
		j = &job{root: root}
		e.jobs[root] = j
	}
	return j
}

// Job returns the state of root's index job (idle, with no last run,
// for a root this Engine never indexed).
func (e *Engine) Job(root string) JobState {
	j := e.job(root)
	j.mu.Lock()
	defer j.mu.Unlock()
	st := JobState{Root: root, Progress: j.progress, Last: j.last, Held: j.held}
	if r := j.run; r != nil {
		st.Running, st.Scope, st.Embedder, st.Started = true, r.Scope, r.Embedder, r.Started
	}
	return st
}

// Fresh reports whether a whole-project run of root with embedder id ended
// successfully less than Config.Freshness ago and root is neither being
// indexed nor held (Hold).
func (e *Engine) Fresh(root, id string) bool {
	j := e.job(root)
	j.mu.Lock()
	defer j.mu.Unlock()
	d := e.cfg.Freshness
	return j.run == nil && !j.held && d > 0 && j.freshEmb == id && time.Since(j.freshAt) < d
}

// Start begins an index run of root (absolute, symlink-resolved) in the
// background unless one is running, in which case it returns that run
// with Joined set: one run per root at a time. The run lives until it ends
// or Close; wait for it with Wait or Run.Done. A request without an
// Embedder gets the configured one (NewEmbedder). Errors: the configured
// embedder cannot be built ("index ROOT: embedder: ..."), the Engine is closed, or
// ErrRemoving while Hold has root.
func (e *Engine) Start(root string, req IndexRequest) (*Run, error) {
	if e.life.Err() != nil {
		return nil, errors.New("index: engine closed")
	}
	if req.Embedder == nil {
		emb, err := e.NewEmbedder()
		if err != nil {
			return nil, fmt.Errorf("index %s: embedder: %w", root, err)
		}
		req.Embedder = emb
	}
	if req.OnSwitch != nil {
		if p, err := e.st.GetProject(context.WithoutCancel(e.life), root); err == nil && p.Embedder != req.Embedder.ID() {
			req.OnSwitch(p.Embedder, req.Embedder.ID())
		}
	}
	j := e.job(root)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.held {
		return nil, fmt.Errorf("index %s: %w", root, ErrRemoving)
	}
	if r := j.run; r != nil {
		// a joiner does not own the run: it cannot cancel it
		return &Run{Joined: true, Scope: r.Scope, Embedder: r.Embedder, Started: r.Started, Deadline: r.Deadline,
			done: r.done, cancel: func() {}, whole: r.whole, orig: r}, nil
	}
	ctx, cancel := context.WithCancel(e.life)
	now := time.Now()
	r := &Run{Scope: req.Scope, Embedder: req.Embedder.ID(), Started: now, Deadline: now.Add(e.cfg.IndexBudget),
		done: make(chan struct{}), cancel: cancel, whole: req.whole()}
	j.run, j.progress, j.lastLogAt = r, index.Progress{Phase: "scan"}, 0
	e.bg.Add(1)
	go e.runIndex(ctx, j, r, req)
	return r, nil
}

// Cancel stops the run of root going on, whoever started or joined it:
// its context is cancelled, what it committed stays, and its Outcome's
// Err matches context.Canceled once Done is closed. It returns that run, or nil
// when root is idle.
func (e *Engine) Cancel(root string) *Run {
	j := e.job(root)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.run == nil {
		return nil
	}
	j.run.cancel()
	return j.run
}

// Wait waits for r until its Deadline, calling tick (when not nil) about
// every second with root's job state. It reports whether the run ended; a
// cancelled ctx returns ctx.Err() and leaves the run going.
func (e *Engine) Wait(ctx context.Context, root string, r *Run, tick func(JobState)) (bool, error) {
	select {
	case <-r.done:
		return true, nil
	default:
	}
	timer := time.NewTimer(time.Until(r.Deadline))
	defer timer.Stop()
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return true, nil
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
			if tick != nil {
				tick(e.Job(root))
			}
		}
	}
}

// Index runs req over root and waits for it: it starts a run, or joins the
// running one when that covers the whole project (else it waits for it and
// then starts its own). When ctx ends first, a run this call started is
// cancelled and Index returns its outcome (with what it committed) and
// ctx.Err(). The outcome's Err is the run's own error.
func (e *Engine) Index(ctx context.Context, root string, req IndexRequest) (*Outcome, error) {
	for {
		r, err := e.Start(root, req)
		if err != nil {
			return nil, err
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			if r.Joined {
				return nil, ctx.Err()
			}
			r.cancel()
			<-r.done
			return r.result(), ctx.Err()
		}
		if !r.Joined || r.orig.whole {
			return r.result(), nil
		}
	}
}

// result is the outcome of a finished run, joined or not.
func (r *Run) result() *Outcome {
	if r.orig != nil {
		return r.orig.out
	}
	return r.out
}

// runIndex is the body of one run; it ends by recording the outcome and
// closing r.done.
func (e *Engine) runIndex(ctx context.Context, j *job, r *Run, req IndexRequest) {
	defer e.bg.Done()
	defer r.cancel()
	if req.NoRetry {
		ctx = embed.WithoutRetry(ctx)
	}
	out := &Outcome{Scope: req.Scope, Embedder: r.Embedder, Started: r.Started}
	defer func() {
		if p := recover(); p != nil {
			out.Err = fmt.Errorf("index run panicked: %v", p)
		}
		out.Ended = time.Now()
		j.mu.Lock()
		out.Done, out.Total = j.progress.Done, j.progress.Total
		out.Cancelled = out.Err != nil && ctx.Err() != nil && errors.Is(out.Err, context.Canceled)
		if out.Cancelled && out.Report != nil {
			// the progress counts the files handed to the writer; the
			// report, those written or failed before the cancel
			out.Done = out.Report.Changed + len(out.Report.Failures)
		}
		j.run, j.last, r.out = nil, out, out
		if out.Err == nil && r.whole {
			j.freshAt, j.freshEmb = out.Ended, out.Embedder
		}
		j.mu.Unlock()
		close(r.done)
		if out.Cancelled {
			e.log.Info("index run cancelled", "root", j.root, "scope", req.Scope, "done", out.Done, "total", out.Total)
		} else if out.Err != nil {
			e.log.Warn("index run failed", "root", j.root, "scope", req.Scope, "error", out.Err)
		} else {
			rep := out.Report
			e.log.Info("index run done", "root", j.root, "scope", req.Scope, "changed", rep.Changed, "unchanged", rep.Unchanged,
				"removed", rep.Removed, "failed", rep.Failed, "elapsed", rep.Elapsed.Round(time.Millisecond))
		}
	}()
	opts := e.cfg.Index
	if req.Threads > 0 {
		opts.Threads = req.Threads
	}
	if req.BatchSize > 0 {
		opts.BatchSize = req.BatchSize
	}
	opts.Progress = func(p index.Progress) {
		j.mu.Lock()
		j.progress = p
		logIt := p.Done-j.lastLogAt >= 100 || (p.Done == p.Total && p.Done != j.lastLogAt)
		if logIt {
			j.lastLogAt = p.Done
		}
		j.mu.Unlock()
		if logIt {
			e.log.Debug("indexing", "root", j.root, "done", p.Done, "total", p.Total, "scanned", p.Scanned)
		}
		if req.Progress != nil {
			req.Progress(p)
		}
	}
	opts.Paths = req.Paths
	if req.Paths == nil && req.Scope != "" {
		paths, err := subtreeFiles(ctx, j.root, req.Scope)
		if err != nil {
			out.Err = err
			return
		}
		opts.Paths = paths
	}
	e.log.Info("index run start", "root", j.root, "scope", req.Scope, "embedder", r.Embedder)
	opts.OnWait = func(msg string) {
		e.log.Warn(msg, "root", j.root) // another process holds the project's lock
		if req.OnWait != nil {
			req.OnWait(msg)
		}
	}
	out.Report, out.Err = index.Run(ctx, e.st, req.Embedder, j.root, opts)
	if out.Err == nil && out.Report == nil {
		out.Err = errors.New("index run returned no report")
	}
}

// subtreeFiles lists the candidate files under the root-relative directory
// dir, plus dir itself so that files deleted under it are removed. A file is
// its own list.
func subtreeFiles(ctx context.Context, root, dir string) ([]string, error) {
	if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(dir))); err == nil && !fi.IsDir() {
		return []string{dir}, nil
	}
	files, _, err := walk.Collect(ctx, root, walk.Options{Dir: dir, MaxFileBytes: -1})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	paths := make([]string, 0, len(files)+1)
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return append(paths, dir), nil
}

// Refreshed is what Refresh did before a query.
type Refreshed struct {
	// Indexed: the project had an index before the refresh.
	Indexed bool
	// Finished: the run ended within the budget (or none was needed);
	// false means it goes on in the background and State says where.
	Finished bool
	// Err is the error of a run that ended in failure.
	Err error
	// State is root's job state when Refresh returned.
	State JobState
	// Reembedded is the id of the built-in model the project was indexed
	// with when this version no longer carries it ("local:coderag-code-v4"):
	// the run embeds every file again with the configured embedder, and
	// until it ends the project cannot be searched by meaning. "" otherwise.
	Reembedded string
}

// Refresh brings root's index up to date before a query: an unindexed root
// is indexed with the configured embedder, an indexed one refreshed
// incrementally with the embedder it was built with, unless a run finished
// within Config.Freshness; one built with a built-in model this version
// no longer carries (OutdatedBuiltin: coderag was upgraded) is embedded
// again with the configured embedder, and Reembedded names the old model.
// It waits until the run's Deadline, calling tick
// as Wait does. Errors mean the project cannot be searched at all: its
// index cannot be read, no embedder can be built, an unindexed project's
// first run failed, or ctx ended.
func (e *Engine) Refresh(ctx context.Context, root string, tick func(JobState)) (Refreshed, error) {
	var emb embed.Embedder
	res := Refreshed{Finished: true}
	p, err := e.st.GetProject(ctx, root)
	switch {
	case errors.Is(err, store.ErrNotIndexed):
		emb, err = e.NewEmbedder()
		if err != nil {
			return res, fmt.Errorf("cannot index %s: embedder: %w", root, err)
		}
	case err != nil:
		return res, fmt.Errorf("read index: %w", err)
	default:
		res.Indexed = true
		emb, err = e.ProjectEmbedder(p.Embedder)
		if err != nil && OutdatedBuiltin(p.Embedder) {
			// an index of an earlier built-in model (coderag was
			// upgraded): nothing can embed its queries, so the run
			// embeds every file again with the configured embedder, as
			// `coderag index` would; the project keeps its old id until
			// that run ends without a failure (index.run.recordStart)
			res.Reembedded = p.Embedder
			if emb, err = e.NewEmbedder(); err != nil {
				return res, fmt.Errorf("cannot index %s again: embedder: %w", root, err)
			}
		}
		if err != nil {
			return res, err
		}
	}
	if e.Fresh(root, emb.ID()) {
		res.State = e.Job(root)
		return res, nil
	}
	r, err := e.Start(root, IndexRequest{Embedder: emb})
	if err != nil {
		return res, err
	}
	res.Finished, err = e.Wait(ctx, root, r, tick)
	res.State = e.Job(root)
	if err != nil {
		return res, err
	}
	if res.Finished {
		if o := r.result(); o != nil && o.Err != nil {
			if !res.Indexed {
				return res, fmt.Errorf("indexing %s failed: %w", root, o.Err)
			}
			res.Err = o.Err
		}
	}
	return res, nil
}
