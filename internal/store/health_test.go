package store

import (
	"errors"
	"fmt"
	"testing"
)

// TestDamagedWords: SQLite's words for a damaged file are damage; the word
// "malformed" in another error (a chat server's answer, a query) is not.
func TestDamagedWords(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]bool{
		"database disk image is malformed (11)":                            true,
		"malformed database schema (chunks_fts) - invalid rootpage (11)":   true,
		"no such table: code_chunks":                                       true,
		"file is not a database (26)":                                      true,
		`malformed chat response (body starts "<html>proxy login</html>")`: false,
		"fts5: syntax error near \"\"":                                     false,
		"context deadline exceeded":                                        false,
	} {
		if got := Damaged(fmt.Errorf("search: %w", errors.New(msg))); got != want {
			t.Errorf("Damaged(%q) = %v, want %v", msg, got, want)
		}
	}
	if !Damaged(fmt.Errorf("x: %w", ErrDamaged)) || Damaged(nil) {
		t.Error("ErrDamaged wrapped must be damage, nil must not")
	}
}
