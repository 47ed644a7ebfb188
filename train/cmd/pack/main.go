// Command pack turns the float32 files train/train.py writes into the
// quantised weights file of internal/embed/static (format.go) and prints its
// sha256.
//
// Usage: pack -pairs DIR -model DIR[,DIR...] -dim 256 -name coderag-code-v6 -out internal/embed/static/weights.bin
//
// -pairs is train/cmd/mine's output (vocab.txt, meta.json, and tq.ids and
// td.ids for a merge), -model is train.py's (table.f32, wdoc.f32,
// wquery.f32). Several -model directories, trained from the same pairs with
// different seeds, are merged into one table of -dim columns (see merge).
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
	model := flag.String("model", "", "train.py output directory; several, comma-separated, are merged")
	dim := flag.Int("dim", 256, "vector dimension")
	name := flag.String("name", "coderag-code-v6", "model name")
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
	n := len(vocab) + meta.NBuckets
	var ms []member
	for _, dir := range strings.Split(model, ",") {
		var m member
		for _, f := range []struct {
			name string
			dst  *[]float32
		}{{"table.f32", &m.table}, {"wdoc.f32", &m.wd}, {"wquery.f32", &m.wq}} {
			if *f.dst, err = floats(filepath.Join(dir, f.name)); err != nil {
				return err
			}
		}
		if len(m.table) != n*dim || len(m.wd) != n || len(m.wq) != n {
			return fmt.Errorf("%s: table of %d values and weights of %d/%d, want %d rows of %d", dir, len(m.table), len(m.wd), len(m.wq), n, dim)
		}
		ms = append(ms, m)
	}
	table, wd, wq := ms[0].table, ms[0].wd, ms[0].wq
	if len(ms) > 1 {
		counts, err := tokenCounts(pairs, n)
		if err != nil {
			return err
		}
		if table, wq, wd, err = merge(ms, dim, dim, counts); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "pack: merged %d models\n", len(ms))
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
