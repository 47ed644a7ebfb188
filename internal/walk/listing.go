package walk

// The tree listing: Walk's output kept by directory, so the next walk of
// an unchanged tree reads no directory, the way git's untracked cache
// spares `git status` (Documentation/technical/index-format: "untracked
// cache"). A directory's stamp (mtime, change time, inode, size) changes
// whenever an entry is added to it, removed from it or renamed in or out
// of it; an unchanged stamp therefore means the same names, and the walk
// replays the verdicts it recorded for them. What a stamp does not cover
// is checked each time:
//   - files' sizes (the size cap) and types: each listed file is lstat'ed
//     (in parallel, bounded), and a file that vanished or changed type
//     without its directory's stamp changing makes the whole listing be
//     read again;
//   - ignore files, which are edited in place: each directory's
//     .gitignore and .coderagignore are stamped too, and a changed stamp
//     re-lists the directory and everything below it;
//   - build-output directories (build/, dist/, target/) passed over for
//     holding no source package: stamped, and decided again when theirs
//     changes.
// A stamp taken within racyWindow of the listing could hide a change in
// the same clock tick (as a racy file in git's index); it is not kept, so
// that directory is read again next time.
//
// Encoding: one row per directory entered, its data the lines of
// dirRec.encode; the header is the listing key (ListingVersion, the options, the caller's
// tag). A listing whose key differs is not used.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ListingVersion is the version of a Listing's encoding and of the rules
// it caches; bump it when Rules would list the same tree differently (a
// stored listing of another version is not used, the tree is walked).
// 2: symlinked directories and FIFOs, sockets and devices with a source
// name are skips (ReasonSymlinkDir, ReasonNotRegular). 3: more secret
// names (.envrc, .s3cfg, .boto, .my.cnf, .dev.vars, .vault-token).
const ListingVersion = 3

// racyWindow is how long after a stamp's time a listing waits before it
// trusts the stamp (coarse file-system clocks).
const racyWindow = int64(time.Second)

// nowFunc is the clock of a listing (a test moves it on, so that stamps
// it just made are not racy).
var nowFunc = time.Now

// statWorkers bounds the lstat calls List runs at once; statBatch is how
// many files a worker takes at a time (one hand-off per file cost more
// than the lstat of a cached file).
const (
	statWorkers = 8
	statBatch   = 64
)

// Listing is what List found in each directory of a tree; the next List
// given it re-reads only the directories that changed. Store it with
// Encode, read it back with DecodeListing.
type Listing struct {
	key     string
	dirs    map[string]*dirRec // by root-relative directory ("" = root)
	changed bool               // see Changed
}

// DirData is one directory of an encoded Listing: Dir is root-relative
// ("" for the root), Data opaque.
type DirData struct {
	Dir  string
	Data string
}

// dirRec is what one directory held when listed.
type dirRec struct {
	// Stamp of the directory; "" (racy, or a file in it was unreadable)
	// never matches, so the directory is read again.
	Stamp string
	// Ignores is the stamp of its ignore files.
	Ignores   string
	Entries   []entry
	Unindexed map[string]int
	Problems  []Skip // of its own ignore files
}

// entry is one name of a directory that a walk does not pass over in
// silence. K is 'f' for a file that passed the path rules (a candidate,
// or too large: lstat decides again), 's' for a skip that depends on the
// name or type only (R, E), 'd' for a subdirectory entered, 'o' for a
// build-output directory passed over, with its stamp in T.
type entry struct {
	K byte
	N string
	R Reason
	E string
	T string
}

// ListStats says what a List did.
type ListStats struct {
	Dirs     int // directories entered
	Relisted int // directories read (changed, new, under a changed ignore file)
	Statted  int // files lstat'ed instead of listed
	// IgnoreChecks counts the ignore files lstat'ed for their stamp: of a
	// directory whose own stamp is unchanged, only those its record saw
	// (one cannot appear without changing the directory's mtime)
	IgnoreChecks int
	Full         bool // no usable listing was given (or it did not hold): every directory was read
}

