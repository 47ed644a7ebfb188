// Package embed defines the Embedder interface and the helpers shared by every
// embedding provider: batching (Batch), truncation (Truncate), validation
// (Validate; vectors are normalised by package vec) and a careful HTTP layer (NewHTTPClient,
// PostJSON) with timeouts, retries and readable server errors.
//
// Providers live in sub-packages and import this one, never the reverse:
//
//	static    built-in default: coderag's learned static code model (docs/MODEL.md)
//	local     built-in: deterministic feature hashing, no server, no download
//	ollama    a local Ollama server (POST /api/embed, legacy /api/embeddings)
//	openai    any OpenAI-compatible /embeddings endpoint (OpenAI, Zhipu GLM, Qwen, vLLM, ...)
//	provider  the factory, provider.New(Options), which picks one of the above
//	embedtest the contract suite every Embedder passes, and httptest fakes of the servers
//
// Every Embedder returns L2-normalised float32 vectors in input order; an
// empty or whitespace-only input gets a nil slot and is never sent to a
// server; inputs are cut to MaxInputRunes runes on a rune boundary; a vector
// with NaN/Inf or a dimension different from the others is an error, and so
// is a server that answers 200 with fewer vectors than inputs. One input a
// server cannot embed (a 500 for a NaN, a 400) fails alone: Batch splits a
// failing request down to it and returns a *PartialError beside the other
// vectors; only errors for which Stop is true (server down, model missing,
// key refused) end a call at once.
package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coderag/coderag/internal/analyze"
)

