package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

// Changes is the stat-only difference between a project's tree and its
// index: root-relative paths of files that are new or whose size or mtime
// differ (Changed), or that are gone (Removed). Files whose content is as
// indexed but whose rows were made by another analysis version or embedder
// are not changes here (their lines are still true; Run re-parses them),
// with one exception: a file whose vectors were made with other Chinese
// translation data than today's (see fileIDs) is Changed, so a search
// refreshes it before its vectors are compared with the query's.
type Changes struct {
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// New holds the paths of Changed that have no stored fingerprint:
	// files never indexed (added since the last run, or not reached yet
	// by an interrupted one).
	New []string `json:"-"`
	// Older counts the indexed files whose rows were made by another
	// AnalysisVersion (unchanged on disk, so not in Changed): a full
	// `coderag index` re-analyses them.
	Older int `json:"-"`
	// Listing says how the tree was listed: how many directories were
	// read again and how many files only stat'ed (see listTree).
	Listing walk.ListStats `json:"-"`
	// Indexed counts the files the index holds for the project (those
	// with a stored fingerprint): Removed equal to it in length means the
	// directory holds none of them now.
	Indexed int `json:"-"`
}

// Len is the number of files that differ.
func (c *Changes) Len() int { return len(c.Changed) + len(c.Removed) }

// Paths returns Changed and Removed together, sorted: the Options.Paths of
// a Run that brings the index up to date.
func (c *Changes) Paths() []string {
	out := append(append([]string(nil), c.Changed...), c.Removed...)
	sort.Strings(out)
	return out
}

// WithoutNew returns c without the files never indexed (c.New): the
// changes to files that have rows.
func (c *Changes) WithoutNew() *Changes {
	out := &Changes{Removed: c.Removed, Older: c.Older}
	isNew := make(map[string]bool, len(c.New))
	for _, p := range c.New {
		isNew[p] = true
	}
	for _, p := range c.Changed {
		if !isNew[p] {
			out.Changed = append(out.Changed, p)
		}
	}
	return out
}

// Has reports whether path (root-relative) is changed or removed.
func (c *Changes) Has(path string) bool {
	for _, p := range c.Changed {
		if p == path {
			return true
		}
	}
	for _, p := range c.Removed {
		if p == path {
			return true
		}
	}
	return false
}

// maxRacyBytes bounds the bytes Diff reads to settle racy stats (files
// written within racyWindow of their indexing; past it, they count as
// changed); maxDeniedChecks bounds the differing files it opens to leave
// out the unreadable ones (past it, they count as changed). The racy
// bound was 256 files: a run right after 300 files were written left 44
// of them "changed since the last index" in every search after it, with
// their results marked stale, though none had changed.
const (
	maxRacyBytes    = 64 << 20
	maxDeniedChecks = 4096
)

// listingTag ties a stored tree listing to the language table it was
// made with: lang's table changes with AnalysisVersion.
var listingTag = "analysis " + strconv.Itoa(AnalysisVersion)

// bestEffortWrite bounds how long a search's check waits to store the
// tree listing.
const bestEffortWrite = 500 * time.Millisecond

// listTree lists root as walk.Collect does with opts, from the project's
// stored tree listing (walk.List: only directories whose stamp changed are
// read), and stores the new listing when it changed and the store can be
// written. Beside a local index the listing is kept in a file
// (st.SidePath(root, "tree"), see encodeListingFile); while that file is
// missing, the store's rows (tree_dirs, written by earlier versions) are
// read, and the file is written even when the listing did not change.
// Elsewhere (PostgreSQL) the store keeps it. A listing that cannot be read
// is as none (the tree is walked); one that cannot be stored is an error
// unless bestEffort (a search's check, which only loses the saving next
// time).
func listTree(ctx context.Context, st Store, root string, opts walk.Options, bestEffort bool) ([]walk.File, []walk.Skip, walk.ListStats, error) {
	var prev *walk.Listing
	file := st.SidePath(root, "tree")
	fromFile := false
	if file != "" {
		if data, err := os.ReadFile(file); err == nil {
			if h, rows, ok := decodeListingFile(data, root); ok {
				prev, fromFile = walk.DecodeListing(h, rows), true
			}
		}
	}
	if !fromFile {
		if h, rows, err := st.TreeListing(ctx, root); err == nil && h != "" {
			data := make([]walk.DirData, len(rows))
			for i, r := range rows {
				data[i] = walk.DirData{Dir: r.Dir, Data: r.Data}
			}
			prev = walk.DecodeListing(h, data)
		}
	}
	files, skips, l, ls, err := walk.List(ctx, root, opts, listingTag, prev)
	if err != nil {
		return nil, nil, ls, err
	}
	switch {
	case st.ReadOnly():
	case file != "" && (l.Changed() || !fromFile):
		h, data := l.Encode()
		if err := writeSnapshot(file, encodeListingFile(root, h, data)); err != nil && !bestEffort {
			return nil, nil, ls, fmt.Errorf("write tree listing: %w", err)
		}
	case file == "" && l.Changed():
		h, data := l.Encode()
		rows := make([]store.DirRow, len(data))
		for i, d := range data {
			rows[i] = store.DirRow{Dir: d.Dir, Data: d.Data}
		}
		wctx, cancel := ctx, context.CancelFunc(func() {})
		if bestEffort {
			// a search does not wait long on an index run's writes
			wctx, cancel = context.WithTimeout(ctx, bestEffortWrite)
		}
		err := st.PutTreeListing(wctx, root, h, rows)
		cancel()
		if err != nil && !bestEffort {
			return nil, nil, ls, err
		}
	}
	return files, skips, ls, nil
}

