package store

// Run records: meta holds one row per project, key "run:" + project path,
// value JSON {"total":M,"done":false,"failed":F,"started":unix-ns,
// "ended":unix-ns,"skipped":[{"path","reason","error"}],"skipped_total":S,
// "withheld":W,"chunks":C,"mixed":true}.
// An index run writes done=false with the number of files it found before
// it writes any file (keeping the last record's chunk count), and
// done=true with the time it ended (keeping the time it started) when it
// ends; a run that crashed or is still going leaves done=false, which is
// how a search knows the project is incomplete. Projects indexed before
// this record existed have no row and count as complete.
//
// "mixed" says the project's files may carry vectors of more than one
// embedder: a run that changes the project's embedder sets it when it
// begins, every run after keeps it, and a run that ends with every vector
// of the project made by the project's embedder clears it (EndRun counts
// them). While it is set, Mixed counts the files whose vectors a search
// does not read; while it is not, it costs a search nothing.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/walk"
)

// RunState is the record of a project's last index run.
type RunState struct {
	Total   int   `json:"total"`   // files the run found to index (after the walk)
	Done    bool  `json:"done"`    // false: the run is going on, or was interrupted
	Failed  int   `json:"failed"`  // files that failed in the finished run
	Started int64 `json:"started"` // unix nanoseconds
	// Ended is when a finished run ended (unix nanoseconds); 0 while
	// Done is false, and in records written before it was kept.
	Ended int64 `json:"ended,omitempty"`
	// Skipped lists the paths the finished run passed over (unreadable,
	// too large, symlink, binary ...), at most MaxRunSkips of them;
	// SkippedTotal counts them all.
	Skipped      []Skipped `json:"skipped,omitempty"`
	SkippedTotal int       `json:"skipped_total,omitempty"`
	// Withheld counts the skips of the finished run whose names look
	// like secrets (walk.ReasonSecret): never indexed nor served.
	Withheld int `json:"withheld,omitempty"`
	// Chunks counts the project's chunks after the last finished run (0
	// in records written before it was kept); a run going on keeps it. Search reads it to size the
	// learned vector route's share (search.HybridParams.AlphaPerDecade)
	// without counting rows per query.
	Chunks int `json:"chunks,omitempty"`
	// Mixed is set while the project's files may carry vectors of another
	// embedder than the project's: from the start of a run that changes
	// the project's embedder until a run ends with none (an interrupted
	// switch, one whose embedder failed for some files). Mixed counts them.
	Mixed bool `json:"mixed,omitempty"`
}

// Skipped is one path an index run passed over and why (walk.Reason's
// text, with the error for an unreadable path).
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Err    string `json:"error,omitempty"`
}

// MaxRunSkips caps the skipped paths a run record keeps.
const MaxRunSkips = 100

// RunReport is a RunState as `stats --json` and the HTTP API print it:
// times as RFC 3339 strings in UTC, the run's length in milliseconds.
type RunReport struct {
	Total  int  `json:"total"`  // files the run found to index
	Done   bool `json:"done"`   // false: the run is going on, or was interrupted
	Failed int  `json:"failed"` // files that failed in the finished run
	// Skipped lists paths the finished run passed over, with the reason
	// (at most MaxRunSkips); SkippedTotal counts them all.
	Skipped      []Skipped `json:"skipped,omitempty"`
	SkippedTotal int       `json:"skipped_total,omitempty"`
	// Withheld counts the files withheld as secret-looking (RunState.Withheld).
	Withheld int `json:"withheld,omitempty"`
	// Started and Ended are RFC 3339 times; Ended and DurationMS are
	// omitted while the run is not done (and for records that lack them).
	Started    string `json:"started,omitempty"`
	Ended      string `json:"ended,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
}

// Report returns r in its printed form (RunReport).
func (r RunState) Report() RunReport {
	out := RunReport{Total: r.Total, Done: r.Done, Failed: r.Failed, Skipped: r.Skipped, SkippedTotal: r.SkippedTotal, Withheld: r.Withheld}
	stamp := func(ns int64) string {
		if ns == 0 {
			return ""
		}
		return time.Unix(0, ns).UTC().Format(time.RFC3339)
	}
	out.Started = stamp(r.Started)
	if r.Done && r.Ended != 0 {
		out.Ended = stamp(r.Ended)
		if r.Started != 0 && r.Ended >= r.Started {
			ms := (r.Ended - r.Started) / int64(time.Millisecond)
			out.DurationMS = &ms
		}
	}
	return out
}

// runKey is the meta key of project's run record.
func runKey(project string) string { return "run:" + project }

func (s *Store) putRun(ctx context.Context, project string, r RunState) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value=excluded.value`, runKey(project), string(b))
	if err != nil {
		return fmt.Errorf("record index run: %w", damaged(err))
	}
	return nil
}

