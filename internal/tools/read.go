package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/coderag/coderag/internal/lines"
	"github.com/coderag/coderag/internal/walk"
)

// Read limits.
const (
	// DefaultReadLimit is the number of lines Read returns when Limit is 0.
	DefaultReadLimit = 200
	// MaxReadLimit caps Limit so one call cannot flood a context window.
	MaxReadLimit = 2000
	// MaxReadLineChars is the length (bytes, cut on a rune boundary) beyond
	// which a line is clipped in Read output, followed by a marker.
	MaxReadLineChars = 2000
	// MaxReadScanBytes is how much of a file Read looks at (64 MiB): lines
	// are counted, and can be read, only in that prefix.
	MaxReadScanBytes = 64 << 20
)

// ReadParams are the arguments of read_file.
type ReadParams struct {
	Path   string `json:"path" jsonschema:"file to read, relative to the project root (or absolute inside it)"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of lines to return (default 200, at most 2000)"`
	// AllowSecrets reads files whose names look like secrets
	// (walk.SecretName), refused with ErrSecret otherwise. Set by the
	// front end from its configuration, never by a model.
	AllowSecrets bool `json:"-"`
}

// ReadResult is one window of a text file.
type ReadResult struct {
	Path       string `json:"path"`        // root-relative, '/' separators
	Offset     int    `json:"offset"`      // 1-based first line returned
	Limit      int    `json:"limit"`       // effective limit
	TotalLines int    `json:"total_lines"` // lines in the file (lines package rules)
	// TotalAtLeast: the file is longer than MaxReadScanBytes and TotalLines
	// counts only the lines in that prefix.
	TotalAtLeast bool     `json:"total_at_least,omitempty"`
	Remaining    int      `json:"remaining"`   // lines after the window
	NextOffset   int      `json:"next_offset"` // offset of the next window; 0 at end of file
	Lines        []string `json:"lines"`       // the window, BOM and '\r' removed, long lines clipped
	Text         string   `json:"text"`        // numbered rendering ("%6d\t%s") plus a status line
}

// readScanCap is MaxReadScanBytes; tests lower it.
var readScanCap int64 = MaxReadScanBytes

// Read returns lines [Offset, Offset+Limit) of the file at p.Path under root.
// Offset defaults to 1 and Limit to DefaultReadLimit (capped at MaxReadLimit).
// Line counting follows internal/lines: "a\nb\nc\n" and "a\nb\nc" both have
// 3 lines, CRLF is shown without '\r', a UTF-8 BOM does not shift line 1.
// Lines longer than MaxReadLineChars are clipped with a marker, invalid UTF-8
// is replaced with U+FFFD.
//
// The file is streamed, not loaded: memory is the window (at most
// MaxReadLimit lines of MaxReadLineChars bytes) plus a 64 KiB buffer, and
// lines are counted only in the first MaxReadScanBytes; past that,
// TotalLines is a lower bound (TotalAtLeast) and later lines cannot be read.
// Only a regular file is read, opened through os.Root (see walk.OpenRegular):
// a FIFO is refused without blocking, and a path swapped for a symlink that
// leads out after the check is refused at open.
//
// Errors: ErrOutsideRoot (`..`, absolute paths elsewhere, symlinks pointing
// out), ErrNotFound, ErrIsDir, ErrSecret (a secret-looking name, asked or
// led to by a symlink, without p.AllowSecrets), walk.ErrNotRegular, ErrBinary, and
// ErrOffsetPastEnd when Offset > TotalLines (offset 1 of an empty file is
// allowed and returns no lines).
func Read(ctx context.Context, root string, p ReadParams) (*ReadResult, error) {
	return read(ctx, root, p, false)
}

// ReadIndexed is Read limited to the files an index run would take: the
// file (the one a symlink inside the root leads to) must pass the path
// rules of walk.Rules with the index's options (no hidden or skipped
// directory such as .git/, not ignored by .gitignore or .coderagignore, a
// language coderag indexes), else ErrNotIndexed. For servers that show a
// project to others: dot-env files, ignored keys and .git/config stay
// unread. A root that is a symbolic link is refused (recordedRoot). The
// other errors are Read's, checked first.
func ReadIndexed(ctx context.Context, root string, p ReadParams) (*ReadResult, error) {
	if err := recordedRoot(root); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return read(ctx, root, p, true)
}

