package embedtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/vec"
)

// Subject is one embedder under the contract.
type Subject struct {
	// New returns a fresh embedder (no state from earlier subtests). A
	// client that learns something on its first call (Ollama's legacy
	// fallback) may be returned warmed up, so request counts are steady.
	New func(t *testing.T) embed.Embedder
	// Server is the fake behind a remote embedder; nil for in-process ones.
	Server *Server
	// BatchSize is the embedder's texts per request (for request counts).
	BatchSize int
}

// Run checks the behaviour every embed.Embedder must show: ID form, order
// kept, nil slots for blank inputs that are never sent, truncation to
// embed.MaxInputRunes runes, ceil(n/batch) requests, normalised vectors of
// Dim() values, determinism, queries, and context cancellation.
func Run(t *testing.T, s Subject) {
	ctx := context.Background()
	requests := func() int {
		if s.Server == nil {
			return 0
		}
		return s.Server.Requests()
	}

	t.Run("ID", func(t *testing.T) {
		e := s.New(t)
		p, m := embed.ParseID(e.ID())
		if p == "" || m == "" || p+":"+m != e.ID() {
			t.Fatalf("ID() = %q, want provider:model", e.ID())
		}
	})

	t.Run("OrderKept", func(t *testing.T) {
		e := s.New(t)
		texts := []string{"func (s *Server) Serve(l net.Listener) error", "class OvertimeService", "读取配置文件", "parse_json_body", "HTTPClient.Do"}
		all, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != len(texts) {
			t.Fatalf("got %d vectors for %d texts", len(all), len(texts))
		}
		for i, txt := range texts {
			one, err := e.Embed(ctx, []string{txt})
			if err != nil {
				t.Fatal(err)
			}
			if c := vec.Dot(all[i], one[0]); c < 0.9999 {
				t.Errorf("text %d: batched vs alone cosine %.6f, want 1", i, c)
			}
			for j := range texts {
				if j != i && vec.Dot(all[i], all[j]) > 0.999 {
					t.Errorf("texts %d and %d got the same vector", i, j)
				}
			}
		}
	})

	t.Run("NormalisedAndDim", func(t *testing.T) {
		e := s.New(t)
		vs, err := e.Embed(ctx, []string{"alpha", "beta gamma", "δέλτα", "结构体 struct"})
		if err != nil {
			t.Fatal(err)
		}
		if err := embed.Validate(vs, e.Dim()); err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if n := vec.Norm(v); math.Abs(n-1) > 1e-4 {
				t.Errorf("vector %d norm %.6f, want 1", i, n)
			}
		}
		if e.Dim() <= 0 {
			t.Errorf("Dim() = %d after a call", e.Dim())
		}
	})

	t.Run("EmptySlots", func(t *testing.T) {
		e := s.New(t)
		before := requests()
		var sentBefore int
		if s.Server != nil {
			sentBefore = len(s.Server.Texts())
		}
		vs, err := e.Embed(ctx, []string{"alpha beta", "", " \t\n", "gamma delta", "\u3000"})
		if err != nil {
			t.Fatal(err)
		}
		for i, wantNil := range []bool{false, true, true, false, true} {
			if (vs[i] == nil) != wantNil {
				t.Errorf("slot %d nil=%v, want %v", i, vs[i] == nil, wantNil)
			}
		}
		if s.Server != nil {
			sent := s.Server.Texts()[sentBefore:]
			if len(sent) != 2 {
				t.Errorf("server got %d texts %q, want the 2 non-blank ones", len(sent), sent)
			}
			if got, want := requests()-before, (2+s.BatchSize-1)/s.BatchSize; got != want {
				t.Errorf("%d requests, want %d", got, want)
			}
		}
		before = requests()
		vs, err = e.Embed(ctx, []string{"", "  "})
		if err != nil || len(vs) != 2 || vs[0] != nil || vs[1] != nil {
			t.Errorf("all blank: %v, %v; want [nil nil], nil", vs, err)
		}
		if got := requests() - before; got != 0 {
			t.Errorf("all blank input sent %d requests", got)
		}
		vs, err = e.Embed(ctx, nil)
		if err != nil || len(vs) != 0 {
			t.Errorf("nil input: %v, %v", vs, err)
		}
	})

	t.Run("Truncation", func(t *testing.T) {
		e := s.New(t)
		long := strings.Repeat("é中x ", 700) // 2800 runes, multi-byte
		vs, err := e.Embed(ctx, []string{long + "tail one", long + "a different tail"})
		if err != nil {
			t.Fatal(err)
		}
		if c := vec.Dot(vs[0], vs[1]); c < 0.9999 {
			t.Errorf("texts equal in their first %d runes: cosine %.6f, want 1", embed.MaxInputRunes, c)
		}
		if s.Server != nil {
			if n := s.Server.MaxRunes(); n > embed.MaxInputRunes {
				t.Errorf("server saw a %d-rune text, want <= %d", n, embed.MaxInputRunes)
			}
		}
	})

	t.Run("Batching", func(t *testing.T) {
		e := s.New(t)
		texts := make([]string, 100)
		for i := range texts {
			texts[i] = fmt.Sprintf("chunk number %d handles request %d", i, i*7)
		}
		before := requests()
		vs, err := e.Embed(ctx, texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			if v == nil {
				t.Fatalf("slot %d nil", i)
			}
		}
		if s.Server != nil {
			want := (100 + s.BatchSize - 1) / s.BatchSize
			if got := requests() - before; got != want {
				t.Errorf("100 texts at batch %d: %d requests, want %d", s.BatchSize, got, want)
			}
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		a, err := s.New(t).Embed(ctx, []string{"OvertimeService.calculate(hours)"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.New(t).Embed(ctx, []string{"OvertimeService.calculate(hours)"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range a[0] {
			if a[0][i] != b[0][i] {
				t.Fatalf("value %d differs: %v vs %v", i, a[0][i], b[0][i])
			}
		}
	})

	t.Run("Query", func(t *testing.T) {
		e := s.New(t)
		q, err := e.EmbedQuery(ctx, "where is overtime computed")
		if err != nil {
			t.Fatal(err)
		}
		if len(q) != e.Dim() || math.Abs(vec.Norm(q)-1) > 1e-4 {
			t.Errorf("query vector: %d values (Dim %d), norm %.4f", len(q), e.Dim(), vec.Norm(q))
		}
		if _, err := e.EmbedQuery(ctx, " \n"); !errors.Is(err, embed.ErrEmptyInput) {
			t.Errorf("blank query: %v, want ErrEmptyInput", err)
		}
	})

	t.Run("ContextCanceled", func(t *testing.T) {
		e := s.New(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		before := requests()
		if _, err := e.Embed(cctx, []string{"a text"}); !errors.Is(err, context.Canceled) {
			t.Errorf("canceled context: %v, want context.Canceled", err)
		}
		if got := requests() - before; got != 0 {
			t.Errorf("canceled context still sent %d requests", got)
		}
		if s.Server == nil {
			return
		}
		s.Server.Stall()
		dctx, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel2()
		start := time.Now()
		_, err := e.Embed(dctx, []string{"a text"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("stalled server: %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("cancellation took %v", d)
		}
	})
}
