package relate

import (
	"context"
	"strings"
	"sync"
)

// Cache keeps one loaded Resolver per project for a long-lived process (the
// MCP server, an ask session), so that only the first graph query of a
// project pays for loading its definitions (about 0.5 s on the Go standard
// library's 115k chunks); a resolver is reloaded when the index changed
// since (Index.DataVersion changes with every write of the project). The zero value is
// ready. Safe for concurrent use: queries through one Cache run one at a
// time, as a Resolver is not safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[cacheKey]*cacheEntry
}

type cacheKey struct {
	idx     Index
	project string
}

type cacheEntry struct {
	version string
	r       *Resolver
}

// Use runs fn with the project's resolver, loading or reloading it first
// when needed. ctx applies to the load and to fn's queries. Resolvers are
// kept per (idx, project), so idx must be comparable (a pointer such as
// *store.Store).
func (c *Cache) Use(ctx context.Context, idx Index, project string, fn func(*Resolver) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// an index never written has version "" and still caches
	version, err := idx.DataVersion(ctx, project)
	if err != nil {
		return err
	}
	k := cacheKey{idx, project}
	e := c.m[k]
	if e == nil || e.version != version {
		r, err := NewResolver(ctx, idx, project)
		if err != nil {
			return err
		}
		e = &cacheEntry{version: version, r: r}
		if c.m == nil {
			c.m = map[cacheKey]*cacheEntry{}
		}
		c.m[k] = e
	}
	e.r.ctx = ctx
	defer func() { e.r.ctx = context.Background() }()
	return fn(e.r)
}

// Describe is the package-level Describe through the cache.
func (c *Cache) Describe(ctx context.Context, idx Index, project, name string) (string, error) {
	var out string
	err := c.Use(ctx, idx, project, func(r *Resolver) error {
		g, err := r.Graph(name)
		if err != nil {
			return err
		}
		var b strings.Builder
		if err := Render(&b, g, FormatTree); err != nil {
			return err
		}
		out = b.String()
		return nil
	})
	return out, err
}
