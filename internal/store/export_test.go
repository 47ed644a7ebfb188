package store

import (
	"context"
	"time"
)

// For the external tests (package store_test), which open stores through
// a backend package: the vector cache's internals.

// StaleFor is staleFor.
const StaleFor = staleFor

// Vectors is vectors.
func (s *Store) Vectors(ctx context.Context, project, embedder string) (*vectorSet, error) {
	return s.vectors(ctx, project, embedder)
}

// SetLoad sets how long the set took to load and when it was loaded.
func (v *vectorSet) SetLoad(took time.Duration, loaded time.Time) { v.took, v.loaded = took, loaded }

// Took returns how long the set took to load.
func (v *vectorSet) Took() time.Duration { return v.took }
