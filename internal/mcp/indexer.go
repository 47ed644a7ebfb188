package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// job is the index state of one project root: at most one run at a time,
// its live progress, and the outcome of the last run. A run belongs to the
// server, not to the tool call that started it: when the call's budget
// runs out the run goes on in the background.
type job struct {
	root string

	mu        sync.Mutex
	running   bool
	done      chan struct{} // closed when the current run ends
	scope     string        // "" whole project, else the root-relative subtree
	embedder  string        // id of the running run's embedder
	started   time.Time
	progress  index.Progress
	last      *runOutcome
	freshAt   time.Time // end of the last successful whole-project run
	freshEmb  string    // embedder id of that run
	lastLogAt int       // progress.Done when progress was last logged
}

// runOutcome is how a finished run ended.
type runOutcome struct {
	Scope    string
	Embedder string
	Started  time.Time
	Ended    time.Time
	Report   *index.Report
	Err      error
}

// jobState is a consistent copy of a job for reporting.
type jobState struct {
	Running  bool
	Scope    string
	Embedder string
	Started  time.Time
	Progress index.Progress
	Last     *runOutcome
}

// job returns the job of root, creating it.
func (s *Server) job(root string) *job {
	s.jobMu.Lock()
	defer s.jobMu.Unlock()
	j := s.jobs[root]
	if j == nil {
		j = &job{root: root}
		s.jobs[root] = j
	}
	return j
}

func (j *job) state() jobState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return jobState{Running: j.running, Scope: j.scope, Embedder: j.embedder, Started: j.started, Progress: j.progress, Last: j.last}
}

// fresh reports whether a whole-project run with embedder id finished less
// than d ago and nothing is running.
func (j *job) fresh(id string, d time.Duration) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return !j.running && d > 0 && j.freshEmb == id && time.Since(j.freshAt) < d
}

// start begins an index run of j.root with emb over scope ("" for the whole
// project, else a root-relative directory) unless one is running, in which
// case the caller joins that run (joined is true). The returned channel is
// closed when the run ends; deadline is when the run's wait budget ends
// (its start plus Config.IndexBudget), shared by every caller that joins
// it, so a call arriving during a long background run answers at once.
func (s *Server) start(j *job, emb embed.Embedder, scope string) (done <-chan struct{}, deadline time.Time, joined bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.running {
		return j.done, j.started.Add(s.cfg.IndexBudget), true
	}
	j.running, j.done, j.scope, j.embedder = true, make(chan struct{}), scope, emb.ID()
	j.started, j.progress, j.lastLogAt = time.Now(), index.Progress{Phase: "scan"}, 0
	ch := j.done
	s.bg.Add(1)
	go s.runIndex(j, emb, scope, ch)
	return ch, j.started.Add(s.cfg.IndexBudget), false
}

// runIndex is the body of one run; it ends by recording the outcome and
// closing done.
func (s *Server) runIndex(j *job, emb embed.Embedder, scope string, done chan struct{}) {
	defer s.bg.Done()
	out := &runOutcome{Scope: scope, Embedder: emb.ID(), Started: time.Now()}
	defer func() {
		if r := recover(); r != nil {
			out.Err = fmt.Errorf("index run panicked: %v", r)
		}
		out.Ended = time.Now()
		j.mu.Lock()
		j.running, j.last = false, out
		if out.Err == nil && scope == "" {
			j.freshAt, j.freshEmb = out.Ended, out.Embedder
		}
		j.mu.Unlock()
		close(done)
		if out.Err != nil {
			s.log.Warn("index run failed", "root", j.root, "scope", scope, "error", out.Err)
		} else {
			r := out.Report
			s.log.Info("index run done", "root", j.root, "scope", scope, "changed", r.Changed, "unchanged", r.Unchanged,
				"removed", r.Removed, "failed", r.Failed, "elapsed", r.Elapsed.Round(time.Millisecond))
		}
	}()
	opts := s.cfg.Index
	opts.Progress = func(p index.Progress) {
		j.mu.Lock()
		j.progress = p
		logIt := p.Done-j.lastLogAt >= 100 || (p.Done == p.Total && p.Done != j.lastLogAt)
		if logIt {
			j.lastLogAt = p.Done
		}
		j.mu.Unlock()
		if logIt {
			s.log.Debug("indexing", "root", j.root, "done", p.Done, "total", p.Total, "scanned", p.Scanned)
		}
	}
	if scope != "" {
		paths, err := subtreeFiles(s.life, j.root, scope)
		if err != nil {
			out.Err = err
			return
		}
		opts.Paths = paths
	}
	s.log.Info("index run start", "root", j.root, "scope", scope, "embedder", emb.ID())
	opts.OnWait = func(msg string) { s.log.Warn(msg, "root", j.root) } // another process holds the project's lock
	out.Report, out.Err = index.Run(s.life, s.cfg.Store, emb, j.root, opts)
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

// wait waits for done until deadline, sending MCP progress notifications
// every second when the client asked for them. It reports whether the run
// finished; a cancelled call returns ctx.Err() and leaves the run going.
func (s *Server) wait(ctx context.Context, req *sdk.CallToolRequest, j *job, done <-chan struct{}, deadline time.Time) (bool, error) {
	select {
	case <-done:
		return true, nil
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var token any
	if req != nil && req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	for {
		select {
		case <-done:
			return true, nil
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		case <-tick.C:
			if token == nil || req.Session == nil {
				continue
			}
			st := j.state()
			msg := fmt.Sprintf("indexing %s: %s", j.root, progressLine(st))
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token,
				Progress: float64(st.Progress.Done), Total: float64(st.Progress.Total), Message: msg})
			if err != nil {
				s.log.Debug("progress notification failed", "error", err)
			}
		}
	}
}

