package search

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/store"
)

// FuzzMatchExpr: any query's terms — and any list of terms — are searched
// by store.KeywordSearch without an error: user text is never parsed as
// FTS syntax (quotes, NEAR, column filters, ^, *, NUL bytes). The seed
// corpus is in testdata/fuzz/FuzzMatchExpr.
func FuzzMatchExpr(f *testing.F) {
	for _, q := range []string{
		"parse the HTTP request line", `"unterminated`, `name:Retry OR body:x`, "NEAR(a b, 3)", "a AND NOT b", "^start*",
		"重试逻辑在哪", "上下文是怎么压缩的", "HashMap.resize()", "a\x00b", `""`, "-", "(", ")", "{col1 col2}: x", "+", "*",
		"\xff\xfe", "retry_after_ms RetryAfterMs retry-after", strings.Repeat("x", 300),
	} {
		f.Add(q)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(f.TempDir(), "index.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	if err := st.PutProject(ctx, store.Project{Path: "/p", Embedder: "local:test", Dim: 2}); err != nil {
		f.Fatal(err)
	}
	fd := store.FileData{Record: store.FileRecord{Path: "a.go", SHA256: "x", Embedder: "local:test", Size: 1, MtimeNS: 1}}
	fd.Chunks = []store.ChunkRow{{Path: "a.go", Type: "function", Name: "RetryAfter", StartLine: 1, EndLine: 2, DeclEndLine: 1,
		Content: "func RetryAfter() {}", Embedder: "local:test", NameTerms: "retri after retryafter", BodyTerms: "func retri after 重试"}}
	if err := st.ReplaceFiles(ctx, "/p", []store.FileData{fd}, nil); err != nil {
		f.Fatal(err)
	}
	w := DefaultHybridParams().FTS
	f.Fuzz(func(t *testing.T, q string) {
		for _, terms := range [][]string{QueryTerms(q), {q}, strings.Fields(q)} {
			if _, err := st.KeywordSearch(ctx, "/p", terms, w, 5); err != nil {
				t.Fatalf("terms %q: %v", terms, err)
			}
		}
	})
}
