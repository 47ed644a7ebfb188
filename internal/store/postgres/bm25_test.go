package postgres

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/coderag/coderag/internal/testutil"
)

// text renders r as round(v::numeric, 9)::text does: nine decimals.
func (a roundedScore) text() string { return a.rat().FloatString(9) }

// TestRoundKeyMatchesServer: roundKey gives, for BM25-like scores and for
// the values at the edges of its cases (a 5 in the tenth decimal, the
// 15th significant digit, tiny and huge values, negatives), the value the
// server gives for round(v::numeric, 9), which pgKeywordSearch's order
// replaces.
func TestRoundKeyMatchesServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, testutil.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 2))
	vals := []float64{0, 1e-6, 5e-10, 4.9999999e-10, 1.5e-9, 2.0000000005, 0.1234567885, 12.3456789015,
		1e-300, 123456789.123456789, 999999999.9999999, 1e9, 1234567890123.4567, 1e20, -2.0000000005, -1e-6,
		math.Nextafter(0.0000000015, 1), math.Nextafter(0.0000000015, 0)}
	for range 2000 {
		vals = append(vals, r.Float64()*30, r.Float64()*1e-5, math.Round(r.Float64()*1e10)/1e10+5e-10, r.NormFloat64()*1e6)
	}
	rows, err := s.DB().QueryContext(ctx, `SELECT round(x::numeric, 9)::text FROM unnest(?::float8[]) WITH ORDINALITY AS u(x, i) ORDER BY i`, vals)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var want string
		if err := rows.Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := roundKey(vals[i]).text(); got != want {
			t.Errorf("roundKey(%v) = %s, server %s", vals[i], got, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(vals) {
		t.Fatalf("%d values compared of %d", i, len(vals))
	}
}
