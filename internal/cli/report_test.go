package cli

import (
	"bytes"
	"strings"
	"testing"

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
	if strings.Contains(b.String(), "text analysis") {
		t.Errorf("report without re-analysed files:\n%s", b.String())
	}
}