// Encode returns the listing's header and rows, for a store.
func (l *Listing) Encode() (string, []DirData) {
	rows := make([]DirData, 0, len(l.dirs))
	for d, rec := range l.dirs {
		rows = append(rows, DirData{Dir: d, Data: rec.encode()})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Dir < rows[j].Dir })
	return l.key, rows
}

// DecodeListing reads a listing written by Encode; nil (walk the tree)
// when there is none or a row does not decode.
func DecodeListing(header string, rows []DirData) *Listing {
	if header == "" || len(rows) == 0 {
		return nil
	}
	l := &Listing{key: header, dirs: make(map[string]*dirRec, len(rows))}
	for _, r := range rows {
		rec, ok := decodeDirRec(r.Data)
		if !ok {
			return nil
		}
		l.dirs[r.Dir] = rec
	}
	return l
}

// The row format: lines of tab-separated fields, each escaped (fieldEsc):
//
//	STAMP IGNORES          first line
//	f|d NAME               a file to lstat, a directory entered
//	s NAME REASON ERR      a skip
//	o NAME STAMP           a build-output directory passed over
//	u EXT COUNT            unindexed files by extension
//	p PATH REASON ERR      a problem of the directory's ignore files
var (
	fieldEsc   = strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n")
	fieldUnesc = strings.NewReplacer("\\\\", "\\", "\\t", "\t", "\\n", "\n")
)

func (rec *dirRec) encode() string {
	var b strings.Builder
	line := func(fields ...string) {
		for i, f := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			fieldEsc.WriteString(&b, f)
		}
		b.WriteByte('\n')
	}
	line(rec.Stamp, rec.Ignores)
	for _, e := range rec.Entries {
		switch e.K {
		case 'f', 'd':
			line(string(e.K), e.N)
		case 's':
			line("s", e.N, string(e.R), e.E)
		case 'o':
			line("o", e.N, e.T)
		}
	}
	exts := make([]string, 0, len(rec.Unindexed))
	for k := range rec.Unindexed {
		exts = append(exts, k)
	}
	sort.Strings(exts)
	for _, k := range exts {
		line("u", k, strconv.Itoa(rec.Unindexed[k]))
	}
	for _, p := range rec.Problems {
		line("p", p.Path, string(p.Reason), p.Err)
	}
	return b.String()
}

func decodeDirRec(data string) (*dirRec, bool) {
	data = strings.TrimSuffix(data, "\n")
	// mostly one entry a line: made at that size, not grown
	rec := &dirRec{}
	if n := strings.Count(data, "\n"); n > 0 {
		rec.Entries = make([]entry, 0, n)
	}
	var buf [5]string
	for i, rest := 0, data; ; i++ {
		ln, more, found := strings.Cut(rest, "\n")
		rest = more
		fs := splitFields(ln, &buf)
		if strings.Contains(ln, "\\") {
			for j := range fs {
				fs[j] = fieldUnesc.Replace(fs[j])
			}
		}
		if ok := rec.decodeLine(i, fs); !ok {
			return nil, false
		}
		if !found {
			if len(rec.Entries) == 0 {
				rec.Entries = nil // as a row of no entries always decoded
			}
			return rec, true
		}
	}
}

// splitFields is strings.Split(ln, "\t") into buf, without allocating; a
// line of more fields than buf holds gives them all (no line of the
// format has that many, so it is refused).
func splitFields(ln string, buf *[5]string) []string {
	n := 0
	for rest := ln; ; {
		f, more, found := strings.Cut(rest, "\t")
		if n == len(buf) {
			return strings.Split(ln, "\t") // too many: any count above 4 is refused
		}
		buf[n] = f
		n++
		if !found {
			return buf[:n]
		}
		rest = more
	}
}

