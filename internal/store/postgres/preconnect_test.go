package postgres

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/testutil"
)

// adminApp is the application_name of the test's own observing
// connection (adminDB), which backendPIDs leaves out: a connection
// database/sql replaced would otherwise be counted while it exits.
const adminApp = "coderag_test_admin"

// adminDB opens the observing connection of a PostgreSQL test database.
func adminDB(t *testing.T, url string) *sql.DB {
	t.Helper()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	admin, err := sql.Open("pgx", url+sep+"application_name="+adminApp)
	if err != nil {
		t.Fatal(err)
	}
	admin.SetMaxOpenConns(1)
	t.Cleanup(func() { admin.Close() })
	return admin
}

// backendPIDs returns the client server processes connected to the
// database of admin's connection other than admin's own, sorted.
func backendPIDs(t *testing.T, admin *sql.DB) []int64 {
	t.Helper()
	rows, err := admin.Query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
		AND backend_type = 'client backend' AND application_name <> '` + adminApp + `' ORDER BY pid`)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return pids
}

// waitPIDs polls backendPIDs until the same n are listed three times in
// a row (a connection still being made, or a closed one still exiting,
// shows in one listing and not the next), or fails after 20 s.
func waitPIDs(t *testing.T, admin *sql.DB, n int) []int64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var prev []int64
	same := 0
	for {
		pids := backendPIDs(t, admin)
		if len(pids) == n && slices.Equal(pids, prev) {
			same++
		} else {
			same = 0
		}
		prev = pids
		if same == 2 {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d server processes, want %d: %v", len(pids), n, pids)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPreconnect: Preconnect opens, without any query, the connections the
// pool lacks; goroutines that then query at once are served by exactly
// those (no further server process is started); and Close ends the
// connections opened ahead that nothing used.
func TestPreconnect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := testutil.Postgres(t)
	admin := adminDB(t, url)

	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	waitPIDs(t, admin, 1) // Open's schema check
	s.Preconnect(3)
	ahead := waitPIDs(t, admin, 3)

	// three goroutines each holding a connection at once
	conns := make([]*sql.Conn, 3)
	used := make([]int64, 3)
	var wg sync.WaitGroup
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := s.DB().Conn(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			conns[i] = c
			if err := c.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&used[i]); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	slices.Sort(used)
	if !slices.Equal(used, ahead) {
		t.Fatalf("queries ran on server processes %v, opened ahead %v", used, ahead)
	}
	if now := backendPIDs(t, admin); !slices.Equal(now, ahead) {
		t.Fatalf("server processes after the queries %v, want %v", now, ahead)
	}

	s.Preconnect(6) // three more, which nothing claims
	waitPIDs(t, admin, 6)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitPIDs(t, admin, 0)
}
