package analyze

import (
	"fmt"
	"sync"
	"testing"
)

// A Memo returns what was put, keeps a copy of the key, ignores a second
// Put of a key, and stops taking keys at its bound.
func TestMemo(t *testing.T) {
	t.Parallel()
	m := NewMemo[int](100)
	buf := []byte("parseRequest")
	m.Put(string(buf[:5]), 5)
	buf[0] = 'X' // the Memo's key is its own copy
	if v, ok := m.Get("parse"); !ok || v != 5 {
		t.Fatalf(`Get("parse") = %d, %v; want 5, true`, v, ok)
	}
	m.Put("parse", 6)
	if v, _ := m.Get("parse"); v != 5 || m.Len() != 1 {
		t.Errorf(`after a second Put: Get("parse") = %d, Len %d; want 5, 1`, v, m.Len())
	}
	if _, ok := m.Get("Xarse"); ok {
		t.Error(`Get("Xarse") found a key never put`)
	}
	for i := range 200 {
		m.Put(fmt.Sprint("k", i), i)
	}
	if m.Len() != 100 {
		t.Errorf("Len = %d after 201 keys, want the bound 100", m.Len())
	}
	if v, ok := m.Get("k0"); !ok || v != 0 {
		t.Errorf(`Get("k0") = %d, %v; want 0, true (an early key stays)`, v, ok)
	}
	if _, ok := m.Get("k150"); ok {
		t.Error(`Get("k150") found a key put after the Memo was full`)
	}
}

// Concurrent Puts and Gets of the same keys agree (run with -race).
func TestMemoConcurrent(t *testing.T) {
	t.Parallel()
	m := NewMemo[string](1 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := fmt.Sprint("w", (i*7+g)%500)
				if v, ok := m.Get(k); ok && v != k+"!" {
					t.Errorf("Get(%q) = %q", k, v)
					return
				}
				m.Put(k, k+"!")
			}
		}()
	}
	wg.Wait()
	if m.Len() != 500 {
		t.Errorf("Len = %d, want 500", m.Len())
	}
}
