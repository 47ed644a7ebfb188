package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/index"
)

// TestReportNotesReanalysedFiles: an index run that re-embedded files only
// because the text analysis changed (a dictionary installed or removed)
// says so; a run without such files says nothing of it.
func TestReportNotesReanalysedFiles(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	printReport(&b, &index.Report{Project: "/p", Embedder: "local:hashing-768-v1", Scanned: 3, Changed: 2, Reanalysed: 2})
	if !strings.Contains(b.String(), "note: 2 files with Chinese text re-embedded because the text analysis changed") {
		t.Errorf("report:\n%s", b.String())
	}
	b.Reset()
	printReport(&b, &index.Report{Project: "/p", Embedder: "local:hashing-768-v1", Scanned: 3, Changed: 2})
	if strings.Contains(b.String(), "text analysis") || strings.Contains(b.String(), "stored vectors") {
		t.Errorf("report without re-analysed files or reused vectors:\n%s", b.String())
	}
	b.Reset()
	printReport(&b, &index.Report{Project: "/p", Embedder: "openai:text-embedding-3-small", Scanned: 3, Changed: 1, Chunks: 6, Reused: 5})
	if !strings.Contains(b.String(), "note: 5 of those chunks kept their stored vectors") {
		t.Errorf("report with reused vectors:\n%s", b.String())
	}
}

// TestReportNotesModelChanged: a run that found the remote server's model
// replaced behind the same name (index's model probe) says so in one line;
// another run does not.
func TestReportNotesModelChanged(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	printReport(&b, &index.Report{Project: "/p", Embedder: "ollama:nomic-embed-text", Scanned: 3, Changed: 3, ModelChanged: true})
	want := "note: " + index.ModelChangedNote("ollama:nomic-embed-text") + "\n"
	if !strings.Contains(b.String(), want) || !strings.Contains(want, "every file is embedded again") {
		t.Errorf("report:\n%s", b.String())
	}
	b.Reset()
	printReport(&b, &index.Report{Project: "/p", Embedder: "ollama:nomic-embed-text", Scanned: 3})
	if strings.Contains(b.String(), "probe") {
		t.Errorf("report without a replaced model:\n%s", b.String())
	}
}

// TestReportCapsFailures: a run with many failed files (vanished mid-run)
// lists ten and counts the rest, as it does its skips; and a run that
// parsed unchanged files again for their directory says how many.
func TestReportCapsFailures(t *testing.T) {
	t.Parallel()
	rep := &index.Report{Project: "/p", Embedder: "local:hashing-768-v1", Scanned: 300, Changed: 5, Reread: 3}
	for i := range 300 {
		rep.Failures = append(rep.Failures, index.Failure{Path: "gone" + strings.Repeat("x", i%3) + ".go", Err: "read: no such file"})
	}
	rep.Failed = len(rep.Failures)
	var b bytes.Buffer
	printReport(&b, rep)
	out := b.String()
	if n := strings.Count(out, "failed: gone"); n != 10 || !strings.Contains(out, "failed: ... and 290 more (see --json)") {
		t.Errorf("%d failure lines:\n%s", n, out)
	}
	if !strings.Contains(out, "note: 3 of the changed files did not change themselves") {
		t.Errorf("no note of the re-read files:\n%s", out)
	}
}

// TestProgressLine: the plain progress line gives the rate and, while
// files remain after the first line, the time left at the rate since
// that line; the first line (the run's start in its rate) has none.
func TestProgressLine(t *testing.T) {
	first := index.Progress{Phase: "index", Done: 10, Total: 1000, Elapsed: 1500 * time.Millisecond}
	for _, c := range []struct {
		pr, from index.Progress
		want     string
	}{
		{first, first, "processed 10/1000 files to index (7 files/s)"},
		// 90 files in 1.5 s since the first line: 60 files/s for 900 left
		{index.Progress{Phase: "index", Done: 100, Total: 1000, Elapsed: 3 * time.Second}, first,
			"processed 100/1000 files to index (33 files/s, about 15s left)"},
		{index.Progress{Phase: "index", Done: 1200, Total: 69178, Elapsed: 10 * time.Second}, index.Progress{},
			"processed 1200/69178 files to index (120 files/s, about 9m26s left)"},
		{index.Progress{Phase: "index", Done: 10, Total: 10, Elapsed: time.Second}, index.Progress{},
			"processed 10/10 files to index (10 files/s)"},
	} {
		if got := progressLine(c.pr, c.from); got != c.want {
			t.Errorf("progressLine(%+v, %+v) = %q, want %q", c.pr, c.from, got, c.want)
		}
	}
}

// TestProgressThrottledOffTerminal: off a terminal, an index run of 9,000
// files at 80 files/s writes its first line after 10 files, then at most
// one line every progressEvery, and the last line; each line but the last
// keeps the rate and the time left (it wrote 900 lines, one per 10 files).
func TestProgressThrottledOffTerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p.update(index.Progress{Phase: "scan", Total: 9000})
	const total, rate = 9000, 80
	for done := 1; done <= total; done++ {
		el := time.Duration(float64(done) / rate * float64(time.Second))
		p.update(index.Progress{Phase: "index", Done: done, Total: total, Elapsed: el})
	}
	p.update(index.Progress{Phase: "done", Done: total, Total: total, Elapsed: 113 * time.Second})
	p.finish()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// 112.5 s of indexing: the first line, one per 5 s, the last
	if len(lines) < 20 || len(lines) > 25 {
		t.Fatalf("%d progress lines, want about 24:\n%s", len(lines), b.String())
	}
	if want := "processed 10/9000 files to index (80 files/s)"; lines[0] != want {
		t.Errorf("first line %q, want %q (no estimate yet)", lines[0], want)
	}
	if want := "processed 9000/9000 files to index (80 files/s)"; lines[len(lines)-1] != want {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
	}
	if !strings.HasSuffix(lines[1], "(80 files/s, about 1m47s left)") {
		t.Errorf("second line %q: want the time left at 80 files/s", lines[1])
	}
	for _, l := range lines[1 : len(lines)-1] {
		if !strings.Contains(l, " files/s, about ") || !strings.HasSuffix(l, " left)") {
			t.Errorf("line without the rate and the time left: %q", l)
		}
	}
	// a slow run still says something every progressEvery before 10 files
	b.Reset()
	p = newProgress(&b)
	for done := 1; done <= 3; done++ {
		p.update(index.Progress{Phase: "index", Done: done, Total: 50, Elapsed: time.Duration(done) * 4 * time.Second})
	}
	if got := strings.Count(b.String(), "\n"); got != 1 || !strings.HasPrefix(b.String(), "processed 2/50 ") {
		t.Errorf("slow run: %q, want one line at 2 files", b.String())
	}
}
