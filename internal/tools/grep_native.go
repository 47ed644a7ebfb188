package tools

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/coderag/coderag/internal/walk"
)

// The native engine: the walk (internal/walk, so the ignore rules are the
// project's) streams files, in walk order, to GOMAXPROCS workers while it is
// still running; results are handed on strictly in that order, and the
// workers run at most a bounded window of files ahead of the consumer, so an
// early stop (max_results) wastes little work. Each file is read into a
// reused buffer, skipped if binary, cleaned (BOM removed, CRLF folded, which
// keeps line numbers) and scanned as a whole: a required literal of the
// pattern (bytes.Index, or an ASCII-lowercased copy for (?i)) finds candidate
// lines that the regexp then checks; without one the line-mode regexp runs
// over the whole buffer.

// searchNative implements searchFunc. The walk streams files to the
// workers while it runs; results are handed on in walk order (pathLess).
func searchNative(ctx context.Context, q *query, emit func(fileHits) bool) error {
	if q.pat.never {
		return ctx.Err()
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		i int
		f walk.File
	}
	type result struct {
		i  int
		fh fileHits
	}
	window := make(chan struct{}, workers*16) // files in flight or done but not yet consumed
	jobs := make(chan job)
	results := make(chan result, workers*16)
	total := make(chan int, 1) // number of jobs, sent when the walk is done
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(jobs)
		n := 0
		send := func(f walk.File) error {
			if !q.globOK(f.Path) {
				return nil
			}
			select {
			case window <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case jobs <- job{n, f}:
				n++
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		var err error
		var large []string // files over MaxFileBytes the walk passed over
		if q.t.info.IsDir() {
			var skips []walk.Skip
			skips, err = walk.Walk(gctx, q.t.root, q.walkOptions(MaxFileBytes), send)
			for _, sk := range skips {
				switch sk.Reason {
				case walk.ReasonUnreadable:
					q.noteUnreadable(sk.Path + ": " + unreadableReason(sk.Err))
				case walk.ReasonTooLarge:
					large = append(large, sk.Path)
				case walk.ReasonTooDeep:
					q.noteSkip(&q.deep, sk.Path)
				}
			}
		} else if q.t.info.Mode().IsRegular() && q.t.info.Size() <= MaxFileBytes {
			err = send(walk.File{Path: q.t.rel, Abs: q.t.abs(), Size: q.t.info.Size()})
		}
		if err != nil {
			return err
		}
		// the large files are searched as ripgrep searches them
		// (largeMatch), so both engines name the same ones
		// (ReasonTooLarge); the results of the others are read meanwhile
		sc := newScanner(q)
		for _, p := range large {
			if err := gctx.Err(); err != nil {
				return err
			}
			if !q.globOK(p) {
				continue
			}
			switch sc.largeMatch(p) {
			case largeMatched:
				q.noteSkip(&q.largeMatched, p)
			case largeNotRead:
				q.noteSkip(&q.largeSkipped, p)
			}
		}
		total <- n
		return nil
	})
	for w := 0; w < workers; w++ {
		g.Go(func() error {
			s := newScanner(q)
			defer s.files.close()
			for j := range jobs {
				r := result{j.i, fileHits{path: j.f.Path, hits: s.file(j.f)}}
				select {
				case results <- r:
				case <-gctx.Done():
					return nil
				}
			}
			return nil
		})
	}

	pending := map[int]fileHits{}
	next, n := 0, -1
	stopped := false
	for !stopped && (n < 0 || next < n) {
		select {
		case r := <-results:
			pending[r.i] = r.fh
		case n = <-total:
		case <-gctx.Done():
			stopped = true
			continue
		}
		for fh, ok := pending[next]; ok; fh, ok = pending[next] {
			delete(pending, next)
			next++
			<-window
			if len(fh.hits) > 0 && !emit(fh) {
				stopped = true
				break
			}
		}
	}
	cancel()
	if err := parent.Err(); err != nil {
		// Do not wait for a worker stuck in one slow file: it stops
		// after that file and its result is dropped.
		go func() { _ = g.Wait() }()
		return err
	}
	werr := g.Wait()
	if werr != nil && !errors.Is(werr, context.Canceled) {
		return werr
	}
	return nil
}

