package analyze

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
)

// memoShards is the number of locked maps a Memo spreads its keys over.
const memoShards = 64

// Memo is a bounded, concurrent memo table from strings to values of V,
// for the caches of pure functions of a word (stems, an embedder's rows of
// an identifier). Once it holds max entries it takes no more: the first
// keys stored stay, and later ones are computed each time. Safe for
// concurrent use; the zero value is not usable (NewMemo).
//
// It is a set of ordinary maps, each behind its own lock, rather than a
// sync.Map, whose trie nodes and boxed keys and values take over 100 bytes
// an entry beyond the key and value themselves: in sync.Maps the stem and
// identifier caches of a GOROOT/src index run held 35 MB of its live heap
// at its peak, in Memos 20 MB.
type Memo[V any] struct {
	seed   maphash.Seed
	max    int64
	n      atomic.Int64
	shards [memoShards]memoShard[V]
}

type memoShard[V any] struct {
	mu sync.RWMutex
	m  map[string]V
	_  [32]byte // one shard a cache line: the locks of neighbours do not share one
}

// NewMemo returns an empty Memo that holds at most max entries.
func NewMemo[V any](max int) *Memo[V] {
	m := &Memo[V]{seed: maphash.MakeSeed(), max: int64(max)}
	for i := range m.shards {
		m.shards[i].m = map[string]V{}
	}
	return m
}

func (m *Memo[V]) shard(k string) *memoShard[V] {
	return &m.shards[maphash.String(m.seed, k)&(memoShards-1)]
}

// Get returns the value stored for k, and whether there is one.
func (m *Memo[V]) Get(k string) (V, bool) {
	s := m.shard(k)
	s.mu.RLock()
	v, ok := s.m[k]
	s.mu.RUnlock()
	return v, ok
}

// Put stores v for k (a copy of k, so k may point into a larger text),
// unless the Memo is full or already holds k.
func (m *Memo[V]) Put(k string, v V) {
	if m.n.Load() >= m.max {
		return
	}
	s := m.shard(k)
	s.mu.Lock()
	if _, ok := s.m[k]; !ok {
		s.m[strings.Clone(k)] = v
		m.n.Add(1)
	}
	s.mu.Unlock()
}

// Len returns the number of entries.
func (m *Memo[V]) Len() int { return int(m.n.Load()) }