// Embedder turns texts into L2-normalised vectors.
type Embedder interface {
	// ID returns "provider:model", e.g. "local:hashing-768-v1" or
	// "ollama:nomic-embed-text". The index stores it per file; ParseID
	// splits it.
	ID() string
	// Dim returns the vector dimension, or 0 if unknown until the first call.
	Dim() int
	// Embed embeds documents (chunks). It returns one vector per input, in
	// input order; empty or whitespace-only inputs yield a nil slot and are
	// never sent to a server.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery embeds one search query (providers may add a query prefix).
	// A blank query is ErrEmptyInput.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Preparer is implemented by embedders with one-time work that their
// first Embed call would otherwise do (the built-in model's index of its
// vocabulary); Prepare does it now, so that it can run beside other
// start-up work. It is safe for concurrent use with Embed, and calling
// it again costs nothing.
type Preparer interface {
	Prepare()
}

// InProcess is implemented by embedders whose Embed is in-process CPU work
// (the built-in local models): no I/O and no server, safe to call from many
// goroutines at once, failing only with its context's error. The index
// embeds the chunks of each file of such an embedder on its parsing
// workers, beside the parse, instead of in batches on its one writer
// goroutine, where the embedding was half of the writer's work and kept the
// other cores waiting for it. Embedders that call a server batch instead.
type InProcess interface {
	Embedder
	// InProcess marks the embedder; it does nothing.
	InProcess()
}

// TermEmbedder is an InProcess embedder that can embed a text from its
// analyze.Terms (the keyword index's analysis), so that an index worker,
// which analyses each chunk for its full-text row, does not read the text
// a second time to embed it. The built-in learned model implements it.
type TermEmbedder interface {
	InProcess
	// EmbedTerms returns the document-side vector of a text whose
	// analyze.Terms are terms. For an ASCII text t of at most
	// MaxInputRunes runes, EmbedTerms(analyze.Terms(nil, t)) equals
	// Embed(ctx, []string{t})[0] when t is not blank; other texts must go
	// through Embed.
	EmbedTerms(terms []string) []float32
}

// IsInProcess reports whether e implements InProcess.
func IsInProcess(e Embedder) bool {
	_, ok := e.(InProcess)
	return ok
}

// Describer is implemented by embedders that can say in one line what they
// are and what they capture (shown by `coderag stats`).
type Describer interface {
	Describe() string
}

// Translator is implemented by embedders whose vectors of Chinese text
// depend on the text analysis they were built with (the local hashing
// embedder with Options.Analyzer or Expand: the glossary and, when
// installed, CC-CEDICT). Analysis returns that analysis's identity
// (analyze.Analyzer.Identity), "" when the vectors depend on none; the
// index records it beside the embedder id of every file holding Han text,
// so a change of the data re-embeds those files (issue #28, item 4).
type Translator interface {
	Analysis() string
}

// Analysis returns the identity of the text analysis e's vectors of Han
// text depend on (e implements Translator), or "" when they depend on
// none.
func Analysis(e Embedder) string {
	if t, ok := e.(Translator); ok {
		return t.Analysis()
	}
	return ""
}

// Describe returns e.Describe() when e implements Describer, else e.ID().
func Describe(e Embedder) string {
	if d, ok := e.(Describer); ok {
		return d.Describe()
	}
	return e.ID()
}

// Options selects and configures a provider; provider.New consumes it. Zero
// values mean the provider's default.
type Options struct {
	// Provider is already normalised by config: "local", "ollama" or "openai"
	// ("" means "local").
	Provider string
	// Model: ollama default "nomic-embed-text"; openai default
	// "text-embedding-3-small"; local "coderag-code-v6" (the default, the
	// built-in learned model, package static) or "hashing-<dim>-v1"
	// (feature hashing, package local), so a stored ID can rebuild its
	// embedder.
	Model string
	// BaseURL: ollama default "http://localhost:11434"; openai default
	// "https://api.openai.com/v1" (see openai.EndpointURL for the /v1 rule).
	BaseURL string
	// APIKey is sent as "Authorization: Bearer KEY" by openai; unused elsewhere.
	APIKey string
	// BatchSize is the number of texts per request, default DefaultBatchSize.
	BatchSize int
	// HTTPClient overrides NewHTTPClient() (tests pass httptest clients).
	HTTPClient *http.Client
	// Expand (local hashing only) maps a term — a Chinese word or an
	// English sub-word — to extra English terms hashed with it, e.g. the
	// bilingual glossary (analyze.GlossaryExpand). nil means none.
	Expand func(term string) []string
	// Analyzer (local hashing only) translates each run of Han characters
	// to weighted English terms hashed with it (Analyzer.TranslateHan),
	// so that a Chinese query and a Chinese comment get the same English
	// features as the keyword route gives the query; its Identity is the
	// embedder's Analysis. When set, Expand is not called on Han text. nil
	// means Expand handles Han substrings (1-4 characters). The engine
	// gives an embedder of its configuration the engine's Analyzer.
	Analyzer *analyze.Analyzer
}

// Defaults shared by every provider.
const (
	// DefaultBatchSize is the number of texts per embedding request.
	DefaultBatchSize = 32
	// MaxInputRunes is the length, in runes, every input is cut to.
	MaxInputRunes = 2000
)

// Sentinel errors. Providers wrap them with the operation and the server's
// own message; test with errors.Is.
//
// Fatal tells the errors no other input would avoid from those of one
// input (too long, rejected).
var (
	// ErrBadVector: a vector contains NaN or ±Inf (or a value that
	// overflows float32), or is empty.
	ErrBadVector = errors.New("invalid embedding vector")
	// ErrDimMismatch: a vector's dimension differs from the expected one
	// (the index's, or the first vector's).
	ErrDimMismatch = errors.New("embedding dimension mismatch")
	// ErrCountMismatch: a server returned a different number of vectors than
	// texts sent (including 200 with zero vectors), or bad/duplicate indexes.
	ErrCountMismatch = errors.New("embedding count mismatch")
	// ErrEmptyInput: EmbedQuery was given a blank text.
	ErrEmptyInput = errors.New("empty text")
	// ErrUnreachable: the server could not be reached (connection refused,
	// unknown host, connect timeout).
	ErrUnreachable = errors.New("embedding server not reachable")
	// ErrRedirected: the server answered with a redirect, which is not
	// followed (NewHTTPClient): the code in the request would go to
	// another address than the one configured.
	ErrRedirected = errors.New("embedding server redirected the request")
	// ErrModelNotFound: the server does not have the model (ollama: run
	// `ollama pull MODEL`).
	ErrModelNotFound = errors.New("embedding model not found")
	// ErrHTTP: the server answered with an error status; the wrapped message
	// carries the status and the server's own error text (a *StatusError).
	ErrHTTP = errors.New("embedding request failed")
	// ErrTimeout: the server took the connection but sent no response
	// within ReadTimeout, or not the whole body within ReadTimeout of its
	// headers, or, for a search's query, nothing within the search's
	// shorter bound (search.Searcher.QueryTimeout).
	ErrTimeout = errors.New("embedding server did not answer in time")
	// ErrServerFailing: every input of a request failed even when sent
	// alone, so the server, not an input, is at fault (Batch).
	ErrServerFailing = errors.New("embedding server fails for every input")
)

// ParseID splits an embedder ID at its first ':':
// "ollama:nomic-embed-text" -> ("ollama", "nomic-embed-text");
// "openai:org/model:v2" -> ("openai", "org/model:v2"); an ID without ':' is
// all provider: "local" -> ("local", "").
func ParseID(id string) (provider, model string) {
	provider, model, _ = strings.Cut(strings.TrimSpace(id), ":")
	return provider, model
}

// StatusError is an error status from an embedding server; it matches
// ErrHTTP with errors.Is.
type StatusError struct {
	Status int    // HTTP status code
	Msg    string // what to print after "embedding request failed: "
}

// NewStatusError returns a *StatusError for status with a formatted message.
func NewStatusError(status int, format string, a ...any) error {
	return &StatusError{Status: status, Msg: fmt.Sprintf(format, a...)}
}

// Error is "embedding request failed: MSG".
func (e *StatusError) Error() string { return ErrHTTP.Error() + ": " + e.Msg }

// Is makes errors.Is(err, ErrHTTP) true.
func (e *StatusError) Is(target error) bool { return target == ErrHTTP }

// Stop reports whether err means no other request would fare better, so a
// caller must stop instead of splitting a batch or trying other texts: the
// server is unreachable or silent, lacks the model, rejects the key or the
// URL (401, 403, 404, 405), limits the client's rate (a 429 that outlasted
// PostJSON's retries: it answers the client, not an input, and splitting
// the batch made 63 requests of up to two minutes each), or the vectors
// changed dimension. A 5xx, a 400, 413 or 422, a NaN in one vector or a
// wrong count may belong to one input: Batch splits those down to the
// input.
func Stop(err error) bool {
	var se *StatusError
	return Misconfigured(err) || errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTimeout) ||
		errors.Is(err, ErrServerFailing) || errors.As(err, &se) && se.Status == http.StatusTooManyRequests
}

