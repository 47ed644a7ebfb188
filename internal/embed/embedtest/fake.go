// Package embedtest holds what tests of embedders and of their users need:
// the contract suite every embed.Embedder passes (Run), and httptest fakes
// of the Ollama and OpenAI embeddings APIs that answer like the real servers,
// error bodies included, record what they were sent, and can be told to fail.
//
// Other packages (index, search) may use the fakes to test a pipeline against
// a "remote" embedder without a network.
package embedtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Reply is a canned response a fake serves instead of its normal answer.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
}

// Real error bodies, as the servers send them.
const (
	// MuxNotFound is what Ollama's Go router (and net/http) answers for an
	// unknown path, e.g. /api/embed on Ollama < 0.3.4.
	MuxNotFound = "404 page not found"
	// OpenAIRateLimit is OpenAI's 429 body.
	OpenAIRateLimit = `{"error":{"message":"Rate limit reached for text-embedding-3-small in organization org-x on requests per min (RPM): Limit 3000, Used 3000, Requested 1. Please try again in 20ms.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	// OpenAIServerError is OpenAI's 500 body.
	OpenAIServerError = `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
	// HTMLNotFound is a web server's 404 page (a wrong base URL).
	HTMLNotFound = "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p></body></html>\n"
)

// Server is the part shared by the fakes: a running httptest.Server plus a
// record of requests and texts. Its methods are safe for concurrent use.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	dim      int
	seed     uint64
	inject   []Reply
	requests map[string]int
	texts    []string
	stall    bool
	hang     bool
	ended    chan struct{} // closed when the test ends, before the server closes
}

func newServer(t testing.TB, dim int, h func(s *Server, w http.ResponseWriter, r *http.Request, body []byte)) *Server {
	s := &Server{dim: dim, requests: map[string]int{}, ended: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests[r.URL.Path]++
		stall, hang := s.stall, s.hang
		s.stall = false
		var rep *Reply
		if len(s.inject) > 0 {
			rep = &s.inject[0]
			s.inject = s.inject[1:]
		}
		s.mu.Unlock()
		if hang {
			<-s.ended // whether or not the client gave up
			return
		}
		if stall {
			select { // hang until the client gives up
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		if rep != nil {
			for k, v := range rep.Header {
				w.Header().Set(k, v)
			}
			w.WriteHeader(rep.Status)
			io.WriteString(w, rep.Body)
			return
		}
		h(s, w, r, body)
	}))
	t.Cleanup(func() {
		close(s.ended) // Close waits for the hung requests
		s.Close()
	})
	return s
}

// Inject queues replies served, in order, to the next requests on any path.
func (s *Server) Inject(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inject = append(s.inject, r...)
}

// Stall makes the next request hang until the client cancels it.
func (s *Server) Stall() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stall = true
}

// Hang makes every request from now on block without an answer until the
// test ends, whether or not the client gives up: a server that takes the
// connection and never answers (a stuck model load).
func (s *Server) Hang() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hang = true
}

// SetDim changes the dimension of the vectors served from now on (a model
// swapped behind the same name).
func (s *Server) SetDim(d int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dim = d
}

// SetSeed changes the mapping from texts to vectors served from now on,
// at the same dimension (SeededVector): another model swapped behind the
// same name. Seed 0 is the fakes' first mapping (Vector).
func (s *Server) SetSeed(seed uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seed = seed
}

// Requests returns the number of requests received so far on all paths.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.requests {
		n += c
	}
	return n
}

// RequestsTo returns the number of requests received on one path.
func (s *Server) RequestsTo(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

// Texts returns every text the server has been asked to embed, in arrival
// order.
func (s *Server) Texts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.texts...)
}

// MaxRunes returns the length in runes of the longest text received.
func (s *Server) MaxRunes() int {
	n := 0
	for _, t := range s.Texts() {
		n = max(n, utf8.RuneCountInString(t))
	}
	return n
}

// record records texts and returns the dimension and seed to embed
// them with.
func (s *Server) record(texts ...string) (dim int, seed uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.texts = append(s.texts, texts...)
	return s.dim, s.seed
}

// Vector is the fake servers' deterministic, unnormalised embedding of text:
// dim pseudo-random values in [-1, 1) seeded by the text's FNV-1a hash.
func Vector(text string, dim int) []float32 { return SeededVector(text, dim, 0) }

