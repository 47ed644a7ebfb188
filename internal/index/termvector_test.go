package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coderag/coderag/internal/analyze"
	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/embed/static"
)

// termVector gives, for every ASCII chunk, the vector Embed gives its
// chunk.EmbedText and the full-text body analyze.Join gives its content:
// the chunks of the chunker's testdata in every language, and long chunks
// whose embedding text is cut inside a word, at a word's end, after
// punctuation and inside a run of punctuation.
func TestTermVectorEqualsEmbed(t *testing.T) {
	learned, err := static.New()
	if err != nil {
		t.Fatal(err)
	}
	var chunks []chunk.Chunk
	files, _ := filepath.Glob(filepath.Join("..", "chunk", "testdata", "*", "*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".json") || strings.HasSuffix(f, ".md") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		res, err := chunk.Parse(filepath.Base(f), src)
		if err != nil {
			t.Fatal(err)
		}
		chunks = append(chunks, res.Chunks...)
	}
	word := strings.Repeat("abcdefghij", 3)
	for pad := range 40 {
		// the head "[function:f] " is 13 bytes; the cut falls at byte
		// 2000-13 of the content, moved by pad through words and
		// punctuation
		content := strings.Repeat("x", pad) + strings.Repeat(" parseHeaderLine_"+word+"(a, b);; ", 120)
		chunks = append(chunks, chunk.Chunk{Type: "function", Name: "f", Content: content})
	}
	ascii, long := 0, 0
	for _, ch := range chunks {
		vec, body, ok := termVector(learned, ch)
		text := chunk.EmbedText(ch)
		if !ok {
			if isASCII(text) {
				t.Fatalf("an ASCII chunk not embedded from its terms: %q", text[:min(60, len(text))])
			}
			continue
		}
		ascii++
		if len(text) < len("["+ch.Type+":"+ch.Name+"] ")+len(ch.Content) {
			long++
		}
		want, err := learned.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(vec, want[0]) {
			t.Fatalf("vector of %s %q differs from Embed's", ch.Type, ch.Name)
		}
		if got, want := strings.Join(body, " "), analyze.Join(ch.Content); got != want {
			t.Fatalf("body terms of %s %q differ from analyze.Join's:\n%.200s\n%.200s", ch.Type, ch.Name, got, want)
		}
	}
	if ascii < 200 || long < 40 {
		t.Fatalf("only %d ASCII chunks compared, %d of them cut", ascii, long)
	}
	t.Logf("%d chunks, %d ASCII, %d cut", len(chunks), ascii, long)
}
