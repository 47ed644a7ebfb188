// Package store keeps values.
package store

import (
	"errors"
	"fmt"
)

var errNotFound = errors.New("not found")

// Store is a map.
type Store struct {
	m map[string]int
}

// New returns an empty Store.
func New() *Store {
	return &Store{m: map[string]int{}}
}

// Get returns the value of k.
func (s *Store) Get(k string) (int, error) {
	v, ok := s.m[k]
	if !ok {
		return 0, s.missing(k)
	}
	return v, nil
}

func (s *Store) missing(k string) error {
	return fmt.Errorf("missing %s: %w", k, errNotFound)
}
