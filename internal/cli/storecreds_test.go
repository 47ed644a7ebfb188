package cli

import (
	"bufio"
	"context"
	"database/sql"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/testutil"
)

// credsPass is the password of the role pgRole makes; it must appear in no
// output.
const credsPass = "S3cret-q7Zp-4411"

// pgRole returns a fresh PostgreSQL database owned by a new role whose
// password is credsPass, as (host, port, role, dbname); both are dropped
// when the test ends.
func pgRole(t *testing.T) (host, port, role, db string) {
	t.Helper()
	target := testutil.Postgres(t)
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	db = strings.TrimPrefix(u.Path, "/")
	role = "crt_" + strings.TrimPrefix(db, "coderag_test_")
	admin, err := sql.Open("pgx", os.Getenv(testutil.EnvTestPostgres))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, q := range []string{`CREATE ROLE ` + role + ` LOGIN PASSWORD '` + credsPass + `'`, `ALTER DATABASE ` + db + ` OWNER TO ` + role} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			admin.Close()
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		defer admin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, q := range []string{`DROP DATABASE IF EXISTS ` + db + ` WITH (FORCE)`, `DROP ROLE IF EXISTS ` + role} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	return u.Hostname(), u.Port(), role, db
}

// TestStoreCredentialsNeverShown: a PostgreSQL password given in a URL's
// query (?password=, ?sslpassword=) or in a libpq keyword/value string is
// printed by none of index, stats, stats --json, doctor, doctor --json,
// the serve banner, /status and /api/status; the keyword form opens
// PostgreSQL and never creates an SQLite file of that name; a wrong
// password is not printed in the error either.
func TestStoreCredentialsNeverShown(t *testing.T) {
	host, port, role, db := pgRole(t)
	setHome(t)
	cwd := t.TempDir()
	t.Chdir(cwd)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\n// Ping answers pong.\nfunc Ping() string { return \"pong\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, store string }{
		{"query password", "postgres://" + role + "@" + host + ":" + port + "/" + db + "?sslmode=disable&password=" + credsPass + "&sslpassword=" + credsPass},
		{"keyword form", "host=" + host + " port=" + port + " user=" + role + " password='" + credsPass + "' dbname=" + db + " sslmode=disable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			check := func(what, out string) {
				t.Helper()
				if strings.Contains(out, credsPass) || strings.Contains(out, url.QueryEscape(credsPass)) {
					t.Errorf("%s prints the password:\n%s", what, out)
				}
			}
			code, out, errs := run(t, "index", "--quiet", "--store", c.store, dir)
			check("index", out+errs)
			if code != 0 {
				t.Fatalf("index: exit %d: %s %s", code, out, errs)
			}
			for _, args := range [][]string{{"stats"}, {"stats", "--json"}, {"doctor"}, {"doctor", "--json"}} {
				code, out, errs := run(t, append(args, "--store", c.store)...)
				check(strings.Join(args, " "), out+errs)
				if code != 0 || !strings.Contains(out, db) {
					t.Errorf("%v: exit %d, want the database %s named:\n%s%s", args, code, db, out, errs)
				}
			}
			banner, get := serveStore(t, c.store)
			check("serve banner", banner)
			for _, p := range []string{"/status", "/api/status"} {
				body := get(p)
				check(p, body)
				if !strings.Contains(body, db) {
					t.Errorf("%s does not name the database %s:\n%s", p, db, body)
				}
			}
			wrong := strings.ReplaceAll(c.store, credsPass, "Wr0ng-"+credsPass[6:])
			code, out, errs = run(t, "stats", "--store", wrong)
			if code == 0 || strings.Contains(out+errs, credsPass[6:]) {
				t.Errorf("stats with a wrong password: exit %d, want an error without it:\n%s%s", code, out, errs)
			}
			if es, _ := os.ReadDir(cwd); len(es) > 0 {
				t.Errorf("the store string was taken as a file: %s exists in the working directory", es[0].Name())
			}
		})
	}
}

// serveStore starts `coderag serve --store target` on a free loopback port
// and returns its first line and a GET of the running server; the server
// stops when the test ends.
func serveStore(t *testing.T, target string) (string, func(string) string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--store", target}, testLookup(t), io.Discard, pw)
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	if !sc.Scan() {
		t.Fatalf("serve printed nothing: %v", sc.Err())
	}
	first := sc.Text()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(first)
	if base == "" {
		t.Fatalf("serve's first line names no address: %q", first)
	}
	return first, func(p string) string {
		t.Helper()
		res, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s", p, res.StatusCode, b)
		}
		return string(b)
	}
}
