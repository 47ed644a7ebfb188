package search

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/zh"
)

// TestColdStartChinese measures, in fresh processes, what the first query
// costs in query analysis (dictionary location and loading from its cache,
// segmentation, translation, the local embedder's query vector): a Chinese
// query against an English one. It asserts nothing about time (the machine
// is shared); it prints medians. Run with CODERAG_COLDSTART=N (processes
// per query).
func TestColdStartChinese(t *testing.T) {
	if v := os.Getenv("CODERAG_COLDSTART_CHILD"); v != "" {
		coldChild(t, v)
		return
	}
	n, _ := strconv.Atoi(os.Getenv("CODERAG_COLDSTART"))
	if n <= 0 {
		t.Skip("set CODERAG_COLDSTART=N to measure")
	}
	withRealDictionary(t) // builds the cache once, outside the measurement
	queries := map[string]string{"en": "how are route parameters extracted from the path", "zh": "路由参数是怎么从路径里提取的",
		"zh-glossary-only": "路由参数是怎么从路径里提取的"}
	res := map[string][]float64{}
	for i := 0; i < n; i++ {
		for _, k := range []string{"en", "zh", "zh-glossary-only"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestColdStartChinese$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CODERAG_COLDSTART_CHILD="+queries[k])
			if k == "zh-glossary-only" {
				cmd.Env = append(cmd.Env, "CODERAG_COLDSTART_NODICT=1")
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if v, ok := strings.CutPrefix(strings.TrimSpace(line), "COLD "); ok {
					f, _ := strconv.ParseFloat(v, 64)
					res[k] = append(res[k], f)
				}
			}
		}
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[len(v)/2] }
	t.Logf("first query analysis in a new process, median of %d: en %.2f ms, zh %.2f ms (extra %.2f ms), zh without the dictionary %.2f ms",
		n, med(res["en"]), med(res["zh"]), med(res["zh"])-med(res["en"]), med(res["zh-glossary-only"]))
}

func coldChild(t *testing.T, query string) {
	wd, _ := os.Getwd()
	start := time.Now()
	an := analyze.New(nil)
	if os.Getenv("CODERAG_COLDSTART_NODICT") == "" {
		an = testDictionary(wd)
	}
	e, err := local.New(local.Options{Expand: analyze.GlossaryExpand, Analyzer: an})
	if err != nil {
		t.Fatal(err)
	}
	_ = AnalyzeQuery(an, query, DefaultHybridParams().QueryOptions)
	_ = an.ExpandQuery(query)
	if _, err := e.EmbedQuery(t.Context(), query); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("COLD %.3f\n", float64(time.Since(start).Microseconds())/1000)
}

// testDictionary is an Analyzer that loads the installed CC-CEDICT,
// found from wd, on first use.
func testDictionary(wd string) *analyze.Analyzer {
	return analyze.New(func() (*zh.Dict, error) {
		path, _, err := zh.Locate(zh.Locations{Cwd: wd})
		if err != nil {
			return nil, err
		}
		return zh.Load(path, filepath.Join(os.TempDir(), "coderag-zh-test-cache"))
	})
}
