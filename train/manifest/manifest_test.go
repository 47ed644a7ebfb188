package manifest

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
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

// TestWeightsCommitHoldsTheWeights: train/weights.commit, the commit whose
// pipeline train/reproduce.sh runs to make the shipped weights again,
// carries exactly the shipped weights.bin (git's blob id of the file in that
// commit equals the working file's), so reproduce.sh compares against the
// bytes that commit's train/run.sh was checked to make.
func TestWeightsCommitHoldsTheWeights(t *testing.T) {
	c, err := os.ReadFile("../weights.commit")
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(c))
	if len(commit) != 40 {
		t.Fatalf("train/weights.commit holds %q, want a full 40-digit commit id", commit)
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
	out, err := exec.Command("git", "rev-parse", commit+":internal/embed/static/weights.bin").Output()
	if err != nil {
		t.Fatalf("git rev-parse %s:internal/embed/static/weights.bin: %v (is the clone shallow?)", commit, err)
	}
	work, err := exec.Command("git", "hash-object", "../../internal/embed/static/weights.bin").Output()
	if err != nil {
		t.Fatal(err)
	}
	if a, b := strings.TrimSpace(string(out)), strings.TrimSpace(string(work)); a != b {
		t.Errorf("weights.bin at %s is blob %s, the working file is %s", commit[:12], a, b)
	}
}
