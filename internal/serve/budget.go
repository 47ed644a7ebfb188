package serve

import (
	"context"
	"fmt"
	"runtime"
)

// Searches at once. A search is CPU work (a scan of the project's vectors,
// an FTS query, ranking) and holds its candidates, rows and answer in
// memory while it runs: more searches at once than there are cores make
// none of them faster, only the memory larger and every one slower. So
// Local runs at most LocalConfig.MaxSearches at once, and the others wait
// their turn (or their request's end) in arrival order, as a worker pool
// does; the request cap of the Server (Options.MaxRequests) bounds how many
// wait.

// DefaultMaxSearches is LocalConfig.MaxSearches' default: the number of
// CPUs Go may use, at least 2.
func DefaultMaxSearches() int { return max(2, runtime.GOMAXPROCS(0)) }

// searchTurn waits for one of the MaxSearches turns and returns the
// function that gives it back, or ctx's error (a cancelled request) when
// ctx ends first.
func (l *Local) searchTurn(ctx context.Context) (func(), error) {
	select {
	case l.searches <- struct{}{}:
		return func() { <-l.searches }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("search: waiting for a turn: %w", ctx.Err())
	}
}
