package chunk

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lang"
)

var (
	reportDirs    = flag.String("report", "", "comma-separated directories: print a per-language chunking report (files, chunks, relations, fallbacks, errors, lines/s) and exit")
	reportWorkers = flag.Int("report-workers", 1, "parallel Parse calls for -report")
)

// corpusStats aggregates Parse results for one language.
type corpusStats struct {
	Files, Lines, Chunks, Relations, Fallbacks, ErrFiles, Errors int
	Bytes                                                        int64
	Busy                                                         time.Duration // sum of per-file Parse thread CPU time
}

// corpus is the result of chunking a directory tree.
type corpus struct {
	byLang map[string]*corpusStats
	errs   []string // "path: error" for Parse errors (panics included)
	odd    []string // fallback files of languages with a grammar, for review
	wall   time.Duration
	cpu    time.Duration // user+sys CPU of the process during the run
}

func (c *corpus) total() corpusStats {
	var t corpusStats
	for _, s := range c.byLang {
		t.Files += s.Files
		t.Lines += s.Lines
		t.Chunks += s.Chunks
		t.Relations += s.Relations
		t.Fallbacks += s.Fallbacks
		t.ErrFiles += s.ErrFiles
		t.Errors += s.Errors
		t.Bytes += s.Bytes
		t.Busy += s.Busy
	}
	return t
}

func cpuTime() time.Duration { return rusage(syscall.RUSAGE_SELF) }

// threadCPU is the CPU time of the calling OS thread (Linux RUSAGE_THREAD),
// so a worker's per-file cost does not count time the shared machine gave to
// other processes.
func threadCPU() time.Duration { return rusage(1) }

