package chunk

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/coderag/coderag/internal/lang"
)

// benchCorpora names, per language, a checkout of the semble benchmark
// (under $CODERAG_BENCH_REPOS, default /tmp/semble/repos) whose files of that
// language make the corpus.
var benchCorpora = []struct{ language, repo string }{
	{"java", "gson"},
	{"zig", "zls"},
	{"swift", "vapor"},
	{"lua", "telescope.nvim"},
	{"elixir", "phoenix"},
	{"haskell", "pandoc"},
	{"rust", "axum"},
	{"typescript", "zod"},
}

// maxBenchBytes caps each corpus so that languages are compared on similar
// amounts of code.
const maxBenchBytes = 2 << 20

// BenchmarkParseThroughput parses real files of each language, one at a
// time on one goroutine, and reports lines/s (per core, as Parse is
// single-threaded). Run it with -cpu 1 so the numbers of one run compare:
//
//	go test ./internal/chunk -run '^$' -bench ParseThroughput -cpu 1
func BenchmarkParseThroughput(b *testing.B) {
	root := os.Getenv("CODERAG_BENCH_REPOS")
	if root == "" {
		root = "/tmp/semble/repos"
	}
	for _, c := range benchCorpora {
		b.Run(c.language, func(b *testing.B) {
			files, total, lines := benchCorpus(filepath.Join(root, c.repo), c.language)
			if len(files) == 0 {
				b.Skipf("no %s files under %s", c.language, filepath.Join(root, c.repo))
			}
			b.SetBytes(int64(total))
			b.ResetTimer()
			for b.Loop() {
				for _, f := range files {
					if _, err := Parse(f.path, f.src); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

type benchFile struct {
	path string
	src  []byte
}

func benchCorpus(dir, language string) (files []benchFile, total, lines int) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || total >= maxBenchBytes || lang.Detect(p) != language {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, benchFile{path: filepath.ToSlash(rel), src: src})
		total += len(src)
		lines += bytes.Count(src, []byte{'\n'}) + 1
		return nil
	})
	return files, total, lines
}
