package serve

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
)

// queryGate holds every EmbedQuery until gate is closed, counting the
// queries being held now and the most held at once.
type queryGate struct {
	embed.Embedder
	gate      <-chan struct{}
	now, most *atomic.Int64
}

func (g queryGate) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	n := g.now.Add(1)
	defer g.now.Add(-1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Embedder.EmbedQuery(ctx, text)
}

// TestSearchesTakeTurns: 8 clients searching at once, each search held
// in its query embedding, run as many at a time as the default
// MaxSearches (the CPUs, at least 2): the others wait their turn instead
// of all holding their work in memory at once, and every search is
// answered once the held ones go on.
func TestSearchesTakeTurns(t *testing.T) {
	turns := int64(max(2, runtime.GOMAXPROCS(0))) // DefaultMaxSearches
	if turns >= 8 {
		t.Skipf("%d CPUs: 8 clients fit in the turns", turns)
	}
	f := newFixture(t, Options{})
	gate := make(chan struct{})
	now, most := new(atomic.Int64), new(atomic.Int64)
	f.wrap = func(e embed.Embedder) embed.Embedder { return queryGate{Embedder: e, gate: gate, now: now, most: most} }
	srv := f.srv
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := srv.Client().Get(srv.URL + "/api/search?q=insert+element&project=list")
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			codes[i] = res.StatusCode
		}()
	}
	for i := 0; now.Load() < turns; i++ {
		if i == 1000 {
			t.Fatalf("%d searches embedding, want %d", now.Load(), turns)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// give the other six the chance to go past their turn, as they did
	// before searches took turns: a settling pause, not a measure
	time.Sleep(300 * time.Millisecond)
	if m := most.Load(); m != turns {
		t.Errorf("%d searches ran at once, want MaxSearches = %d", m, turns)
	}
	close(gate)
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("search %d: %d", i, c)
		}
	}
}
