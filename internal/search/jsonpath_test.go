package search

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestResultJSONPathQuoted: a path that is not UTF-8 goes out in --json and
// /api/search as the quoted form the exact tools accept back, not with its
// bytes turned into U+FFFD; a valid path is unchanged, and a multi-project
// result keeps its own fields.
func TestResultJSONPathQuoted(t *testing.T) {
	b, err := json.Marshal(Result{Path: "bad\xff.go", Name: "BadName()", StartLine: 3, EndLine: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["path"] != `"bad\xff.go"` || got["name"] != "BadName()" || got["start_line"] != 3.0 {
		t.Fatalf("non-UTF-8 path: %s", b)
	}
	if strings.Contains(string(b), `\ufffd`) {
		t.Fatalf("path lost its bytes: %s", b)
	}
	b, _ = json.Marshal(Result{Path: "dir/ok.go", Name: "OK()"})
	if !strings.Contains(string(b), `"path":"dir/ok.go"`) {
		t.Fatalf("valid path changed: %s", b)
	}
	b, err = json.Marshal([]MultiResult{{Project: "/src/a", Result: Result{Path: "new\nline.go", Name: "N()"}, ProjectRank: 2, AlsoIn: []string{"/src/b"}}})
	if err != nil {
		t.Fatal(err)
	}
	var ms []map[string]any
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	if m["project"] != "/src/a" || m["project_rank"] != 2.0 || m["path"] != `"new\nline.go"` || m["name"] != "N()" {
		t.Fatalf("multi result: %s", b)
	}
	if a, _ := m["also_in"].([]any); len(a) != 1 || a[0] != "/src/b" {
		t.Fatalf("multi result also_in: %s", b)
	}
}
