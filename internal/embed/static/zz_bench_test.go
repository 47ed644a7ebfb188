package static

import (
	"os"
	"testing"
	"time"
)

func TestZZMaxSimCost(t *testing.T) {
	if os.Getenv("DBG_MS") == "" {
		t.Skip()
	}
	chunks := goChunks(t)[:60]
	e, _ := New()
	t0 := time.Now()
	e.Prepare()
	t1 := time.Now()
	m := e.NewMaxSim("allocate a span for the heap when the cache is empty", nil)
	s := e.pool.Get().(*scratch)
	n := 0
	for _, c := range chunks {
		n += len(e.appendIDs(s.ids[:0], s, c))
	}
	t2 := time.Now()
	for _, c := range chunks {
		m.Score(c)
	}
	t3 := time.Now()
	t.Logf("prepare %v tokenize %v (%d ids) score(after tokenize cached) %v distinct rows %d qrows %d", t1.Sub(t0), t2.Sub(t1), n, t3.Sub(t2), len(m.sims), len(m.rows))
}