// decodeLine adds line i of a row, split into fields, to rec; false for a
// line the format does not allow.
func (rec *dirRec) decodeLine(i int, fs []string) bool {
	if i == 0 {
		if len(fs) != 2 {
			return false
		}
		rec.Stamp, rec.Ignores = fs[0], fs[1]
		return true
	}
	switch {
	case (fs[0] == "f" || fs[0] == "d") && len(fs) == 2:
		rec.Entries = append(rec.Entries, entry{K: fs[0][0], N: fs[1]})
	case fs[0] == "s" && len(fs) == 4:
		rec.Entries = append(rec.Entries, entry{K: 's', N: fs[1], R: Reason(fs[2]), E: fs[3]})
	case fs[0] == "o" && len(fs) == 3:
		rec.Entries = append(rec.Entries, entry{K: 'o', N: fs[1], T: fs[2]})
	case fs[0] == "u" && len(fs) == 3:
		n, err := strconv.Atoi(fs[2])
		if err != nil {
			return false
		}
		if rec.Unindexed == nil {
			rec.Unindexed = map[string]int{}
		}
		rec.Unindexed[fs[1]] = n
	case fs[0] == "p" && len(fs) == 4:
		rec.Problems = append(rec.Problems, Skip{Path: fs[1], Reason: Reason(fs[2]), Err: fs[3]})
	default:
		return false
	}
	return true
}

// listingKey is the key of a listing made with opts and the caller's tag.
func listingKey(opts Options, tag string) string {
	max := opts.MaxFileBytes
	if max == 0 {
		max = MaxFileBytes
	}
	return fmt.Sprintf("v%d max=%d secrets=%t tag=%s", ListingVersion, max, opts.AllowSecrets, tag)
}

// errRelist: a file listed in an unchanged directory is gone or changed
// type; the listing cannot be trusted and the tree is listed again.
var errRelist = errors.New("listing out of date")

// List returns what Collect(ctx, root, opts) returns — the same files
// (sorted by path), the same skips in the same order, the same
// opts.Unindexed counts — and a Listing of the tree for the next call.
// Given prev (the Listing of an earlier List with the same opts and tag),
// it reads only the directories whose stamp changed (see the top of this
// file) and lstat's the files of the others. tag names anything else the
// listing depends on (the caller's version of the language table). Only
// the options of an index walk (AllowSecrets, MaxFileBytes, Unindexed)
// are cached; with any other, List is Collect and returns no Listing.
func List(ctx context.Context, root string, opts Options, tag string, prev *Listing) ([]File, []Skip, *Listing, ListStats, error) {
	if opts.AllFiles || opts.Dir != "" || opts.NoIgnore || opts.Hidden || opts.ReportDirs {
		files, skips, err := Collect(ctx, root, opts)
		return files, skips, nil, ListStats{Full: true}, err
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, nil, ListStats{}, err
	}
	key := listingKey(opts, tag)
	if prev != nil && prev.key != key {
		prev = nil
	}
	counts := opts.Unindexed
	for {
		l := &lister{ctx: ctx, root: root, opts: opts, r: NewRules(root, opts), now: nowFunc().UnixNano(),
			next: map[string]*dirRec{}, relisted: map[string]bool{}, prefix: rootPrefix(root)}
		if prev != nil {
			l.prev = prev.dirs
			// the items as the listing had them, made at that size
			// rather than grown (an item is 80 bytes, and the memory
			// is new to the process)
			n := 0
			for _, d := range prev.dirs {
				n += len(d.Entries)
			}
			l.items = make([]item, 0, n)
		}
		l.opts.Unindexed = map[string]int{}
		files, skips, err := l.run()
		if errors.Is(err, errRelist) && prev != nil {
			prev = nil
			continue
		}
		if err != nil {
			return nil, nil, nil, ListStats{}, err
		}
		for k, n := range l.opts.Unindexed {
			if counts != nil {
				counts[k] += n
			}
		}
		l.stats.Dirs = len(l.next)
		l.stats.Full = prev == nil
		changed := prev == nil || l.stats.Relisted > 0 || l.modified || len(l.next) != len(prev.dirs)
		return files, skips, &Listing{key: key, dirs: l.next, changed: changed}, l.stats, nil
	}
}

// Changed reports whether l differs from the listing List was given
// (true when none was), so a caller knows whether to store l.
func (l *Listing) Changed() bool { return l != nil && l.changed }

type lister struct {
	ctx      context.Context
	root     string
	prefix   string // root, cleaned, with one trailing '/' (childPaths); "" off Unix
	opts     Options
	r        *Rules
	now      int64 // unix ns when the listing began
	prev     map[string]*dirRec
	next     map[string]*dirRec
	relisted map[string]bool
	order    []string // directories in visit order (for ignore-file problems)
	items    []item
	stats    ListStats
	modified bool // a replayed record was updated (an output directory's stamp)
}

