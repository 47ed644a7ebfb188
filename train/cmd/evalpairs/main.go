// Command evalpairs is the intrinsic evaluation of the model card: MRR@10 of
// held-out doc pairs (train/cmd/mine's heldout.jsonl, from packages kept out
// of training). Each query (a doc comment's first paragraph) is ranked
// against every code text of the same language (the functions the comments
// documented, comment removed), by cosine of EmbedQuery(query) and
// Embed(code); the pair's own code is the one right answer. It prints one
// line per language and the mean over all, for the learned model and for the
// hashing embedder on the same pairs.
//
// Usage: evalpairs -heldout DIR/heldout.jsonl [-weights FILE]
//
//	evalpairs -neighbors remove,阻塞 [-weights FILE]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/local"
	"github.com/coderag/coderag/internal/embed/static"
	"github.com/coderag/coderag/internal/vec"
)

type pair struct {
	Lang, Pkg, Query, Code string
}

func main() {
	held := flag.String("heldout", "", "heldout.jsonl")
	weights := flag.String("weights", "", "weights file (default: the built-in model)")
	words := flag.String("neighbors", "", "comma-separated words: print their 8 nearest vocabulary words and stop")
	flag.Parse()
	if *words != "" {
		e, err := load(*weights)
		if err != nil {
			fmt.Fprintln(os.Stderr, "evalpairs:", err)
			os.Exit(1)
		}
		for _, w := range strings.Split(*words, ",") {
			fmt.Printf("%s:", w)
			for _, n := range e.Neighbors(w, 8) {
				fmt.Printf(" %s %.2f", n.Word, n.Score)
			}
			fmt.Println()
		}
		return
	}
	if err := run(*held, *weights); err != nil {
		fmt.Fprintln(os.Stderr, "evalpairs:", err)
		os.Exit(1)
	}
}

func run(held, weights string) error {
	f, err := os.Open(held)
	if err != nil {
		return err
	}
	defer f.Close()
	byLang := map[string][]pair{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var p pair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return err
		}
		byLang[p.Lang] = append(byLang[p.Lang], p)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	learned, err := load(weights)
	if err != nil {
		return err
	}
	hashing, err := local.New(local.Options{})
	if err != nil {
		return err
	}
	var langs []string
	for l := range byLang {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	fmt.Printf("%-12s %6s %9s %9s   (MRR@10, each query against all codes of its language)\n", "language", "pairs", learned.ID()[6:], "hashing")
	var sumL, sumH float64
	var n int
	for _, l := range langs {
		ps := byLang[l]
		ml, err := mrr(learned, ps)
		if err != nil {
			return err
		}
		mh, err := mrr(hashing, ps)
		if err != nil {
			return err
		}
		fmt.Printf("%-12s %6d %9.3f %9.3f\n", l, len(ps), ml, mh)
		sumL += ml * float64(len(ps))
		sumH += mh * float64(len(ps))
		n += len(ps)
	}
	fmt.Printf("%-12s %6d %9.3f %9.3f\n", "all", n, sumL/float64(n), sumH/float64(n))
	return nil
}

// load returns the model of a weights file, or the built-in one for "".
func load(weights string) (*static.Embedder, error) {
	if weights == "" {
		return static.New()
	}
	b, err := os.ReadFile(weights)
	if err != nil {
		return nil, err
	}
	m, err := static.Decode(b)
	if err != nil {
		return nil, err
	}
	return static.NewFromModel(m), nil
}

func mrr(e embed.Embedder, ps []pair) (float64, error) {
	ctx := context.Background()
	codes := make([]string, len(ps))
	for i, p := range ps {
		codes[i] = p.Code
	}
	cv, err := e.Embed(ctx, codes)
	if err != nil {
		return 0, err
	}
	var sum float64
	for i, p := range ps {
		q, err := e.EmbedQuery(ctx, p.Query)
		if err != nil {
			return 0, err
		}
		own := vec.Dot(q, cv[i])
		rank := 1
		for j, c := range cv {
			if j != i && c != nil && vec.Dot(q, c) > own {
				rank++
			}
		}
		if rank <= 10 {
			sum += 1 / float64(rank)
		}
	}
	return sum / float64(len(ps)), nil
}
