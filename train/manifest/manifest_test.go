package manifest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/embed/static"
)

// TestManifestHasNoExcludedPackage is the guard of issue 26: no package of
// the committed corpus manifest may be code we evaluate on (the semble
// benchmark's repos, the golden corpora, testdata/ repos, the list
// and the fresh evaluation repos), under any packaging exclude.tsv names.
func TestManifestHasNoExcludedPackage(t *testing.T) {
	ex, err := ReadExclude("../exclude.tsv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Read("../manifest.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 100 {
		t.Fatalf("manifest has %d rows; want the full corpus", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if p := ex.MatchRow(r); p != "" {
			t.Errorf("%s %s %s is excluded (project %s)", r.Registry, r.Package, r.Version, p)
		}
		if seen[r.Package] {
			t.Errorf("%s listed twice", r.Package)
		}
		seen[r.Package] = true
		if len(r.SHA256) != 64 || r.Version == "" || (r.Registry != "debian" && r.Registry != "debian-src" && r.Registry != "npm") {
			t.Errorf("bad row %+v", r)
		}
	}
}

// TestExcludeCatchesKnownPackagings checks that the list names the
// packagings the issue gives as examples, and those of the golden corpora.
func TestExcludeCatchesKnownPackagings(t *testing.T) {
	ex, err := ReadExclude("../exclude.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, want := range map[string]string{
		"python3-flask": "flask", "node-express": "express", "librust-tokio-dev": "tokio",
		"golang-github-spf13-cobra-dev": "cobra", "golang-1.19-src": "go-stdlib", "golang-go": "go-stdlib",
		"openjdk-17-source": "jdk", "libpython3.11-stdlib": "cpython", "python3.11": "cpython",
		"golang-github-go-git-go-git-dev": "go-git", "node-undici": "undici", "python3-attr": "attrs",
		"node-rxjs": "rxjs", "linux-source-6.1": "linux", "golang-github-spf13-viper-dev": "viper",
		"node-fastify": "fastify", "librust-serde-json-dev": "serde", "libleveldb-dev": "leveldb",
		"libjsoup-java": "jsoup", "libspdlog-dev": "spdlog", "ripgrep": "ripgrep", "python3-werkzeug": "werkzeug",
		"ruby-rack": "rack", "python3-requests": "requests", "golang-github-burntsushi-toml-dev": "toml",
		"python3-click": "click", "node-semver": "node-semver", "librust-bytes-dev": "bytes", "libcjson-dev": "cjson",
		"libgoogle-gson-java": "gson", "python3-aiohttp": "aiohttp", "libuv1-dev": "libuv", "libfmt-dev": "fmtlib",
		"node-yaml": "yaml", "libcommons-text-java": "commons-text", "golang-github-gorilla-websocket-dev": "gorilla-websocket",
		"python3-boltons": "boltons", "libcli11-dev": "cli11",
	} {
		if got := ex.Match(pkg); got != want {
			t.Errorf("Match(%q) = %q, want %q", pkg, got, want)
		}
	}
	for _, pkg := range []string{"python3-isodate", "librust-itoa-dev", "golang-github-joho-godotenv-dev"} {
		if got := ex.Match(pkg); got != "" {
			t.Errorf("Match(%q) = %q, want none", pkg, got)
		}
	}
}

// TestExcludeCatchesNPMForms checks that an npm package is matched under
// its scoped, flattened and Debian-style names.
func TestExcludeCatchesNPMForms(t *testing.T) {
	ex, err := ReadExclude("../exclude.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, want := range map[string]string{
		"express": "express", "zod": "zod", "semver": "node-semver", "yaml": "yaml", "@trpc/server": "trpc",
		"hono": "hono", "@fastify/cors": "fastify", "axios": "axios", "undici": "undici", "rxjs": "rxjs",
		"vitest": "vitest", "@reduxjs/toolkit": "redux", "immer": "",
	} {
		if got := ex.MatchRow(Row{Registry: "npm", Package: pkg}); got != want {
			t.Errorf("MatchRow(npm %q) = %q, want %q", pkg, got, want)
		}
	}
}

func TestLimitAndGroup(t *testing.T) {
	rows := []Row{{"debian", "python3-a", "1", ""}, {"debian", "python3-b", "1", ""}, {"debian", "node-a", "1", ""},
		{"debian-src", "x", "1", ""}, {"debian-src", "y", "1", ""}, {"npm", "@a/b", "1", ""}, {"npm", "c-d", "1", ""}}
	got := Limit(rows, 1)
	if len(got) != 4 || got[0].Package != "python3-a" || got[1].Package != "node-a" || got[2].Package != "x" || got[3].Package != "@a/b" {
		t.Errorf("Limit = %+v", got)
	}
}

// TestShippedWeightsAreRecorded: the weights built into the binary are
// the ones the full training run recorded (train/weights.sha256, which
// train/run.sh checks its output against), so the model in the product is
// the one the committed manifest and pipeline make.
func TestShippedWeightsAreRecorded(t *testing.T) {
	b, err := os.ReadFile("../../internal/embed/static/weights.bin")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile("../weights.sha256")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(rec))
	if got := fmt.Sprintf("%x", sha256.Sum256(b)); len(f) == 0 || got != f[0] {
		t.Errorf("sha256(weights.bin) = %s, train/weights.sha256 records %q", got, f)
	}
}

// TestWeightsRecipe: train/weights.recipe, what train/reproduce.sh runs to
// make the shipped weights again, is complete and agrees with the product:
// a full commit id, at least one seed and no seed twice, and the model name
// that the shipped weights.bin carries and static.ModelName declares. In a
// git checkout with history, the commit exists and its tree holds the
// pipeline reproduce.sh runs there (train/run.sh, train/train.py, the miner
// and the manifest).
func TestWeightsRecipe(t *testing.T) {
	b, err := os.ReadFile("../weights.recipe")
	if err != nil {
		t.Fatal(err)
	}
	rec := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if _, dup := rec[f[0]]; dup {
			t.Fatalf("train/weights.recipe: %q twice", f[0])
		}
		rec[f[0]] = f[1:]
	}
	commit := rec["commit"]
	if len(commit) != 1 || len(commit[0]) != 40 || strings.Trim(commit[0], "0123456789abcdef") != "" {
		t.Fatalf("train/weights.recipe: commit %q, want one full 40-digit commit id", commit)
	}
	seen := map[int]bool{}
	for _, s := range rec["seeds"] {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || seen[n] {
			t.Fatalf("train/weights.recipe: seeds %q, want distinct non-negative integers", rec["seeds"])
		}
		seen[n] = true
	}
	if len(seen) == 0 {
		t.Fatal("train/weights.recipe: no seeds")
	}
	if name := rec["name"]; len(name) != 1 || name[0] != static.ModelName {
		t.Fatalf("train/weights.recipe: name %q, static.ModelName is %q", name, static.ModelName)
	}
	w, err := os.ReadFile("../../internal/embed/static/weights.bin")
	if err != nil {
		t.Fatal(err)
	}
	m, err := static.Decode(w)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != static.ModelName {
		t.Errorf("weights.bin is named %q, the recipe %q", m.Name, static.ModelName)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command("git", "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Skip("not a git checkout (a source tarball)")
	}
	if sh, _ := exec.Command("git", "rev-parse", "--is-shallow-repository").Output(); strings.TrimSpace(string(sh)) == "true" {
		t.Skip("a shallow clone holds no history to read the commit from")
	}
	for _, f := range []string{"train/run.sh", "train/train.py", "train/cmd/mine/main.go", "train/manifest.tsv"} {
		if err := exec.Command("git", "cat-file", "-e", commit[0]+":"+f).Run(); err != nil {
			t.Errorf("the recipe's commit %s has no %s (or is not in this clone): %v", commit[0][:12], f, err)
		}
	}
}
