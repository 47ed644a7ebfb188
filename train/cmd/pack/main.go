// Command pack turns the float32 files train/train.py writes into the
// quantised weights file of internal/embed/static (format.go) and prints its
// sha256.
//
// Usage: pack -pairs DIR -model DIR -dim 256 -name coderag-code-v4 -out internal/embed/static/weights.bin
//
// -pairs is train/cmd/mine's output (vocab.txt, meta.json), -model is
// train.py's (table.f32, wdoc.f32, wquery.f32).
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/coderag/coderag/internal/embed/static"
)

func main() {
	pairs := flag.String("pairs", "", "miner output directory")
	model := flag.String("model", "", "train.py output directory")
	dim := flag.Int("dim", 256, "vector dimension")
	name := flag.String("name", "coderag-code-v4", "model name")
	out := flag.String("out", "internal/embed/static/weights.bin", "weights file to write")
	flag.Parse()
	if err := run(*pairs, *model, *dim, *name, *out); err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
}

func floats(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

func run(pairs, model string, dim int, name, out string) error {
	vb, err := os.ReadFile(filepath.Join(pairs, "vocab.txt"))
	if err != nil {
		return err
	}
	vocab := strings.Split(strings.TrimSuffix(string(vb), "\n"), "\n")
	var meta struct {
		NBuckets int `json:"nbuckets"`
		NVocab   int `json:"nvocab"`
	}
	mb, err := os.ReadFile(filepath.Join(pairs, "meta.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(mb, &meta); err != nil {
		return err
	}
	if meta.NVocab != len(vocab) {
		return fmt.Errorf("vocab.txt has %d tokens, meta.json says %d", len(vocab), meta.NVocab)
	}
	table, err := floats(filepath.Join(model, "table.f32"))
	if err != nil {
		return err
	}
	wd, err := floats(filepath.Join(model, "wdoc.f32"))
	if err != nil {
		return err
	}
	wq, err := floats(filepath.Join(model, "wquery.f32"))
	if err != nil {
		return err
	}
	n := len(vocab) + meta.NBuckets
	if len(table) != n*dim || len(wd) != n || len(wq) != n {
		return fmt.Errorf("table of %d values and weights of %d/%d, want %d rows of %d", len(table), len(wd), len(wq), n, dim)
	}
	rows, scale := static.Quantize(table, dim)
	b, err := static.Encode(&static.Model{Name: name, Dim: dim, Vocab: vocab, Buckets: meta.NBuckets,
		WDoc: wd, WQuery: wq, Scale: scale, Rows: rows})
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Printf("%x  %s\n", sha256.Sum256(b), filepath.Base(out))
	fmt.Fprintf(os.Stderr, "pack: %d rows x %d, %.1f MB\n", n, dim, float64(len(b))/1e6)
	return nil
}
