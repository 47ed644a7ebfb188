package store

// Cache counts lookups in front of a Store.
type Cache struct {
	st   *Store
	hits int
}

// NewCache wraps st.
func NewCache(st *Store) *Cache {
	return &Cache{st: st}
}

// Lookup returns the value of k and counts the hit.
func (c *Cache) Lookup(k string) (int, error) {
	c.hit()
	return c.st.Get(k)
}

func (c *Cache) hit() {
	c.hits++
}