// scanner is one worker's reusable state.
type scanner struct {
	q     *query
	files *fileReader
	buf   []byte
	lower []byte
	lits  [][]byte // prefilter literals, lowercased when fold
	fold  bool     // search the ASCII-lowercased copy
	kfold bool     // a folded literal has k or s, whose folds include non-ASCII runes
	next  []int
	// listed: the files are those ripgrep listed as matching (its pass
	// 2), so one over MaxFileBytes is known to match
	listed bool
}

func newScanner(q *query) *scanner {
	s := &scanner{q: q, files: newFileReader(q.fs)}
	for _, l := range q.pat.lits {
		if l.fold {
			s.fold = true
		}
	}
	for _, l := range q.pat.lits {
		b := []byte(l.s)
		if s.fold {
			// ASCII lowercasing folds only ASCII: keep the longest ASCII
			// run of the literal, which every match still contains.
			b = longestASCIIRun(b)
			if len(b) == 0 {
				s.lits = nil
				return s
			}
			for _, c := range b {
				if c|0x20 == 'k' || c|0x20 == 's' {
					s.kfold = true
				}
			}
			lowerASCII(b, b)
		}
		s.lits = append(s.lits, b)
	}
	s.next = make([]int, len(s.lits))
	return s
}

func longestASCIIRun(b []byte) []byte {
	var best []byte
	for i := 0; i < len(b); {
		if b[i] >= 0x80 {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] < 0x80 {
			j++
		}
		if j-i > len(best) {
			best = b[i:j]
		}
		i = j
	}
	return best
}

// file returns up to q.head hits of one file; unreadable files have none,
// and neither have files that grew past MaxFileBytes since the walk.
func (s *scanner) file(f walk.File) []hit {
	buf, err := s.read(f.Path)
	if errors.Is(err, errTooLarge) {
		switch {
		case s.listed: // ripgrep found a match in it (it reads up to rgMaxFileBytes)
			s.q.noteSkip(&s.q.largeMatched, f.Path)
		case s.q.t.info.IsDir(): // grown past the cap since the walk
			s.q.noteSkip(&s.q.largeSkipped, f.Path)
		}
		// a file named alone has its own note (grepFiles)
		return nil
	}
	if err != nil {
		s.q.noteUnreadable(walk.DisplayPath(f.Path) + ": " + unreadableReason(openError(err).Error()))
		return nil
	}
	if isBinary(buf) {
		return nil
	}
	buf = clean(buf)
	return s.scan(buf)
}

// unreadableReason shortens an OS error for a note: "open /x/a.py:
// permission denied" -> "permission denied".
func unreadableReason(err string) string {
	if i := strings.LastIndex(err, ": "); i >= 0 {
		return err[i+2:]
	}
	return err
}

// errTooLarge: a file is over MaxFileBytes when opened.
var errTooLarge = errors.New("larger than 2 MiB")

// read reads root-relative file rel into the scanner's buffer (see
// fileReader: regular files only, no blocking, nothing outside the root
// even if rel was swapped for a symlink since the walk), at most
// MaxFileBytes (errTooLarge beyond).
func (s *scanner) read(rel string) ([]byte, error) {
	buf, err := s.files.read(rel, s.buf, MaxFileBytes)
	if err == nil && cap(buf) > cap(s.buf) {
		s.buf = buf[:0]
	}
	return buf, err
}

// isBinary is walk.IsBinary with a vectorised search for the NUL byte.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), walk.BinarySniffBytes)], 0) >= 0
}

// clean removes a UTF-8 BOM and folds "\r\n" (and a final '\r') to '\n' in
// place, as lines.Clean does, so line numbers are unchanged.
func clean(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	i := bytes.IndexByte(b, '\r')
	if i < 0 {
		return b
	}
	w := i
	for r := i; r < len(b); r++ {
		if b[r] == '\r' && (r+1 == len(b) || b[r+1] == '\n') {
			continue
		}
		b[w] = b[r]
		w++
	}
	return b[:w]
}

