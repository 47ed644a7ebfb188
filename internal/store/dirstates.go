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

// dirRetryKey is the meta key of project's directories to parse again
// (DirRetry).
func dirRetryKey(project string) string { return "dirretry\x00" + project }

// DirRetry returns the directories of project whose dependent files the
// last run failed to parse again (the index package's retry list, a JSON
// array of root-relative directories), "" when there are none. It is read
// by every run, so it is kept apart from the larger DirStates.
func (s *Store) DirRetry(ctx context.Context, project string) (string, error) {
	value, _, err := s.metaValue(ctx, dirRetryKey(project))
	if err != nil {
		return "", fmt.Errorf("read directories to re-read: %w", damaged(err))
	}
	return value, nil
}

// PutDirRetry saves project's retry list, replacing the previous one.
func (s *Store) PutDirRetry(ctx context.Context, project, value string) error {
	if err := s.putMeta(ctx, dirRetryKey(project), value); err != nil {
		return fmt.Errorf("write directories to re-read: %w", damaged(err))
	}
	return nil
}