// item is one output of the walk, in walk order: a file, a skip, or a
// file to lstat (stat) whose verdict is decided after the walk.
type item struct {
	file File
	skip *Skip
	stat bool
}

func (l *lister) run() ([]File, []Skip, error) {
	if err := l.visit("", false); err != nil {
		return nil, nil, err
	}
	if err := l.statAll(); err != nil {
		return nil, nil, err
	}
	var files []File
	if len(l.items) > 0 {
		files = make([]File, 0, len(l.items))
	}
	var skips []Skip
	for _, it := range l.items {
		switch {
		case it.skip != nil:
			skips = append(skips, *it.skip)
		default:
			files = append(files, it.file)
		}
	}
	probs := map[string][]Skip{}
	for _, p := range l.r.m.Problems() {
		d := path.Dir(p.Path)
		if d == "." {
			d = ""
		}
		probs[d] = append(probs[d], p)
	}
	for _, d := range l.order {
		if l.relisted[d] {
			skips = append(skips, probs[d]...)
		} else {
			skips = append(skips, l.next[d].Problems...)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, skips, nil
}

// stamp is the stamp of fi: size, mtime and (on Linux) inode and change
// time; "" when either time is within racyWindow of the listing.
func (l *lister) stamp(fi fs.FileInfo) string {
	m := fi.ModTime().UnixNano()
	sys, c := sysStamp(fi)
	if m+racyWindow > l.now || c+racyWindow > l.now {
		return ""
	}
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(m, 10) + ":" + sys
}

// ignoreNames are the ignore files a directory's stamp covers, in the
// order of its Ignores field.
var ignoreNames = [...]string{".gitignore", ".coderagignore"}

// ignoreStamp stamps the ignore files of directory abs ("-" for one that
// is not there). prev is the directory's recorded stamp of them when the
// directory's own stamp is unchanged, "" otherwise: an ignore file
// recorded absent is then still absent (creating one changes the
// directory's mtime, as git's untracked cache assumes too), and only
// those recorded present are lstat'ed, for an edit.
func (l *lister) ignoreStamp(abs, prev string) string {
	was := strings.Split(prev, ";")
	if len(was) != len(ignoreNames)+1 {
		was = nil // no usable record: check every name
	}
	var b strings.Builder
	for i, name := range ignoreNames {
		if was != nil && was[i] == "-" {
			b.WriteString("-;")
			continue
		}
		l.stats.IgnoreChecks++
		fi, err := os.Lstat(filepath.Join(abs, name))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b.WriteString("-")
		case err != nil:
			b.WriteString("?" + strconv.FormatInt(l.now, 10)) // never equal again
		default:
			s := l.stamp(fi)
			if s == "" {
				s = "?" + strconv.FormatInt(l.now, 10)
			}
			b.WriteString(s)
		}
		b.WriteString(";")
	}
	return b.String()
}

// visit lists directory rel (entered), replaying its record when its stamp
// and its ignore files' are unchanged and force (an ignore file above it
// changed) is not set.
func (l *lister) visit(rel string, force bool) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	abs := filepath.Join(l.root, filepath.FromSlash(rel))
	fi, serr := os.Lstat(abs)
	rec := l.prev[rel]
	same := rec != nil && serr == nil && fi.IsDir() && rec.Stamp != "" && rec.Stamp == l.stamp(fi)
	seen := ""
	if same {
		seen = rec.Ignores
	}
	ign := l.ignoreStamp(abs, seen)
	l.order = append(l.order, rel)
	if same && !force && rec.Ignores == ign {
		return l.replay(rel, rec)
	}
	childForce := force || rec == nil || rec.Ignores != ign
	return l.relist(rel, abs, fi, serr, ign, childForce)
}

