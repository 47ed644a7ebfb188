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
	if !strings.Contains(b.String(), "note: 2 file(s) with Chinese text re-embedded because the text analysis changed") {
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
// files remain, the time left at that rate.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		pr   index.Progress
		want string
	}{
		{index.Progress{Phase: "index", Done: 100, Total: 1000, Elapsed: 2 * time.Second},
			"processed 100/1000 files to index (50 files/s, about 18s left)"},
		{index.Progress{Phase: "index", Done: 1200, Total: 69178, Elapsed: 10 * time.Second},
			"processed 1200/69178 files to index (120 files/s, about 9m26s left)"},
		{index.Progress{Phase: "index", Done: 10, Total: 10, Elapsed: time.Second},
			"processed 10/10 files to index (10 files/s)"},
	} {
		if got := progressLine(c.pr); got != c.want {
			t.Errorf("progressLine(%+v) = %q, want %q", c.pr, got, c.want)
		}
	}
}