func rusage(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// chunkCorpus parses every indexable file (≤ 1 MiB, not in hidden,
// node_modules, vendor or site-packages directories) under root with the given number of
// workers. accept, if set, filters paths.
func chunkCorpus(root string, workers int, accept func(string) bool) (*corpus, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "vendor" || n == "site-packages") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || lang.Detect(p) == "" || (accept != nil && !accept(p)) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return nil
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	c := &corpus{byLang: map[string]*corpusStats{}}
	var mu sync.Mutex
	work := make(chan string)
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < max(workers, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for p := range work {
				src, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				rel, _ := filepath.Rel(root, p)
				t0 := threadCPU()
				r, perr := Parse(filepath.ToSlash(rel), src)
				d := threadCPU() - t0
				l := lang.Detect(p)
				mu.Lock()
				s := c.byLang[l]
				if s == nil {
					s = &corpusStats{}
					c.byLang[l] = s
				}
				s.Files++
				s.Bytes += int64(len(src))
				s.Lines += bytes.Count(src, []byte{'\n'})
				s.Busy += d
				if perr != nil {
					s.Errors++
					c.errs = append(c.errs, fmt.Sprintf("%s: %v", rel, perr))
				} else {
					s.Chunks += len(r.Chunks)
					s.Relations += len(r.Relations)
					if r.Fallback {
						s.Fallbacks++
						if grammarFuncs[l] != nil {
							c.odd = append(c.odd, fmt.Sprintf("%s (%d tree errors)", rel, r.ParseErrors))
						}
					}
					if r.ParseErrors > 0 {
						s.ErrFiles++
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	c.wall, c.cpu = time.Since(start), cpuTime()-cpu0
	return c, nil
}

func (c *corpus) print(w io.Writer, title string) {
	fmt.Fprintf(w, "== %s\n%-11s %7s %9s %8s %9s %9s %9s %6s %12s\n", title,
		"language", "files", "lines", "chunks", "relations", "fallbacks", "tree-errs", "errors", "lines/s/core")
	langs := make([]string, 0, len(c.byLang))
	for l := range c.byLang {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	row := func(name string, s corpusStats) {
		rate := 0.0
		if s.Busy > 0 {
			rate = float64(s.Lines) / s.Busy.Seconds()
		}
		fmt.Fprintf(w, "%-11s %7d %9d %8d %9d %9d %9d %6d %12.0f\n", name, s.Files, s.Lines, s.Chunks,
			s.Relations, s.Fallbacks, s.ErrFiles, s.Errors, rate)
	}
	for _, l := range langs {
		row(l, *c.byLang[l])
	}
	t := c.total()
	row("TOTAL", t)
	fmt.Fprintf(w, "wall %.1fs, process CPU %.1fs -> %.0f lines per CPU-second; %d Parse errors\n",
		c.wall.Seconds(), c.cpu.Seconds(), float64(t.Lines)/c.cpu.Seconds(), len(c.errs))
	for i, e := range c.errs {
		if i == 10 {
			break
		}
		fmt.Fprintln(w, "  ", strings.SplitN(e, "\n", 2)[0])
	}
	sort.Strings(c.odd)
	for i, e := range c.odd {
		if i == 20 {
			fmt.Fprintf(w, "   ... %d more\n", len(c.odd)-i)
			break
		}
		fmt.Fprintln(w, "   fallback:", e)
	}
}

// TestReport prints the chunking report over the -report directories, e.g.
//
//	go test ./internal/chunk -run TestReport -v -timeout 30m \
//	  -report "$(go env GOROOT)/src,/tmp/jdk/java.base,$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
//
// "fallbacks" are files chunked by lines (no grammar, minified, or mostly
// ERROR nodes), "tree-errs" files whose tree has any ERROR/MISSING node,
// "errors" Parse errors (recovered panics); lines/s/core is lines divided by
// the summed per-file Parse CPU time of the worker threads.
func TestReport(t *testing.T) {
	if *reportDirs == "" {
		t.Skip("no -report directories")
	}
	for _, dir := range strings.Split(*reportDirs, ",") {
		c, err := chunkCorpus(dir, *reportWorkers, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.print(os.Stdout, dir)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("Go heap: sys %d MiB\n", ms.Sys>>20)
}

// TestGoStdlib chunks a part of the Go standard library (all of it without
// -short takes about a minute on one core) and requires no Parse error and
// sensible counts.
func TestGoStdlib(t *testing.T) {
	t.Parallel()
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no GOROOT/src")
	}
	accept := func(p string) bool {
		return strings.HasSuffix(p, ".go") && !strings.Contains(p, string(filepath.Separator)+"testdata"+string(filepath.Separator))
	}
	dirs := []string{"net/http", "strings", "encoding/json", "go/parser", "sort"}
	if testing.Short() {
		dirs = dirs[:2]
	}
	for _, d := range dirs {
		c, err := chunkCorpus(filepath.Join(root, d), runtime.GOMAXPROCS(0), accept)
		if err != nil {
			t.Fatal(err)
		}
		s := c.total()
		if len(c.errs) > 0 {
			t.Errorf("%s: %d Parse errors, first: %s", d, len(c.errs), c.errs[0])
		}
		if s.Files == 0 || s.Fallbacks > 0 || s.Chunks < 5*s.Files || s.Relations < 10*s.Files {
			t.Errorf("%s: files=%d chunks=%d relations=%d fallbacks=%d", d, s.Files, s.Chunks, s.Relations, s.Fallbacks)
		}
		t.Logf("%s: %d files, %d lines, %d chunks, %d relations, %d with tree errors, %.0f lines/s busy",
			d, s.Files, s.Lines, s.Chunks, s.Relations, s.ErrFiles, float64(s.Lines)/s.Busy.Seconds())
	}
}

// BenchmarkParseJava measures parse + chunk + relations over the JDK
// java.base sources (CODERAG_JDK_SRC, default /tmp/jdk/java.base) and reports
// lines/s on one goroutine.
func BenchmarkParseJava(b *testing.B) {
	root := os.Getenv("CODERAG_JDK_SRC")
	if root == "" {
		root = "/tmp/jdk/java.base"
	}
	type file struct {
		path string
		src  []byte
	}
	var files []file
	lines := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
			if src, err := os.ReadFile(p); err == nil {
				files = append(files, file{p, src})
				lines += bytes.Count(src, []byte{'\n'})
			}
		}
		return nil
	})
	if len(files) == 0 {
		b.Skipf("no JDK sources under %s (unzip $JAVA_HOME/lib/src.zip 'java.base/*')", root)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			if _, err := Parse(f.path, f.src); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(lines), "lines/op")
}