func read(ctx context.Context, root string, p ReadParams, indexed bool) (*ReadResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, fmt.Errorf("read: empty path: %w", ErrNotFound)
	}
	t, err := Confine(root, p.Path)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	defer t.Close()
	shown := walk.DisplayPath(t.asked)
	if t.info.IsDir() {
		return nil, fmt.Errorf("read %s: %w (use glob_files to list it)", shown, ErrIsDir)
	}
	if !p.AllowSecrets && (walk.SecretName(t.asked) || walk.SecretName(t.rel)) {
		return nil, fmt.Errorf("read %s: %w (set CODERAG_ALLOW_SECRETS=1 or pass --allow-secrets to read it)", shown, ErrSecret)
	}
	if indexed && !walk.NewRules(t.root, walk.Options{}).Candidate(t.rel, nil).OK {
		return nil, fmt.Errorf("read %s: %w: only files the index takes can be read here (not hidden or ignored, in a language coderag indexes)", shown, ErrNotIndexed)
	}
	f, _, err := t.OpenRegular(t.rel)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", shown, err)
	}
	defer f.Close()

	offset, limit := p.Offset, p.Limit
	if offset <= 0 {
		offset = 1
	}
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	if limit > MaxReadLimit {
		limit = MaxReadLimit
	}
	end := offset - 1 + limit // last line of the window
	br := bufio.NewReaderSize(io.LimitReader(f, readScanCap), 64<<10)
	if head, _ := br.Peek(walk.BinarySniffBytes); walk.IsBinary(head) {
		return nil, fmt.Errorf("read %s: %w", shown, ErrBinary)
	}
	res := &ReadResult{Path: shown, Offset: offset, Limit: limit}
	var (
		total   int    // lines seen
		scanned int64  // bytes consumed
		cur     []byte // the current line's first MaxReadLineChars+2 bytes, a BOM's more on line 1
		curLen  int    // the current line's length so far
		lastCR  bool   // the current line's last byte so far is '\r'
	)
	keep := func(b []byte) {
		// room for a whole line of MaxReadLineChars bytes after a BOM is
		// cut from line 1 (keeping 2 bytes fewer lost its last byte)
		if room := MaxReadLineChars + 2 + len(lines.BOM) - len(cur); room > 0 {
			cur = append(cur, b[:min(len(b), room)]...)
		}
		curLen += len(b)
		if len(b) > 0 {
			lastCR = b[len(b)-1] == '\r'
		}
	}
	// endLine closes the current line; final means it had no '\n'.
	endLine := func(final bool) {
		n := curLen
		if lastCR {
			n-- // CRLF, or a lone '\r' at the end of the file
		}
		if total == 0 && n >= len(lines.BOM) && string(cur[:min(len(cur), len(lines.BOM))]) == lines.BOM {
			cur, n = cur[len(lines.BOM):], n-len(lines.BOM)
		}
		if !(final && n == 0) {
			total++
			if total >= offset && total <= end {
				line := string(cur[:min(len(cur), n)])
				if n > MaxReadLineChars {
					line = fmt.Sprintf("%s… [line clipped, %d bytes total]", clipRunes(line, MaxReadLineChars), n)
				}
				res.Lines = append(res.Lines, validUTF8(line))
			}
		}
		cur, curLen, lastCR = cur[:0], 0, false
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk, err := br.ReadSlice('\n')
		scanned += int64(len(chunk))
		if len(chunk) > 0 && chunk[len(chunk)-1] == '\n' {
			keep(chunk[:len(chunk)-1])
			endLine(false)
		} else {
			keep(chunk)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if scanned >= readScanCap {
				if more, _ := f.Read(make([]byte, 1)); more > 0 {
					res.TotalAtLeast = true // and the last line read is cut: not counted
					break
				}
			}
			if curLen > 0 {
				endLine(true)
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", shown, err)
		}
	}
	res.TotalLines = total
	if offset > total && !(offset == 1 && total == 0) {
		if res.TotalAtLeast {
			return nil, fmt.Errorf("read %s: offset %d is past the first %d MiB (%d lines), which is all read looks at: %w",
				shown, offset, readScanCap>>20, total, ErrOffsetPastEnd)
		}
		return nil, fmt.Errorf("read %s: offset %d, file has %d lines: %w", shown, offset, total, ErrOffsetPastEnd)
	}
	end = min(total, end)
	res.Remaining = total - end
	if res.Remaining > 0 || res.TotalAtLeast {
		res.NextOffset = end + 1
	}
	var b strings.Builder
	for i, line := range res.Lines {
		fmt.Fprintf(&b, "%6d\t%s\n", offset+i, line)
	}
	switch {
	case total == 0:
		fmt.Fprintf(&b, "(%s is empty)\n", shown)
	case res.TotalAtLeast && res.Remaining > 0:
		fmt.Fprintf(&b, "(lines %d-%d of at least %d: only the first %d MiB are read; %d more there, next offset %d)\n",
			offset, end, total, readScanCap>>20, res.Remaining, res.NextOffset)
	case res.TotalAtLeast:
		fmt.Fprintf(&b, "(lines %d-%d; the file goes on past the first %d MiB, which is all read looks at)\n",
			offset, end, readScanCap>>20)
	case res.Remaining > 0:
		fmt.Fprintf(&b, "(lines %d-%d of %d; %d more, next offset %d)\n", offset, end, total, res.Remaining, res.NextOffset)
	default:
		fmt.Fprintf(&b, "(lines %d-%d of %d; end of file)\n", offset, end, total)
	}
	res.Text = b.String()
	return res, nil
}

// openError words an error of walk.OpenRegular: a path that leaves the
// root is ErrOutsideRoot (without the target), a missing one ErrNotFound.
func openError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil && strings.Contains(pe.Err.Error(), "escapes") {
		return fmt.Errorf("a symlink on the path leads out: %w", ErrOutsideRoot)
	}
	return notFound(err)
}