// Misconfigured reports whether err is one only a change of settings
// cures, not waiting: the server rejects the key or the URL (401, 403,
// 404, 405), redirects it, lacks the model, or answers vectors of another
// dimension. A
// search fails with it rather than answer without vectors every time
// (search.Searcher's embedQuery); Stop reports these and the transient
// ones (unreachable, silent, failing every input).
func Misconfigured(err error) bool {
	if errors.Is(err, ErrModelNotFound) || errors.Is(err, ErrDimMismatch) || errors.Is(err, ErrRedirected) {
		return true
	}
	var se *StatusError
	if errors.As(err, &se) {
		switch se.Status {
		case 401, 403, 404, 405:
			return true
		}
	}
	return false
}

// Fatal reports whether err means the embedder cannot serve any request
// right now, so trying other texts is pointless: everything Stop reports,
// and ErrServerFailing (every input of a request failed alone). An error
// about some inputs (a *PartialError, a 400 for one input, a 500 caused by
// one input) is not fatal.
func Fatal(err error) bool {
	var pe *PartialError
	if errors.As(err, &pe) {
		return false
	}
	return Stop(err)
}

// TooLong reports whether err is a server saying an input exceeds the
// model's context: OpenAI "This model's maximum context length is 8192
// tokens...", Ollama "input length exceeds maximum context length" (or
// "the input length exceeds the context length"), vLLM and TEI "too long",
// "Input validation error: inputs must have less than 512 tokens".
func TooLong(err error) bool {
	if err == nil || Stop(err) {
		return false
	}
	m := strings.ToLower(err.Error())
	for _, w := range []string{"context length", "maximum context", "too long", "too many tokens", "exceeds the maximum",
		"input length exceeds", "less than", "token limit", "context_length_exceeded", "reduce the length"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}
