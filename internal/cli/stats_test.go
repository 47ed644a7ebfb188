package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIndexAndStatsAccountForEveryFile: `index` names the file that fell
// back to text and why and counts the unindexed extensions; `stats` and
// `stats --json` list files per language, the fallback with its reason and
// the unindexed extensions.
func TestIndexAndStatsAccountForEveryFile(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ring.zig", "pub fn push(x: u32) void {\n    _ = x;\n}\n")
	write("Broken.java", strings.Repeat("}}} ((( class ;; @@ \n", 40))
	write("table.inc", "int table[] = {1, 2};\n")
	write("LICENSE", "MIT\n")
	write("data.xyz", "1\n")
	code, out, errs := run(t, "index", root)
	if code != 0 {
		t.Fatalf("index: exit %d %s", code, errs)
	}
	for _, want := range []string{
		"text fallback: Broken.java (java): syntax errors over 30% of the file",
		"not indexed (no language for the extension): 2 files (no extension 1, .xyz 1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("index output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "stats")
	for _, want := range []string{
		"java              1 file   definitions, 1 fell back to text (syntax errors over 30% of the file 1)",
		"zig               1 file   definitions\n",
		"cpp               1 file   definitions\n",
		"not indexed: 2 files by extension (no extension 1, .xyz 1)",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, "stats", "--json")
	var s statsOut
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || len(s.Projects) != 1 {
		t.Fatalf("stats --json: %v %s", err, out)
	}
	p := s.Projects[0]
	if p.Unindexed["(none)"] != 1 || p.Unindexed[".xyz"] != 1 || len(p.Languages) != 3 {
		t.Errorf("stats --json languages: %+v %+v", p.Languages, p.Unindexed)
	}
	checkStatsJSON(t, out, root)
}

