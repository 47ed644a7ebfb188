package store

import (
	"context"
	"fmt"
)

// dirStatesKey is the meta key of project's directory states (DirStates).
func dirStatesKey(project string) string { return "dirstates\x00" + project }

// DirStates returns project's recorded directory states: what the last
// parses of each directory's files read beyond the file itself (the index
// package's dirStates, a JSON object), ok false when none is recorded.
func (s *Store) DirStates(ctx context.Context, project string) (value string, ok bool, err error) {
	value, ok, err = s.metaValue(ctx, dirStatesKey(project))
	if err != nil {
		return "", false, fmt.Errorf("read directory states: %w", damaged(err))
	}
	return value, ok, nil
}

// PutDirStates saves project's directory states, replacing the previous
// value.
func (s *Store) PutDirStates(ctx context.Context, project, value string) error {
	if err := s.putMeta(ctx, dirStatesKey(project), value); err != nil {
		return fmt.Errorf("write directory states: %w", damaged(err))
	}
	return nil
}