// replay emits rec's verdicts for the unchanged directory rel.
func (l *lister) replay(rel string, rec *dirRec) error {
	l.next[rel] = rec
	for k, n := range rec.Unindexed {
		l.opts.Unindexed[k] += n
	}
	for i, e := range rec.Entries {
		switch e.K {
		case 'f':
			child, abs := l.childPaths(rel, e.N)
			l.items = append(l.items, item{file: File{Path: child, Abs: abs}, stat: true})
			continue
		}
		child := path.Join(rel, e.N)
		switch e.K {
		case 's':
			l.items = append(l.items, item{skip: &Skip{Path: child, Reason: e.R, Err: e.E}})
		case 'd':
			if OutputDirs[e.N] {
				// entered for holding a source package: does it still?
				fi, err := os.Lstat(filepath.Join(l.root, filepath.FromSlash(child)))
				if err != nil || !fi.IsDir() {
					return errRelist
				}
				if !l.r.Candidate(child, fs.FileInfoToDirEntry(fi)).OK {
					rec = l.own(rel, rec)
					rec.Entries[i] = entry{K: 'o', N: e.N, T: l.stamp(fi)}
					continue
				}
			}
			if err := l.visit(child, false); err != nil {
				return err
			}
		case 'o':
			fi, err := os.Lstat(filepath.Join(l.root, filepath.FromSlash(child)))
			if err != nil || !fi.IsDir() {
				return errRelist
			}
			if s := l.stamp(fi); s != "" && s == e.T {
				continue
			}
			// its content changed: is it a source package now?
			rec = l.own(rel, rec)
			if l.r.Candidate(child, fs.FileInfoToDirEntry(fi)).OK {
				rec.Entries[i] = entry{K: 'd', N: e.N}
				if err := l.visit(child, true); err != nil {
					return err
				}
			} else {
				rec.Entries[i].T = l.stamp(fi)
			}
		}
	}
	return nil
}

// rootPrefix is lister.prefix for root.
func rootPrefix(root string) string {
	if filepath.Separator != '/' || root == "" {
		return ""
	}
	return strings.TrimSuffix(filepath.Clean(root), "/") + "/"
}

// childPaths returns the root-relative and the absolute path of name, an
// entry of directory rel, as path.Join(rel, name) and
// filepath.Join(root, that) give them (a directory entry's name holds no
// separator and is not "." or ".."), the relative path a tail of the
// absolute one where the separator is '/': one string made where the
// joins made two and cleaned both (5% of a no-change run's CPU on
// GOROOT/src).
func (l *lister) childPaths(rel, name string) (child, abs string) {
	if l.prefix == "" {
		child = path.Join(rel, name)
		return child, filepath.Join(l.root, filepath.FromSlash(child))
	}
	if rel == "" {
		abs = l.prefix + name
	} else {
		abs = l.prefix + rel + "/" + name
	}
	return abs[len(l.prefix):], abs
}

// own returns a copy of rec, the record of rel, that replay may change,
// and makes it the record of the new listing.
func (l *lister) own(rel string, rec *dirRec) *dirRec {
	cp := *rec
	cp.Entries = append([]entry(nil), rec.Entries...)
	l.next[rel] = &cp
	l.modified = true
	return &cp
}

