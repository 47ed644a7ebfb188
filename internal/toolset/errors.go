package toolset

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coderag/coderag/internal/tools"
)

// InsideRoot confines p (relative to root, or absolute inside it; "" is the
// root) with tools.Confine and returns its root-relative '/' path ("." for
// the root itself). `..` escapes, absolute paths elsewhere and symlinks
// pointing out are refused with tools.ErrOutsideRoot; a missing path is
// tools.ErrNotFound.
func InsideRoot(root, p string) (string, error) {
	t, err := tools.Confine(root, p)
	if err != nil {
		return "", err
	}
	defer t.Close()
	return t.Rel(), nil
}

// reworded is err with another message; errors.Is still sees err.
type reworded struct {
	msg string
	err error
}

func (r *reworded) Error() string { return r.msg }
func (r *reworded) Unwrap() error { return r.err }

// explain turns a tools or index error into a message that tells the model
// what to do next. The original error stays wrapped.
func explain(tool, root string, err error) error {
	// "grep: ..." from tools would read "grep_code: grep: ..."
	short := tool[:strings.IndexByte(tool+"_", '_')]
	if msg := err.Error(); strings.HasPrefix(msg, short+": ") || strings.HasPrefix(msg, short+" ") {
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, short+": "), short+" ")
		err = &reworded{msg, err}
	}
	switch {
	case errors.Is(err, tools.ErrOutsideRoot):
		return fmt.Errorf("%s: %w; the project root is %s: give paths relative to it", tool, err, root)
	case errors.Is(err, tools.ErrNotFound):
		return fmt.Errorf("%s: %w (paths are relative to the project root %s; use glob_files to find the right one)", tool, err, root)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: cancelled or timed out: %w", tool, err)
	}
	return fmt.Errorf("%s: %w", tool, err)
}