// BeginRun records that an index run of project started with total files
// to have indexed (done=false until EndRun). The last record's chunk
// count is kept: searches during the run size the vector route's share
// by it as before the run (a record without it would change their
// ranking for the length of the run, at no change of the data version),
// and a run that changes nothing keeps it without a count (EndRun).
// switching says the run embeds with another embedder than the project's:
// the record is then Mixed until a run ends with every vector of one
// embedder, as is one whose last record was Mixed.
func (s *Store) BeginRun(ctx context.Context, project string, total int, switching bool) error {
	prev, _, err := s.LastRun(ctx, project)
	if err != nil {
		return err
	}
	return s.putRun(ctx, project, RunState{Total: total, Started: time.Now().UnixNano(), Chunks: prev.Chunks,
		Mixed: switching || prev.Mixed})
}

// EndRun records that the run of project finished: total files are meant
// to be indexed, failed of them could not be, and the paths in skipped
// were passed over (the first MaxRunSkips are kept; Withheld counts the
// secret-looking ones). The project's chunks are counted when changed
// says the run wrote or removed any, or the last record has no count;
// else the last count is kept (an unchanged tree costs no count). The start time
// BeginRun recorded is kept; without one, the run counts as started when
// it ended.
func (s *Store) EndRun(ctx context.Context, project string, total, failed int, changed bool, skipped ...Skipped) error {
	now := time.Now().UnixNano()
	started := now
	prev, ok, err := s.LastRun(ctx, project)
	if err != nil {
		return err
	}
	if ok && !prev.Done && prev.Started != 0 && prev.Started <= now {
		started = prev.Started
	}
	r := RunState{Total: total, Done: true, Failed: failed, Started: started, Ended: now, SkippedTotal: len(skipped), Chunks: prev.Chunks}
	if prev.Mixed {
		// a switch of embedder began: done only when no file is left
		// with vectors of another embedder than the project's (a failed
		// file, or an unreadable one, keeps its old vectors)
		m, err := s.countMixed(ctx, project)
		if err != nil {
			return err
		}
		r.Mixed = m.Files > 0
	}
	if changed || r.Chunks == 0 {
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM indexed_files f
			JOIN code_chunks c ON c.file_id = f.id WHERE f.project_path=?`, project).Scan(&r.Chunks); err != nil {
			return fmt.Errorf("count chunks: %w", damaged(err))
		}
	}
	for _, sk := range skipped {
		if sk.Reason == string(walk.ReasonSecret) {
			r.Withheld++
		}
	}
	r.Skipped = skipped[:min(len(skipped), MaxRunSkips)]
	return s.putRun(ctx, project, r)
}

// LastRun returns the record of project's last index run; ok is false when
// there is none (a project indexed by an older coderag).
func (s *Store) LastRun(ctx context.Context, project string) (r RunState, ok bool, err error) {
	var v string
	err = s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, runKey(project)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	if err != nil {
		return r, false, damaged(err)
	}
	if json.Unmarshal([]byte(v), &r) != nil {
		return r, false, nil // unreadable record: as if none
	}
	return r, true, nil
}

// MixedVectors describes a project whose files carry vectors of more than
// one embedder (Mixed): a change of embedder was interrupted, failed for
// some files, or is still going. A search embeds the query with the
// project's Embedder and compares it only with vectors of that embedder,
// so Files of the Total files with vectors rank by keywords alone until
// an index run embeds them again.
type MixedVectors struct {
	// Embedder is the project's embedder id, the one searches read.
	Embedder string `json:"embedder"`
	// Other names the other embedders of the vectors, comma-separated,
	// the one with most files first (one, unless a change of embedder was
	// interrupted by another); Files counts the files whose vectors are
	// not of Embedder.
	Other string `json:"other"`
	Files int    `json:"files"`
	// Total counts the project's files with vectors.
	Total int `json:"total"`
}

// Mixed reports, for a project whose run record is Mixed (a change of
// embedder began and no run has ended with every vector of one embedder
// since), how many of its files carry vectors of another embedder than
// the project's; ok is false when none does, and for a project without
// such a record. RunNotes gives it with Incomplete from one read of the
// record.
func (s *Store) Mixed(ctx context.Context, project string) (m MixedVectors, ok bool, err error) {
	n, err := s.RunNotes(ctx, project)
	if err != nil || n.Mixed == nil {
		return m, false, err
	}
	return *n.Mixed, true, nil
}

// RunNotes is what a project's last run record obliges a search or a
// report to say: the index is incomplete (Incomplete, with Indexed of
// Total files), or mixed (Mixed, nil otherwise).
type RunNotes struct {
	Incomplete     bool
	Indexed, Total int
	Mixed          *MixedVectors
}

// RunNotes reads project's run record once and gives both notes: what
// Incomplete and Mixed report. A complete, unmixed project (the common
// case) costs that one read.
func (s *Store) RunNotes(ctx context.Context, project string) (RunNotes, error) {
	var n RunNotes
	r, has, err := s.LastRun(ctx, project)
	if err != nil || !has {
		return n, err
	}
	if n.Indexed, n.Total, n.Incomplete, err = s.incomplete(ctx, project, r); err != nil {
		return RunNotes{}, err
	}
	if r.Mixed {
		m, err := s.countMixed(ctx, project)
		if err != nil {
			return RunNotes{}, err
		}
		if m.Files > 0 {
			n.Mixed = &m
		}
	}
	return n, nil
}

// countMixed counts project's files with vectors by embedder, against the
// project row's embedder (MixedVectors; Files is 0 when every vector is of
// it, and for a project without a row).
func (s *Store) countMixed(ctx context.Context, project string) (MixedVectors, error) {
	var m MixedVectors
	err := s.db.QueryRowContext(ctx, `SELECT embedder FROM projects WHERE project_path=?`, project).Scan(&m.Embedder)
	if errors.Is(err, sql.ErrNoRows) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("read project: %w", damaged(err))
	}
	return mixedOf(ctx, s.db, project, m.Embedder)
}

// mixedOf counts project's files with vectors by embedder, in one query
// of db, against embedder, the project's (MixedVectors; Files is 0 when
// every vector is of it).
func mixedOf(ctx context.Context, db *sql.DB, project, embedder string) (MixedVectors, error) {
	m := MixedVectors{Embedder: embedder}
	rows, err := db.QueryContext(ctx, `SELECT v.embedder, count(*) FROM indexed_files f
		JOIN code_vectors v ON v.file_id = f.id WHERE f.project_path=? GROUP BY v.embedder`, project)
	if err != nil {
		return m, fmt.Errorf("count vectors by embedder: %w", damaged(err))
	}
	type other struct {
		emb string
		n   int
	}
	var others []other
	err = eachRow(rows, func() error {
		var o other
		if err := rows.Scan(&o.emb, &o.n); err != nil {
			return err
		}
		m.Total += o.n
		if o.emb == m.Embedder {
			return nil
		}
		m.Files += o.n
		others = append(others, o)
		return nil
	})
	if err != nil {
		return m, fmt.Errorf("count vectors by embedder: %w", damaged(err))
	}
	// most files first, then by name
	sort.Slice(others, func(i, j int) bool {
		return others[i].n > others[j].n || others[i].n == others[j].n && others[i].emb < others[j].emb
	})
	names := make([]string, len(others))
	for i, o := range others {
		names[i] = o.emb
	}
	m.Other = strings.Join(names, ", ")
	return m, nil
}

// ProjectVectors is what Check reads of one project's vectors: the
// embedder the project records, and, when some of its files carry
// vectors of another embedder, how many (Mixed). It is counted whatever
// the run record says, so it finds a mixed index that an older coderag
// left without a record of its change of embedder.
type ProjectVectors struct {
	Root     string        `json:"root"`
	Embedder string        `json:"embedder"`
	Mixed    *MixedVectors `json:"mixed,omitempty"`
}

// ReadVectors returns, for every project of the database db, by root,
// its ProjectVectors: one count of its files' vectors by embedder per
// project (Check's, on either backend).
func ReadVectors(ctx context.Context, db *sql.DB) ([]ProjectVectors, error) {
	rows, err := db.QueryContext(ctx, `SELECT project_path, embedder FROM projects ORDER BY project_path`)
	if err != nil {
		return nil, damaged(err)
	}
	ps, err := collect(rows, func(rows *sql.Rows) (ProjectVectors, error) {
		var p ProjectVectors
		err := rows.Scan(&p.Root, &p.Embedder)
		return p, err
	})
	if err != nil {
		return nil, damaged(err)
	}
	for i, p := range ps {
		m, err := mixedOf(ctx, db, p.Root, p.Embedder)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Root, err)
		}
		if m.Files > 0 {
			ps[i].Mixed = &m
		}
	}
	return ps, nil
}

// Incomplete reports, for a project whose last index run has not finished
// (interrupted, or still going in some process) and holds fewer files than
// that run found, how many files are indexed and how many there are; ok is
// false for a complete project.
func (s *Store) Incomplete(ctx context.Context, project string) (indexed, total int, ok bool, err error) {
	r, has, err := s.LastRun(ctx, project)
	if err != nil || !has {
		return 0, 0, false, err
	}
	return s.incomplete(ctx, project, r)
}

// incomplete is Incomplete of project given its run record r.
func (s *Store) incomplete(ctx context.Context, project string, r RunState) (indexed, total int, ok bool, err error) {
	if r.Done {
		return 0, 0, false, nil
	}
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM indexed_files WHERE project_path=?`, project).Scan(&indexed); err != nil {
		return 0, 0, false, damaged(err)
	}
	return indexed, r.Total, indexed < r.Total, nil
}
