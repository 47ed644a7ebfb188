package index

import (
	"context"
	"encoding/json"
	"maps"
	"sort"

	"github.com/coderag/coderag/internal/chunk"
)

// Fallback is one file of a language coderag parses (or would parse) that
// was chunked by lines instead of definitions, and why.
type Fallback struct {
	Path     string `json:"path"`
	Language string `json:"language"`
	Reason   string `json:"reason"` // a chunk.Reason* text
}

// LangCount is what one language contributes to a project's index.
type LangCount struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
	// Parser is true when the language is chunked into definitions (a
	// tree-sitter grammar or a definition scanner).
	Parser bool `json:"parser"`
	// Fallback counts files chunked by lines; Reasons splits it by reason.
	Fallback int            `json:"fallback"`
	Reasons  map[string]int `json:"fallback_reasons,omitempty"`
}

// LangStats is the per-language summary `stats` prints for a project.
type LangStats struct {
	Languages []LangCount `json:"languages"` // by files, descending
	// Unindexed counts the files of the last full walk that no language
	// claims, by lower-case extension ("(none)" without one).
	Unindexed map[string]int `json:"unindexed_extensions"`
}

// langMeta is the persisted part of LangStats, one JSON value per project
// (store.PutLangStats).
type langMeta struct {
	Fallbacks map[string]Fallback `json:"fallbacks"` // by path
	Unindexed map[string]int      `json:"unindexed"`
}

func loadLangMeta(ctx context.Context, st Store, project string) (langMeta, error) {
	m := langMeta{Fallbacks: map[string]Fallback{}, Unindexed: map[string]int{}}
	v, ok, err := st.LangStats(ctx, project)
	if err != nil || !ok {
		return m, err
	}
	if err := json.Unmarshal([]byte(v), &m); err != nil {
		return langMeta{Fallbacks: map[string]Fallback{}, Unindexed: map[string]int{}}, nil // rewritten on the next run
	}
	if m.Fallbacks == nil {
		m.Fallbacks = map[string]Fallback{}
	}
	return m, nil
}

// saveLangStats merges one run into the persisted language stats: the
// fallbacks of re-parsed files replace their old entries, files no longer
// indexed are dropped, and a full walk replaces the unindexed counts
// (unindexed is nil after a partial run). removed says whether the run
// removed any file's rows: a run that parsed and removed nothing and found
// the same unindexed counts (an unchanged tree) writes nothing.
func saveLangStats(ctx context.Context, st Store, project string, parsed []string, fallbacks []Fallback, unindexed map[string]int, removed bool) error {
	m, err := loadLangMeta(ctx, st, project)
	if err != nil {
		return err
	}
	if len(parsed) == 0 && len(fallbacks) == 0 && !removed && (unindexed == nil || maps.Equal(unindexed, m.Unindexed)) {
		return nil
	}
	for _, p := range parsed {
		delete(m.Fallbacks, p)
	}
	for _, f := range fallbacks {
		m.Fallbacks[f.Path] = f
	}
	files, err := st.FileLanguages(ctx, project)
	if err != nil {
		return err
	}
	for p := range m.Fallbacks {
		if _, ok := files[p]; !ok {
			delete(m.Fallbacks, p)
		}
	}
	if unindexed != nil {
		m.Unindexed = unindexed
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return st.PutLangStats(ctx, project, string(b))
}

// ReadLangStats returns the per-language summary of an indexed project:
// files per language from the index, fallbacks and unindexed extensions
// from the last runs. Files of a language without a parser all count as
// fallbacks with chunk.ReasonNoParser.
func ReadLangStats(ctx context.Context, st Store, project string) (LangStats, error) {
	m, err := loadLangMeta(ctx, st, project)
	if err != nil {
		return LangStats{}, err
	}
	files, err := st.FileLanguages(ctx, project)
	if err != nil {
		return LangStats{}, err
	}
	by := map[string]*LangCount{}
	for p, l := range files {
		c := by[l]
		if c == nil {
			c = &LangCount{Language: l, Parser: chunk.HasParser(l), Reasons: map[string]int{}}
			by[l] = c
		}
		c.Files++
		reason := ""
		if f, ok := m.Fallbacks[p]; ok {
			reason = f.Reason
		} else if !c.Parser && l != "markdown" {
			reason = chunk.ReasonNoParser
		}
		if reason != "" {
			c.Fallback++
			c.Reasons[reason]++
		}
	}
	out := LangStats{Unindexed: m.Unindexed}
	for _, c := range by {
		if len(c.Reasons) == 0 {
			c.Reasons = nil
		}
		out.Languages = append(out.Languages, *c)
	}
	sort.Slice(out.Languages, func(i, j int) bool {
		a, b := out.Languages[i], out.Languages[j]
		if a.Files != b.Files {
			return a.Files > b.Files
		}
		return a.Language < b.Language
	})
	return out, nil
}
