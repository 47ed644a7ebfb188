package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/lines"
)

// goldenBudget is the output budget of a golden task; the output may exceed
// it by goldenSlack (the note).
const (
	goldenBudget = 6000
	goldenSlack  = 500
)

type goldenTask struct {
	Question   string     `json:"question"`
	Query      GrepParams `json:"query"`
	TargetPath string     `json:"target_path"`
	TargetText string     `json:"target_text"`
}

func stdlibRoot(t testing.TB) string {
	t.Helper()
	root := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(root, "net", "http", "server.go")); err != nil {
		t.Skipf("Go standard library source not found: %v", err)
	}
	return root
}

// TestGoldenStdlib runs locate-the-code tasks over the Go standard library
// through both engines: the target line must be in the output within the
// budget, a read_file suggestion must cover it, and following the
// suggestion must show the line.
func TestGoldenStdlib(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: searches the whole Go standard library")
	}
	root := stdlibRoot(t)
	data, err := os.ReadFile("testdata/grep_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Tasks []goldenTask `json:"tasks"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Tasks) < 5 {
		t.Fatalf("only %d golden tasks", len(set.Tasks))
	}
	for _, task := range set.Tasks {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(task.TargetPath)))
		if err != nil {
			t.Fatalf("%s: %v", task.Question, err)
		}
		line := 0
		for i, l := range lines.Split(string(src)) {
			if strings.Contains(l, task.TargetText) {
				line = i + 1
				break
			}
		}
		if line == 0 {
			t.Fatalf("%s: %q not in %s", task.Question, task.TargetText, task.TargetPath)
		}
		for _, engine := range []string{EngineRipgrep, EngineNative} {
			t.Run(engine+"/"+task.Question, func(t *testing.T) {
				if engine == EngineRipgrep {
					needRG(t)
				}
				p := task.Query
				p.Engine, p.MaxChars = engine, goldenBudget
				p.Timeout = time.Minute // a loaded CI machine must not turn this into a timeout test
				r, err := Grep(context.Background(), root, p)
				if err != nil {
					t.Fatal(err)
				}
				out := r.Text()
				if len(out) > goldenBudget+goldenSlack {
					t.Errorf("output %d chars, budget %d+%d", len(out), goldenBudget, goldenSlack)
				}
				at := strings.Index(out, task.TargetPath+"\n")
				if at < 0 || !strings.Contains(out[at:], fmt.Sprintf("  %d: ", line)) {
					t.Fatalf("target %s:%d not in output:\n%s", task.TargetPath, line, out)
				}
				var sug *SuggestedRead
				for i := range r.SuggestedReads {
					if r.SuggestedReads[i].Args.Path == task.TargetPath {
						sug = &r.SuggestedReads[i]
					}
				}
				if sug == nil {
					t.Fatalf("no suggested read for %s: %+v", task.TargetPath, r.SuggestedReads)
				}
				rd, err := Read(context.Background(), root, sug.Args)
				if err != nil {
					t.Fatalf("following %+v: %v", sug.Args, err)
				}
				i := line - rd.Offset
				if i < 0 || i >= len(rd.Lines) || !strings.Contains(rd.Lines[i], task.TargetText) ||
					!strings.Contains(rd.Text, fmt.Sprintf("%6d\t", line)) {
					t.Fatalf("read %+v does not show line %d", sug.Args, line)
				}
				t.Logf("%d matches, %d chars, partial=%v %v", len(r.Matches), len(out), r.Partial, r.PartialReasons)
			})
		}
	}
}
