package tools

import (
	"context"
	"fmt"
	"os"
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
)

// ReadParams are the arguments of read_file.
type ReadParams struct {
	Path   string `json:"path" jsonschema:"file to read, relative to the project root (or absolute inside it)"`
	Offset int    `json:"offset,omitempty" jsonschema:"1-based line to start at (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"number of lines to return (default 200, at most 2000)"`
}

// ReadResult is one window of a text file.
type ReadResult struct {
	Path       string   `json:"path"`        // root-relative, '/' separators
	Offset     int      `json:"offset"`      // 1-based first line returned
	Limit      int      `json:"limit"`       // effective limit
	TotalLines int      `json:"total_lines"` // lines in the file (lines package rules)
	Remaining  int      `json:"remaining"`   // lines after the window
	NextOffset int      `json:"next_offset"` // offset of the next window; 0 at end of file
	Lines      []string `json:"lines"`       // the window, BOM and '\r' removed, long lines clipped
	Text       string   `json:"text"`        // numbered rendering ("%6d\t%s") plus a status line
}

// Read returns lines [Offset, Offset+Limit) of the file at p.Path under root.
// Offset defaults to 1 and Limit to DefaultReadLimit (capped at MaxReadLimit).
// Line counting follows internal/lines: "a\nb\nc\n" and "a\nb\nc" both have
// 3 lines, CRLF is shown without '\r', a UTF-8 BOM does not shift line 1.
// Lines longer than MaxReadLineChars are clipped with a marker, invalid UTF-8
// is replaced with U+FFFD. Errors: ErrOutsideRoot (`..`, absolute paths
// elsewhere, symlinks pointing out), ErrNotFound, ErrIsDir, ErrBinary, and
// ErrOffsetPastEnd when Offset > TotalLines (offset 1 of an empty file is
// allowed and returns no lines).
func Read(ctx context.Context, root string, p ReadParams) (*ReadResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.Path == "" {
		return nil, fmt.Errorf("read: empty path: %w", ErrNotFound)
	}
	t, err := resolve(root, p.Path)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if t.info.IsDir() {
		return nil, fmt.Errorf("read %s: %w (use glob_files to list it)", t.asked, ErrIsDir)
	}
	data, err := os.ReadFile(t.abs())
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", t.asked, notFound(err))
	}
	if walk.IsBinary(data) {
		return nil, fmt.Errorf("read %s: %w", t.asked, ErrBinary)
	}
	all := lines.Split(string(data))
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
	total := len(all)
	if offset > total && !(offset == 1 && total == 0) {
		return nil, fmt.Errorf("read %s: offset %d, file has %d lines: %w", t.asked, offset, total, ErrOffsetPastEnd)
	}
	end := min(total, offset-1+limit)
	res := &ReadResult{Path: t.asked, Offset: offset, Limit: limit, TotalLines: total, Remaining: total - end}
	if res.Remaining > 0 {
		res.NextOffset = end + 1
	}
	var b strings.Builder
	if total > 0 {
		res.Lines = make([]string, 0, end-offset+1)
		for i := offset; i <= end; i++ {
			line := all[i-1]
			if len(line) > MaxReadLineChars {
				line = fmt.Sprintf("%s… [line clipped, %d bytes total]", clipRunes(line, MaxReadLineChars), len(line))
			}
			line = validUTF8(line)
			res.Lines = append(res.Lines, line)
			fmt.Fprintf(&b, "%6d\t%s\n", i, line)
		}
	}
	switch {
	case total == 0:
		fmt.Fprintf(&b, "(%s is empty)\n", t.asked)
	case res.Remaining > 0:
		fmt.Fprintf(&b, "(lines %d-%d of %d; %d more, next offset %d)\n", offset, end, total, res.Remaining, res.NextOffset)
	default:
		fmt.Fprintf(&b, "(lines %d-%d of %d; end of file)\n", offset, end, total)
	}
	res.Text = b.String()
	return res, nil
}
