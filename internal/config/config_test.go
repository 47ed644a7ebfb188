package config

import (
	"strings"
	"testing"
	"time"
)

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestFromLookup(t *testing.T) {
	c, err := FromLookup(lookup(map[string]string{
		EnvHome: "/tmp/h", EnvIndexThreads: "8", EnvEmbeddingProvider: "qwen", EnvEmbeddingBatch: "16",
		EnvEmbeddingModel: " text-embedding-v3 ", EnvLLMModel: "m", EnvToken: " t0k\n", EnvQueryTimeout: "500ms",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DBPath() != "/tmp/h/index.db" || c.IndexThreads != 8 || c.Embedding.Provider != "openai" ||
		c.Embedding.BatchSize != 16 || c.Embedding.Model != "text-embedding-v3" || c.LLM.Model != "m" || c.Token != "t0k" ||
		c.Embedding.QueryTimeout != 500*time.Millisecond {
		t.Fatalf("%+v", c)
	}
	d, err := FromLookup(lookup(nil))
	if err != nil || d.Token != "" || d.Embedding.Provider != "local" || d.IndexThreads != DefaultIndexThreads() || d.Embedding.BatchSize != 32 ||
		d.Embedding.QueryTimeout != DefaultQueryTimeout || !strings.HasSuffix(d.DBPath(), ".coderag/index.db") {
		t.Fatalf("defaults %+v %v", d, err)
	}
	if s, err := FromLookup(lookup(map[string]string{EnvQueryTimeout: "20"})); err != nil || s.Embedding.QueryTimeout != 20*time.Second {
		t.Errorf("%s=20 (seconds): %v %v", EnvQueryTimeout, s.Embedding.QueryTimeout, err)
	}
}

func TestFromLookupErrors(t *testing.T) {
	for _, m := range []map[string]string{
		{EnvIndexThreads: "zero"}, {EnvIndexThreads: "0"}, {EnvIndexThreads: "257"}, {EnvIndexThreads: "2000000000"}, {EnvEmbeddingBatch: "-1"}, {EnvEmbeddingProvider: "bogus"},
		{EnvQueryTimeout: "0"}, {EnvQueryTimeout: "-2s"}, {EnvQueryTimeout: "soon"},
	} {
		if _, err := FromLookup(lookup(m)); err == nil {
			t.Errorf("%v: no error", m)
		}
	}
	for in, want := range map[string]string{"GLM": "openai", "zhipu": "openai", "": "local", "ollama": "ollama"} {
		if got, err := NormalizeProvider(in); err != nil || got != want {
			t.Errorf("NormalizeProvider(%q) = %q, %v", in, got, err)
		}
	}
}

// TestTopK: the one rule of a query's number of results, as every front
// end reads it.
func TestTopK(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want int
		ok   bool
	}{{"", 5, true}, {"1", 1, true}, {"30", 30, true}, {" 7 ", 7, true}, {"0", 0, false}, {"31", 0, false}, {"x", 0, false}, {"2.5", 0, false}} {
		got, err := TopK.Parse(c.text)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("Parse(%q) = %d, %v", c.text, got, err)
		}
		if err != nil && err.Error() != `top_k must be 1 to 30 (default 5), got "`+strings.TrimSpace(c.text)+`"` {
			t.Errorf("Parse(%q) error: %v", c.text, err)
		}
	}
	if err := TopK.Check(0); err == nil || err.Error() != "must be 1 to 30 (default 5), got 0" {
		t.Errorf("Check(0): %v", err)
	}
	if TopK.Help() != "number of results, 1 to 30 (default 5)" {
		t.Errorf("Help: %q", TopK.Help())
	}
}

// TestSet: a flag goes through its environment variable's parse and
// check, overriding the environment.
func TestSet(t *testing.T) {
	t.Parallel()
	c, err := FromLookup(lookup(map[string]string{EnvEmbeddingProvider: "ollama", EnvIndexThreads: "2", "HOME": "/tmp/u"}))
	if err != nil || c.Home != "/tmp/u/.coderag" {
		t.Fatalf("%+v %v", c, err)
	}
	for flag, v := range map[string]string{"provider": "qwen", "threads": "6", "batch-size": "8", "store": "/x.db", "allow-secrets": "true", "model": "m"} {
		if err := c.Set(flag, v); err != nil {
			t.Errorf("--%s %s: %v", flag, v, err)
		}
	}
	if c.Embedding.Provider != "openai" || c.IndexThreads != 6 || c.Embedding.BatchSize != 8 || c.DBPath() != "/x.db" || !c.AllowSecrets || c.Embedding.Model != "m" {
		t.Errorf("after flags: %+v", c)
	}
	for flag, v := range map[string]string{"provider": "bogus", "threads": "0", "batch-size": "-5", "allow-secrets": "maybe", "nosuch": "1"} {
		if err := c.Set(flag, v); err == nil {
			t.Errorf("--%s %s: no error", flag, v)
		}
	}
	for _, s := range Settings {
		if !strings.Contains(EnvHelp, s.Env) {
			t.Errorf("%s is not in EnvHelp", s.Env)
		}
	}
}

// A command's --help names every variable in lines of at most 100
// columns and points to the top-level --help, which describes them.
func TestEnvSummary(t *testing.T) {
	t.Parallel()
	s := EnvSummary()
	for _, st := range Settings {
		if !strings.Contains(s, st.Env) {
			t.Errorf("%s is not in EnvSummary", st.Env)
		}
	}
	for _, l := range strings.Split(s, "\n") {
		if len(l) > 100 {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if !strings.Contains(s, "'coderag --help'") || strings.Count(s, "\n") > 5 {
		t.Errorf("EnvSummary should be a few lines pointing to 'coderag --help':\n%s", s)
	}
}