// scan finds matching lines of a cleaned buffer.
func (s *scanner) scan(buf []byte) []hit {
	var hits []hit
	line, lineAt := 1, 0 // line number of offset lineAt
	add := func(start, end int) bool {
		line += bytes.Count(buf[lineAt:start], []byte{'\n'})
		lineAt = start
		hits = append(hits, hit{line: line, text: string(buf[start:end])})
		return len(hits) < s.q.head
	}
	re := s.q.pat.re
	hay := buf
	if s.lits != nil && s.fold {
		if cap(s.lower) < len(buf) {
			s.lower = make([]byte, len(buf))
		}
		hay = s.lower[:len(buf)]
		nonASCII := lowerASCII(hay, buf)
		if s.kfold && nonASCII && (bytes.Contains(buf, []byte("\u212a")) || bytes.Contains(buf, []byte("\u017f"))) {
			hay = nil // Kelvin sign or long s fold to k and s: use the regexp alone
		}
	}
	if s.lits != nil && hay != nil {
		for i := range s.next {
			s.next[i] = -2 // not yet searched
		}
		for from := 0; from <= len(buf); {
			pos := s.candidate(hay, from)
			if pos < 0 {
				break
			}
			start := bytes.LastIndexByte(buf[:pos], '\n') + 1
			end := bytes.IndexByte(buf[pos:], '\n')
			if end < 0 {
				end = len(buf)
			} else {
				end += pos
			}
			if (s.q.pat.literal || re.Match(buf[start:end])) && !add(start, end) {
				break
			}
			from = end + 1
		}
		return hits
	}
	for from := 0; from <= len(buf); {
		loc := re.FindIndex(buf[from:])
		if loc == nil {
			break
		}
		pos := from + loc[0]
		if pos == len(buf) && (len(buf) == 0 || buf[len(buf)-1] == '\n') {
			break // an empty match after the last line
		}
		start := bytes.LastIndexByte(buf[:pos], '\n') + 1
		end := bytes.IndexByte(buf[pos:], '\n')
		if end < 0 {
			end = len(buf)
		} else {
			end += pos
		}
		if !add(start, end) {
			break
		}
		from = end + 1
	}
	return hits
}

// candidate returns the first offset >= from where one of the literals
// starts, or -1.
func (s *scanner) candidate(hay []byte, from int) int {
	best := -1
	for i, l := range s.lits {
		n := s.next[i]
		if n == -1 {
			continue // no more occurrences
		}
		if n < from {
			if from > len(hay) {
				n = -1
			} else if j := bytes.Index(hay[from:], l); j >= 0 {
				n = from + j
			} else {
				n = -1
			}
			s.next[i] = n
		}
		if n >= 0 && (best < 0 || n < best) {
			best = n
		}
	}
	return best
}

// lowerASCII writes src with ASCII letters lowercased to dst (len(dst) >=
// len(src)), eight bytes at a time, and reports whether src has a non-ASCII
// byte.
func lowerASCII(dst, src []byte) bool {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	var acc uint64
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		acc |= x
		h := x &^ high                    // low 7 bits of each byte
		geA := h + (0x80-'A')*ones        // high bit set where h >= 'A'
		gtZ := h + (0x80-'Z'-1)*ones      // high bit set where h > 'Z'
		upper := (geA &^ gtZ) &^ x & high // ASCII and in 'A'..'Z'
		binary.LittleEndian.PutUint64(dst[i:], x|upper>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		acc |= uint64(c)
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
	return acc&high != 0
}

// largeMatch results: the file has a match, none, or was not read (over
// rgMaxFileBytes, unreadable, binary).
const (
	largeNone = iota
	largeMatched
	largeNotRead
)

// largeWindow is how much of a large file largeMatch scans at once, and
// largeOverlap how much of the end of one window the next one scans
// again, so that a match across a window's end is found unless it is
// longer than that.
const (
	largeWindow  = 4 << 20
	largeOverlap = 64 << 10
)

// largeMatch searches a file over MaxFileBytes (at most rgMaxFileBytes,
// read through the root, regular files only) for a match of the query's
// pattern, in windows of largeWindow bytes, without keeping the file:
// the native engine's answer to ripgrep's listing of large files that
// match (their lines are not shown either way).
func (s *scanner) largeMatch(rel string) int {
	f, info, err := walk.OpenRegular(s.q.fs, filepath.FromSlash(rel))
	if err != nil {
		return largeNotRead
	}
	defer f.Close()
	if info.Size() > rgMaxFileBytes {
		return largeNotRead
	}
	buf := make([]byte, largeWindow)
	n, err := io.ReadFull(f, buf)
	if isBinary(buf[:n]) {
		return largeNotRead
	}
	for {
		if len(s.scan(clean(slices.Clone(buf[:n])))) > 0 {
			return largeMatched
		}
		if err != nil { // io.EOF or io.ErrUnexpectedEOF: the file's end
			return largeNone
		}
		keep := min(largeOverlap, n)
		copy(buf, buf[n-keep:n])
		var m int
		m, err = io.ReadFull(f, buf[keep:])
		if m == 0 {
			return largeNone
		}
		n = keep + m
	}
}