// checkStatsJSON checks the shape of `stats --json` output for the one
// project root: the root by name, languages as one flat list, times as
// RFC 3339 and the last run's length in milliseconds.
func checkStatsJSON(t *testing.T, out, root string) {
	t.Helper()
	var raw struct {
		Projects []map[string]json.RawMessage `json:"projects"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil || len(raw.Projects) != 1 {
		t.Fatalf("stats --json: %v %s", err, out)
	}
	p := raw.Projects[0]
	want, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if json.Unmarshal(p["root"], &got) != nil || got != want {
		t.Errorf("stats --json root = %s, want %q", p["root"], want)
	}
	if _, ok := p["project"]; ok {
		t.Errorf("stats --json still names the root \"project\": %s", out)
	}
	var langs []map[string]any
	if err := json.Unmarshal(p["languages"], &langs); err != nil || len(langs) == 0 || langs[0]["language"] == nil {
		t.Errorf("stats --json languages is not a flat list of languages: %s (%v)", p["languages"], err)
	}
	var updated string
	if json.Unmarshal(p["updated_at"], &updated) != nil {
		t.Errorf("updated_at = %s", p["updated_at"])
	} else if _, err := time.Parse(time.RFC3339, updated); err != nil {
		t.Errorf("updated_at is not RFC 3339: %v", err)
	}
	var run struct {
		Done       bool   `json:"done"`
		Started    string `json:"started"`
		Ended      string `json:"ended"`
		DurationMS *int64 `json:"duration_ms"`
	}
	if err := json.Unmarshal(p["last_run"], &run); err != nil || !run.Done {
		t.Fatalf("last_run = %s (%v)", p["last_run"], err)
	}
	st, err1 := time.Parse(time.RFC3339, run.Started)
	en, err2 := time.Parse(time.RFC3339, run.Ended)
	if err1 != nil || err2 != nil || en.Before(st) {
		t.Errorf("last_run times are not RFC 3339 in order: %s (%v %v)", p["last_run"], err1, err2)
	}
	if !strings.Contains(string(p["last_run"]), `"duration_ms"`) {
		t.Errorf("last_run has no duration_ms: %s", p["last_run"])
	}
}

// TestStatsWithoutIndex: stats on an empty CODERAG_HOME says there is no
// index yet, in text and JSON, and creates none.
func TestStatsWithoutIndex(t *testing.T) {
	home := setHome(t)
	code, out, errs := run(t, "stats")
	if code != 0 || !strings.Contains(out, "index: none yet (") || strings.Contains(out, "MiB") || strings.Contains(out, "schema") {
		t.Errorf("stats without an index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, "stats", "--json")
	var s struct {
		Exists *bool `json:"exists"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || s.Exists == nil || *s.Exists {
		t.Errorf("stats --json without an index: exit %d %v\n%s", code, err, out)
	}
	if _, err := os.Stat(filepath.Join(home, "index.db")); err == nil {
		t.Error("stats created the index")
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	if code, _, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %s", errs)
	}
	code, out, _ = run(t, "stats", "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || s.Exists == nil || !*s.Exists {
		t.Errorf("stats --json with an index: exit %d %v\n%s", code, err, out)
	}
}

// TestRubyBuildFilesAndRdocIndexed: Rakefile and Gemfile are Ruby (by
// name) and .rdoc is text, as rack's tree has them: none is left
// unindexed, and stats counts them under their languages.
func TestRubyBuildFilesAndRdocIndexed(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	for name, body := range map[string]string{
		"Rakefile":       "desc \"Run all the tests\"\ntask default: :test\n",
		"Gemfile":        "source 'https://rubygems.org'\ngemspec\n",
		"SPEC.rdoc":      "= Rack's specification\n\nThis specification aims to formalize the Rack protocol.\n",
		"lib/rack.rb":    "module Rack\n  def self.release\n    '3.1'\n  end\nend\n",
		"test/multipart": "--AaB03x\r\n",
	} {
		writeFile(t, filepath.Join(root, name), body)
	}
	code, out, errs := run(t, "index", root)
	if code != 0 || !strings.Contains(out, "not indexed (no language for the extension): 1 file (no extension 1)") {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = run(t, "stats", "--json")
	var s struct {
		Projects []struct {
			Languages []struct {
				Language string `json:"language"`
				Files    int    `json:"files"`
			} `json:"languages"`
			Unindexed map[string]int `json:"unindexed_extensions"`
		} `json:"projects"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || len(s.Projects) != 1 {
		t.Fatalf("stats --json: exit %d %v\n%s", code, err, out)
	}
	files := map[string]int{}
	for _, l := range s.Projects[0].Languages {
		files[l.Language] = l.Files
	}
	if files["ruby"] != 3 || files["text"] != 1 || len(s.Projects[0].Unindexed) != 1 {
		t.Errorf("languages %v, unindexed %v: want ruby 3 (Rakefile, Gemfile, rack.rb), text 1 (SPEC.rdoc), only test/multipart unindexed", files, s.Projects[0].Unindexed)
	}
}

// TestPluralsReadNaturally: a count of one takes the singular in the text
// of index, stats, graph, callees, path and search --all ("1 file", "1
// call", "1 project"), other counts the plural (they said "1 file(s)",
// "1 files", "1 calls").
func TestPluralsReadNaturally(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "main.go"), `package main

import "fmt"

// Recovery recovers from a panic in a handler.
func Recovery() {
	helper()
}

func helper() {
	fmt.Println("x")
}

func main() { Recovery() }
`)
	writeFile(t, filepath.Join(root, "notes.xyz"), "hi\n")
	check := func(args []string, wants ...string) {
		t.Helper()
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errs)
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%v lacks %q:\n%s", args, w, out)
			}
		}
		for _, bad := range []string{"file(s)", " 1 files", " 1 calls", " 1 guesses", " 1 projects"} {
			if strings.Contains(out, bad) {
				t.Errorf("%v says %q:\n%s", args, bad, out)
			}
		}
	}
	check([]string{"index", root}, "not indexed (no language for the extension): 1 file (.xyz 1)")
	check([]string{"stats", "--project", root}, "go                1 file   definitions\n", "not indexed: 1 file by extension (.xyz 1)")
	check([]string{"callees", "--project", root, "Recovery"},
		"1 call (0 ambiguous, 0 unresolved, 0 guesses not followed); 1 call to builtins and other packages not listed")
	check([]string{"callers", "--project", root, "helper"}, "2 calls (0 ambiguous")
	check([]string{"path", "--project", root, "Recovery", "helper"}, "path from Recovery() to helper(): 1 call\n")
	check([]string{"graph", "--project", root, "helper"}, "(1 call to builtins and other packages not listed)")
	check([]string{"search", "--all", "?!"}, "in 1 project\n")
}
