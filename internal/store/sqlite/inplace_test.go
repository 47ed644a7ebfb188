package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"testing"
)

// TestEachRowInPlace: the in-place scan hands every row's values over
// (INTEGER as int64, TEXT as a string, NULL as nil), an error of the
// callback ends the query and comes back as it is, and no scan stays
// registered after its query. Not parallel: the registry is the
// process's, and other tests' scans would be in it.
func TestEachRowInPlace(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := &backend{db: s.DB()}
	from := `(SELECT 1 AS n, 'one' AS t, NULL AS z UNION ALL SELECT 2, 'two', NULL UNION ALL SELECT 3, 'three', NULL)`
	var got []string
	err = b.EachRowInPlace(ctx, "n, t, z", from, nil, func(v []driver.Value) error {
		n, _ := v[0].(int64)
		txt, _ := v[1].(string)
		if v[2] != nil {
			t.Errorf("NULL came as %v", v[2])
		}
		got = append(got, string(rune('0'+n))+txt)
		return nil
	})
	if err != nil || len(got) != 3 || got[0] != "1one" || got[2] != "3three" {
		t.Fatalf("rows %v, %v", got, err)
	}
	stop := errors.New("enough")
	calls := 0
	err = b.EachRowInPlace(ctx, "n", from, nil, func([]driver.Value) error {
		if calls++; calls == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Fatalf("a callback error: %v after %d calls, want it as it is after 2", err, calls)
	}
	rowScans.Range(func(k, _ any) bool {
		t.Errorf("scan %v still registered", k)
		return true
	})
}