// progressLine says where a running job is, in one line.
func progressLine(st jobState) string {
	p := st.Progress
	el := time.Since(st.Started).Round(time.Second)
	if p.Phase == "scan" || p.Phase == "" {
		return fmt.Sprintf("scanning files (%s elapsed)", el)
	}
	return fmt.Sprintf("%d/%d changed files indexed, %d files scanned (%s elapsed)", p.Done, p.Total, p.Scanned, el)
}

// refresh brings root's index up to date before a query: an unindexed root is
// indexed with the configured embedder, an indexed one is refreshed
// incrementally with the embedder it was built with (unless a run finished
// within Config.Freshness). It waits until the run's budget ends (see start). The note,
// when not empty, tells the model the results may be incomplete or stale.
// An error means the project cannot be searched at all.
func (s *Server) refresh(ctx context.Context, req *sdk.CallToolRequest, root string) (note string, err error) {
	var emb embed.Embedder
	p, err := s.cfg.Store.GetProject(ctx, root)
	switch {
	case errors.Is(err, store.ErrNotIndexed):
		emb, err = s.cfg.NewEmbedder()
		if err != nil {
			return "", fmt.Errorf("cannot index %s: embedder: %w", root, err)
		}
	case err != nil:
		return "", fmt.Errorf("read index: %w", err)
	default:
		emb, err = s.queryEmbedder(p.Embedder)
		if err != nil {
			return "", err
		}
	}
	j := s.job(root)
	if j.fresh(emb.ID(), s.cfg.Freshness) {
		return "", nil
	}
	done, deadline, _ := s.start(j, emb, "")
	finished, err := s.wait(ctx, req, j, done, deadline)
	if err != nil {
		return "", err
	}
	st := j.state()
	if !finished {
		return fmt.Sprintf("Note: indexing %s is still running in the background (%s); these results cover only what is indexed so far. Call index_status to follow it, or use grep_code meanwhile.",
			root, progressLine(st)), nil
	}
	if st.Last != nil && st.Last.Err != nil {
		if p == nil {
			return "", fmt.Errorf("indexing %s failed: %w", root, st.Last.Err)
		}
		return fmt.Sprintf("Note: refreshing the index failed (%s); results may be stale.", oneLine(st.Last.Err.Error())), nil
	}
	return "", nil
}

// queryEmbedder returns the (cached) embedder a project was indexed with.
func (s *Server) queryEmbedder(id string) (embed.Embedder, error) {
	s.embMu.Lock()
	defer s.embMu.Unlock()
	if e, ok := s.embs[id]; ok {
		return e, nil
	}
	e, err := s.cfg.ProjectEmbedder(id)
	if err != nil {
		return nil, fmt.Errorf("embedder %s: %w", id, err)
	}
	s.embs[id] = e
	return e, nil
}

// reportText renders a finished run for the model.
func reportText(o *runOutcome) string {
	var b strings.Builder
	r := o.Report
	what := "the whole project"
	if o.Scope != "" {
		what = o.Scope
	}
	fmt.Fprintf(&b, "Indexed %s of %s with %s in %s.\n", what, r.Project, r.Embedder, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(&b, "files: %d scanned, %d changed, %d unchanged, %d removed, %d failed, %d skipped\n",
		r.Scanned, r.Changed, r.Unchanged, r.Removed, r.Failed, r.Skipped)
	fmt.Fprintf(&b, "written: %d chunks, %d relations\n", r.Chunks, r.Relations)
	for i, f := range r.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "... and %d more failures\n", len(r.Failures)-i)
			break
		}
		fmt.Fprintf(&b, "failed: %s: %s\n", f.Path, oneLine(f.Err))
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
