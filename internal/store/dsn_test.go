package store

import (
	"testing"
)

// TestRedactMasksEveryCredential: Redact keeps what names the database
// and masks every credential a PostgreSQL location can carry, in both of
// its forms; an SQLite path is kept as it is.
func TestRedactMasksEveryCredential(t *testing.T) {
	const pw = "S3cret"
	for _, c := range []struct {
		in   string
		want string // Redact(in)
	}{
		{"postgres://crt:" + pw + "@127.0.0.1/db", "postgres://crt:xxxxx@127.0.0.1/db"},
		{"postgres://crt@127.0.0.1/db?password=" + pw, "postgres://crt@127.0.0.1/db?password=xxxxx"},
		{"postgresql://crt@h:5433/db?sslmode=require&sslpassword=" + pw + "&application_name=x", "postgresql://crt@h:5433/db?sslmode=require&sslpassword=xxxxx&application_name=x"},
		{"postgres://crt@h/db?PassWord=" + pw + "&passfile=/home/crt/.pgpass", "postgres://crt@h/db?PassWord=xxxxx&passfile=xxxxx"},
		{"postgres://crt@h/db?pass%77ord=" + pw, "postgres://crt@h/db?pass%77ord=xxxxx"},
		{"postgres://crt@h/db#" + pw, "postgres://crt@h/db"},
		{"host=127.0.0.1 user=crt password=" + pw + " dbname=db", "host=127.0.0.1 user=crt password=xxxxx dbname=db"},
		{"  host = h  password = '" + pw + " with \\' quote' dbname=db", "host=h password=xxxxx dbname=db"},
		{"dbname=db sslpassword=" + pw + " passfile=/p/.pgpass", "dbname=db sslpassword=xxxxx passfile=xxxxx"},
		{"host=h password='" + pw, "(unparsable PostgreSQL connection string)"},
		{"/home/u/.coderag/index.db", "/home/u/.coderag/index.db"},
		{"host-notes.db", "host-notes.db"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestKeywordStringIsPostgres: a libpq keyword/value string names a
// PostgreSQL database, never an SQLite file; other names stay files.
func TestKeywordStringIsPostgres(t *testing.T) {
	for in, want := range map[string]bool{
		"host=h user=u password=p dbname=d": true,
		" dbname = d":                       true,
		"postgres://h/d":                    true,
		"index.db":                          false,
		"my=file.db":                        false,
		"host":                              false,
		"./host=h":                          false,
	} {
		if got := IsPostgres(in); got != want {
			t.Errorf("IsPostgres(%q) = %v, want %v", in, got, want)
		}
	}
}
