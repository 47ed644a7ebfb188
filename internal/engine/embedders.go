package engine

import (
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/embed/provider"
)

// Embedders builds the embedders of an Engine, its one configuration
// concern about embedding: the configured embedder, which every index run
// asked for uses (Engine.NewEmbedder), and the embedder a project was
// indexed with, rebuilt from its stored id, which embeds its queries and
// refreshes (Engine.ProjectEmbedder, cached per id).
type Embedders interface {
	// Configured builds the configured embedder.
	Configured() (embed.Embedder, error)
	// ForID rebuilds the embedder of stored id "provider:model".
	ForID(id string) (embed.Embedder, error)
}

// FromOptions is the Embedders of a configuration: Configured is
// provider.New(o) (o's provider already normalised: "local", "ollama" or
// "openai"), ForID is provider.FromID(id, o), which lends o's URL and key
// to an id of the same provider; an engine gives o the Engine's
// Config.Analyzer when o has none. err, when set, is why the configured
// embedder cannot be built (a bad environment variable): Configured
// returns it, and queries of indexed projects still work.
func FromOptions(o embed.Options, err error) Embedders { return optionsEmbedders{o, err} }

type optionsEmbedders struct {
	o   embed.Options
	err error
}

func (c optionsEmbedders) Configured() (embed.Embedder, error) {
	if c.err != nil {
		return nil, c.err
	}
	return provider.New(c.o)
}

func (c optionsEmbedders) ForID(id string) (embed.Embedder, error) { return ProjectEmbedder(id, c.o) }

// Fixed is the Embedders of tests and fakes: newEmb builds the configured
// embedder and every project's, whatever its stored id.
func Fixed(newEmb func() (embed.Embedder, error)) Embedders { return fixedEmbedders(newEmb) }

type fixedEmbedders func() (embed.Embedder, error)

func (f fixedEmbedders) Configured() (embed.Embedder, error)  { return f() }
func (f fixedEmbedders) ForID(string) (embed.Embedder, error) { return f() }