// Diff lists root like Run (same ignore rules; from the project's stored
// tree listing, so only directories changed since it was made are read,
// see listTree; the new listing is stored when the store can be written,
// within bestEffortWrite) and compares every file's size and mtime with
// its stored fingerprint (from the project's fingerprint snapshot when it
// is current; read from the store, they are kept in it for the next
// check, see snapshot.go), without reading any file (up
// to maxDeniedChecks files that differ are only opened, to leave out those
// this user may not read: Run skips them as unreadable, so they are no
// pending change): the
// fast path Run uses to skip unchanged files; a file written within a
// second of its indexing is settled by its content hash (at most
// maxRacyBytes of them; past that they count as changed). emb is the
// project's embedder (nil: none is checked): a file whose fingerprint
// names another text analysis than emb's (OtherAnalysis) is changed too,
// as its vectors are (its lines are still true); allowSecrets walks as
// Options.AllowSecrets does. Errors are the walk's or the database's.
func Diff(ctx context.Context, st Store, root string, emb embed.Embedder, allowSecrets bool) (*Changes, error) {
	files, skips, ls, err := listTree(ctx, st, root, walk.Options{AllowSecrets: allowSecrets}, true)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	c := &Changes{Listing: ls}
	// The fingerprints (from the project's snapshot file when it is
	// current, see snapshot.go) are compared with the listed files by
	// their place in files: what Diff keeps of a fingerprint is its
	// stat, and its content hash when the stat cannot tell (sameStat).
	fps, err := loadFingerprints(ctx, st, root, true)
	if err != nil {
		return nil, fmt.Errorf("read fingerprints: %w", err)
	}
	c.Indexed = len(fps.recs)
	type prev struct {
		ok, stale            bool
		size, mtime, indexed int64
		sha                  string // only when the stat is racy
	}
	at := make(map[string]int, len(files))
	for i, f := range files {
		at[f.Path] = i
	}
	prevs := make([]prev, len(files))
	var gone []string
	other := otherAnalysisOf(emb)
	for _, p := range fps.recs {
		if p.Analysis != AnalysisVersion {
			c.Older++
		}
		i, ok := at[p.Path]
		if !ok {
			gone = append(gone, p.Path)
			continue
		}
		q := &prevs[i]
		*q = prev{ok: true, stale: other(p.Embedder), size: p.Size, mtime: p.MtimeNS, indexed: p.IndexedAt}
		if f := files[i]; !q.stale && p.Size == f.Size && p.MtimeNS == f.ModTime.UnixNano() && !sameStat(p, f) {
			q.sha = p.SHA256
		}
	}
	// a check writes no fingerprint: those it read from the store are
	// kept for the next check or run
	fps.saveSnapshot(ctx, st, root)
	var racy int64
	opened := 0
	for i, f := range files {
		q := prevs[i]
		if q.ok && !q.stale && sameStat(store.FileRecord{Size: q.size, MtimeNS: q.mtime, IndexedAt: q.indexed}, f) {
			continue
		}
		if q.ok && !q.stale && q.size == f.Size && q.mtime == f.ModTime.UnixNano() && racy+f.Size <= maxRacyBytes {
			// written within racyWindow of its indexing: the stat cannot
			// tell, the content hash can
			racy += f.Size
			if b, err := os.ReadFile(f.Abs); err == nil {
				if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) == q.sha {
					continue
				}
			}
		}
		if opened < maxDeniedChecks {
			opened++
			if walk.ReadDenied(f.Abs) {
				// unreadable: a run skips it and keeps what is indexed
				// of it, so it is not a change a run would bring in
				continue
			}
		}
		c.Changed = append(c.Changed, f.Path)
		if !q.ok {
			c.New = append(c.New, f.Path)
		}
	}
	// a fingerprint of no listed file is removed, unless it is under a
	// directory the walk could not read (its files are kept as indexed)
	for _, q := range gone {
		kept := false
		for _, sk := range skips {
			if sk.Reason == walk.ReasonUnreadable && (q == sk.Path || strings.HasPrefix(q, sk.Path+"/")) {
				kept = true
				break
			}
		}
		if !kept {
			c.Removed = append(c.Removed, q)
		}
	}
	sort.Strings(c.Removed)
	return c, nil
}

// otherAnalysisOf is OtherAnalysis(rec, emb) as a function of rec, its
// prefix and emb's analysis made once.
func otherAnalysisOf(emb embed.Embedder) func(rec string) bool {
	if emb == nil {
		return func(string) bool { return false }
	}
	prefix, now := emb.ID()+"+", embed.Analysis(emb)
	return func(rec string) bool {
		rest, ok := strings.CutPrefix(rec, prefix)
		return ok && rest != now
	}
}

// unchanged is Run's fast path: same embedder (and translation data, see
// fileIDs) and analysis, and sameStat.
func unchanged(p store.FileRecord, f walk.File, ids *fileIDs) bool {
	return ids.current(p.Embedder) && p.Analysis == AnalysisVersion && sameStat(p, f)
}

// sameStat: same size and mtime, and indexed well after the file was last
// written (a write in the same mtime tick could otherwise go unseen).
func sameStat(p store.FileRecord, f walk.File) bool {
	return p.Size == f.Size && p.MtimeNS == f.ModTime.UnixNano() && f.ModTime.UnixNano()+racyWindow < p.IndexedAt
}