// SeededVector is Vector of another model, seed (Server.SetSeed): the
// text's hash is mixed with seed, so the same text gets an unrelated
// vector of the same dimension. Seed 0 is Vector.
func SeededVector(text string, dim int, seed uint64) []float32 {
	h := fnv.New64a()
	io.WriteString(h, text)
	x := h.Sum64() ^ seed*0xd6e8feb86659fd93
	v := make([]float32, dim)
	for i := range v {
		x += 0x9e3779b97f4a7c15 // splitmix64
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		v[i] = float32(z>>11)/float32(1<<53)*2 - 1
	}
	return v
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Ollama fakes an Ollama server (api.md): POST /api/embed
// {"model","input"} -> {"model","embeddings"}, POST /api/embeddings
// {"model","prompt"} -> {"embedding"}; an unpulled model is a 404
// {"error":"model \"M\" not found, try pulling it first"}; an unknown path is
// the router's plain "404 page not found". With Legacy set it is a server
// older than /api/embed.
type Ollama struct {
	*Server
	Models []string // pulled models
	Legacy bool
	// Poison, if set, makes /api/embed answer a request holding an input
	// that contains it with Ollama's 500 for a model that produced NaN:
	// {"error":"failed to encode response: json: unsupported value: NaN"}.
	Poison string
	// MaxRunes, if > 0, makes /api/embed refuse a request holding an input
	// longer than that with {"error":"the input length exceeds the context
	// length"} (HTTP 400), as Ollama does for a model whose context is
	// smaller than the input when truncation is off.
	MaxRunes int
}

// NewOllama starts a fake Ollama serving dim-d vectors for models (default
// "nomic-embed-text"), closed when t ends.
func NewOllama(t testing.TB, dim int, models ...string) *Ollama {
	if len(models) == 0 {
		models = []string{"nomic-embed-text"}
	}
	o := &Ollama{Models: models}
	o.Server = newServer(t, dim, o.handle)
	return o
}

func (o *Ollama) has(model string) bool {
	for _, m := range o.Models {
		if m == model || m+":latest" == model {
			return true
		}
	}
	return false
}

func (o *Ollama) handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || (r.URL.Path != "/api/embed" && r.URL.Path != "/api/embeddings") ||
		(o.Legacy && r.URL.Path == "/api/embed") {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, MuxNotFound)
		return
	}
	var req struct {
		Model  string          `json:"model"`
		Input  json.RawMessage `json:"input"`
		Prompt string          `json:"prompt"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if req.Model == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "model is required"})
		return
	}
	if !o.has(req.Model) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	if r.URL.Path == "/api/embeddings" {
		dim, seed := s.record(req.Prompt)
		emb := []float32{}
		if req.Prompt != "" {
			emb = SeededVector(req.Prompt, dim, seed)
		}
		writeJSON(w, http.StatusOK, map[string]any{"embedding": emb})
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
			return
		}
		inputs = []string{one}
	}
	for _, t := range inputs {
		if o.Poison != "" && strings.Contains(t, o.Poison) {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "failed to encode response: json: unsupported value: NaN"})
			return
		}
		if o.MaxRunes > 0 && utf8.RuneCountInString(t) > o.MaxRunes {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the input length exceeds the context length"})
			return
		}
	}
	dim, seed := s.record(inputs...)
	out := make([][]float32, len(inputs))
	for i, t := range inputs {
		out[i] = SeededVector(t, dim, seed)
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "embeddings": out,
		"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8})
}

// OpenAI fakes an OpenAI-compatible /v1/embeddings endpoint: bearer key
// checked (401 invalid_api_key), unknown model 404 model_not_found, empty
// input strings rejected with 400 as OpenAI does, unknown paths 404 "Invalid
// URL". With Reorder set, data items come back rotated ([2,0,1] for three),
// each with its true index.
type OpenAI struct {
	*Server
	Key     string   // required bearer key; "" accepts any
	Models  []string // default "text-embedding-3-small"
	Path    string   // default "/v1/embeddings"
	Reorder bool
	// EchoKey makes a wrong key's 401 quote the whole key sent, as some
	// OpenAI-compatible gateways do ("Incorrect API key provided:
	// sk-..."); OpenAI itself masks all but its last four characters.
	EchoKey bool
}

// NewOpenAI starts a fake OpenAI embeddings API serving dim-d vectors and
// requiring key ("" = none), closed when t ends.
func NewOpenAI(t testing.TB, dim int, key string) *OpenAI {
	o := &OpenAI{Key: key, Models: []string{"text-embedding-3-small"}, Path: "/v1/embeddings"}
	o.Server = newServer(t, dim, o.handle)
	return o
}

func openAIError(w http.ResponseWriter, status int, msg, typ string, code any) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func (o *OpenAI) handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || r.URL.Path != o.Path {
		openAIError(w, http.StatusNotFound, fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path), "invalid_request_error", nil)
		return
	}
	if o.Key != "" && r.Header.Get("Authorization") != "Bearer "+o.Key {
		shown := "sk-***"
		if o.EchoKey {
			shown = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		openAIError(w, http.StatusUnauthorized, "Incorrect API key provided: "+shown+". You can find your API key at https://platform.openai.com/account/api-keys.",
			"invalid_request_error", "invalid_api_key")
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		openAIError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error", nil)
		return
	}
	known := false
	for _, m := range o.Models {
		known = known || m == req.Model
	}
	if !known {
		openAIError(w, http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model),
			"invalid_request_error", "model_not_found")
		return
	}
	var inputs []string
	if json.Unmarshal(req.Input, &inputs) != nil {
		var one string
		if json.Unmarshal(req.Input, &one) != nil {
			openAIError(w, http.StatusBadRequest, "'$.input' is invalid.", "invalid_request_error", nil)
			return
		}
		inputs = []string{one}
	}
	for _, t := range inputs {
		if strings.TrimSpace(t) == "" {
			openAIError(w, http.StatusBadRequest, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.",
				"invalid_request_error", nil)
			return
		}
	}
	dim, seed := s.record(inputs...)
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(inputs))
	for k := range inputs {
		i := k
		if o.Reorder {
			i = (k + len(inputs) - 1) % len(inputs)
		}
		data[k] = item{"embedding", i, SeededVector(inputs[i], dim, seed)}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 8, "total_tokens": 8}})
}
