package testutil

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// EnvTestPostgres names the PostgreSQL server tests may use: a URL of a
// maintenance database (postgres://user:pass@host/postgres) on which the
// role can CREATE DATABASE. CI sets it.
const EnvTestPostgres = "CODERAG_TEST_POSTGRES"

// Postgres returns the URL of a new, empty database on the server named by
// CODERAG_TEST_POSTGRES, dropped when the test ends. Without the variable
// the test is skipped (PostgreSQL is optional on a developer's machine);
// with it, a server that cannot be reached or refuses CREATE DATABASE
// fails the test, so CI never passes by skipping.
func Postgres(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvTestPostgres)
	if admin == "" {
		t.Skip(EnvTestPostgres + " is not set: no PostgreSQL server to test against (.ci/run sets it)")
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("%s: %v", EnvTestPostgres, err)
	}
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatalf("%s: %v", EnvTestPostgres, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	name := "coderag_test_" + hex.EncodeToString(b)
	if _, err := db.ExecContext(ctx, `CREATE DATABASE `+name+` STRATEGY = FILE_COPY`); err != nil {
		db.Close()
		t.Fatalf("%s: create a throwaway database: %v", EnvTestPostgres, err)
	}
	t.Cleanup(func() {
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop throwaway database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}