// relist reads directory rel as Walk does and records what it held; fi
// and serr are its lstat, taken before the read.
func (l *lister) relist(rel, abs string, fi fs.FileInfo, serr error, ign string, force bool) error {
	l.relisted[rel] = true
	l.stats.Relisted++
	l.r.m.load(rel)
	des, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		// as Walk: an unreadable directory is a skip; it has no record,
		// so it is read again next time
		l.items = append(l.items, item{skip: &Skip{Path: rel, Reason: ReasonUnreadable, Err: err.Error()}})
		return nil
	}
	rec := &dirRec{Ignores: ign}
	if serr == nil {
		rec.Stamp = l.stamp(fi)
	}
	l.next[rel] = rec
	for _, d := range des {
		if err := l.ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		child := path.Join(rel, name)
		if d.IsDir() {
			var pre fs.FileInfo
			if OutputDirs[name] {
				pre, _ = d.Info() // before Candidate reads it
			}
			v := l.r.Candidate(child, d)
			switch {
			case v.OK:
				rec.Entries = append(rec.Entries, entry{K: 'd', N: name})
				if err := l.visit(child, force); err != nil {
					return err
				}
			case v.Skip != "":
				l.items = append(l.items, item{skip: &Skip{Path: child, Reason: v.Skip}})
				rec.Entries = append(rec.Entries, entry{K: 's', N: name, R: v.Skip})
			case pre != nil && l.r.builtin[child]:
				rec.Entries = append(rec.Entries, entry{K: 'o', N: name, T: l.stamp(pre)})
			}
			continue
		}
		v := l.r.Candidate(child, d)
		switch {
		case v.OK:
			l.items = append(l.items, item{file: File{Path: child, Abs: filepath.Join(abs, name), Size: v.Info.Size(), ModTime: v.Info.ModTime()}})
			rec.Entries = append(rec.Entries, entry{K: 'f', N: name})
		case v.Skip != "":
			l.items = append(l.items, item{skip: &Skip{Path: child, Reason: v.Skip, Err: v.Err}})
			switch v.Skip {
			case ReasonTooLarge:
				rec.Entries = append(rec.Entries, entry{K: 'f', N: name})
			case ReasonUnreadable:
				rec.Stamp = "" // a verdict lstat cannot replay
				rec.Entries = append(rec.Entries, entry{K: 'f', N: name})
			default:
				rec.Entries = append(rec.Entries, entry{K: 's', N: name, R: v.Skip, E: v.Err})
			}
		case v.Unindexed:
			if rec.Unindexed == nil {
				rec.Unindexed = map[string]int{}
			}
			rec.Unindexed[ExtKey(name)]++
			l.opts.Unindexed[ExtKey(name)]++
		}
	}
	return nil
}

// statAll lstat's the files of unchanged directories, statWorkers at a
// time, each taking statBatch files of the listing's order at once (the
// files of a directory are together, so a worker stats them relative to
// their directory, statAt), and decides each as Walk would: a candidate,
// or too large. A file gone or no longer regular is errRelist.
func (l *lister) statAll() error {
	var idx []int
	for i, it := range l.items {
		if it.stat {
			idx = append(idx, i)
		}
	}
	l.stats.Statted = len(idx)
	// run[j]: how many files from idx[j] on share idx[j]'s directory
	// (the listing keeps a directory's files together), for statAt
	run := make([]int32, len(idx))
	for j := len(idx) - 1; j >= 0; j-- {
		run[j] = 1
		if j+1 < len(idx) && sameDir(l.items[idx[j]].file.Path, l.items[idx[j+1]].file.Path) {
			run[j] = run[j+1] + 1
		}
	}
	max := l.opts.MaxFileBytes
	if max == 0 {
		max = MaxFileBytes
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	var next atomic.Int64 // the start of the next batch in idx
	for w := 0; w < statWorkers && w*statBatch < len(idx); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := newStatAt()
			defer at.close()
			for l.ctx.Err() == nil {
				start := int(next.Add(statBatch)) - statBatch
				if start >= len(idx) {
					return
				}
				for j := start; j < min(start+statBatch, len(idx)); j++ {
					it := &l.items[idx[j]]
					size, mtime, regular, err := at.lstatRun(it.file.Abs, int(run[j]))
					if err == nil && !regular {
						err = errRelist
					}
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = errRelist
						}
						mu.Unlock()
						continue
					}
					if max > 0 && size > max {
						it.skip = &Skip{Path: it.file.Path, Reason: ReasonTooLarge}
						continue
					}
					it.file.Size, it.file.ModTime = size, mtime
				}
			}
		}()
	}
	wg.Wait()
	if err := l.ctx.Err(); err != nil {
		return err
	}
	return firstErr
}

// sameDir reports whether the slash-separated paths a and b name files of
// one directory.
func sameDir(a, b string) bool {
	i, j := strings.LastIndexByte(a, '/'), strings.LastIndexByte(b, '/')
	return i == j && a[:max(i, 0)] == b[:max(j, 0)]
}

// osLstat is statAt.lstat by os.Lstat.
func osLstat(abs string) (int64, time.Time, bool, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return 0, time.Time{}, false, err
	}
	return fi.Size(), fi.ModTime(), fi.Mode().IsRegular(), nil
}
