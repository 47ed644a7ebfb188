package index

import (
	"context"
	"errors"
	"sync"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/lang"
	"github.com/coderag/coderag/internal/walk"
)

// warmFiles bounds the candidate files Warm lists: every language of a
// small or medium tree is met well before it; on a larger tree the
// languages met later are compiled by their first parse, as without Warm.
const warmFiles = 4096

// errWarmed ends Warm's walk at warmFiles files.
var errWarmed = errors.New("warm: enough files listed")

// Warm starts, in the background, the one-time work of this process that
// the first index run of root would otherwise do on its critical path,
// so that it runs beside what the caller does meanwhile (opening or
// creating the index database, the run's own walk):
//
//   - the tree-sitter query of each language of root's candidate files,
//     compiled as soon as the walk meets the first file of it
//     (chunk.Prepare: 1-60 ms of CPU per language, which the first parse
//     of that language waits for, and the other workers with it);
//   - emb's one-time work, when it has some (embed.Preparer: the built-in
//     model's vocabulary index, 8-33 ms in a new process, otherwise built
//     by the first batch the run embeds, while the parses run).
//
// The walk is walk.Walk with allowSecrets as Options.AllowSecrets (the
// candidates Run lists of a new project), in lexical order, at most
// warmFiles files; languages are compiled one at a time in the order it
// meets them. Cancelling ctx stops the walk (a compile under way ends).
// Nothing Warm does changes what a run indexes: the queries and the
// vocabulary index are those the run would build itself. Its cost is the
// walk, once more, and the compiles of languages whose every file the
// run then skips. The returned channel is closed once all of it is done.
//
// Call it only when the run will parse root's files (a project not yet
// indexed): on an unchanged tree nothing is parsed and the work is
// wasted.
func Warm(ctx context.Context, root string, emb embed.Embedder, allowSecrets bool) <-chan struct{} {
	return warm(ctx, root, emb, allowSecrets, warmFiles, chunk.Prepare)
}

// warm is Warm with the bound on files and the compile as parameters
// (tests).
func warm(ctx context.Context, root string, emb embed.Embedder, allowSecrets bool, maxFiles int, prepare func(string) error) <-chan struct{} {
	done := make(chan struct{})
	var wg sync.WaitGroup
	if p, ok := emb.(embed.Preparer); ok {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Prepare()
		}()
	}
	langs := make(chan string, 8)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for l := range langs {
			// a query that does not compile fails every parse of its
			// language too, and the run reports it per file
			_ = prepare(l)
		}
	}()
	go func() {
		defer wg.Done()
		defer close(langs)
		seen := map[string]bool{}
		n := 0
		// the walk's skips and errors are the run's to report
		_, _ = walk.Walk(ctx, root, walk.Options{AllowSecrets: allowSecrets}, func(f walk.File) error {
			if l := lang.Detect(f.Path); l != "" && !seen[l] {
				seen[l] = true
				select {
				case langs <- l:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			if n++; n >= maxFiles {
				return errWarmed
			}
			return nil
		})
	}()
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}
