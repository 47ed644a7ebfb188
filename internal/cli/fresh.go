package cli

import (
	"fmt"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/english"
)

// freshNote is the one-line message for changes left pending by
// engine.Freshen, or "".
func freshNote(f *engine.Freshness, root string) string {
	if f == nil || f.Pending == nil {
		return ""
	}
	n := f.Pending.Len()
	return fmt.Sprintf("note: %s changed since the last index (%s); results from %s are marked stale; run `coderag index %s`", english.Counted(n, "file"), f.Why, english.Agree(n, "it", "them"), root)
}

// freshMaxFiles is how many changed files search re-indexes before
// answering (engine.FreshMaxFiles).
const freshMaxFiles = engine.FreshMaxFiles
