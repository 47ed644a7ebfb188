package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/toolset"

	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/resident"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/walk"
)

func init() {
	register(command{name: "stats", summary: "what is indexed: projects, files, chunks, relations, embedder, DB path and size", run: runStats})
}

// projectStats is one project of `stats --json`.
type projectStats struct {
	Root              string         `json:"root"` // absolute, symlink-resolved project root
	Embedder          string         `json:"embedder"`
	EmbedderDescribed string         `json:"embedder_description,omitempty"`
	Dim               int            `json:"dim"`
	Files             int            `json:"files"`
	Chunks            int            `json:"chunks"`
	Embedded          int            `json:"embedded_chunks"`
	ChunksByType      map[string]int `json:"chunks_by_type"`
	Relations         int            `json:"relations"`
	RelationsByKind   map[string]int `json:"relations_by_kind"`
	// UpdatedAt is when the project's row was last written, RFC 3339 in UTC.
	UpdatedAt string `json:"updated_at"`
	// Languages lists files per language, by files descending, with the
	// files chunked as text and why.
	Languages []index.LangCount `json:"languages"`
	// Unindexed counts the files of the last full walk no language claims,
	// by lower-case extension ("(none)" without one).
	Unindexed map[string]int `json:"unindexed_extensions"`
	// LastRun is the record of the project's last index run (absent for a
	// project indexed before runs were recorded): done=false means it was
	// interrupted or is still going; failed counts files it could not index.
	LastRun *store.RunReport `json:"last_run,omitempty"`
	// Mixed is set when some files carry vectors of another embedder
	// than the project's (a change of embedder that did not finish),
	// which searches do not read (engine.Status.Mixed).
	Mixed *store.MixedVectors `json:"mixed,omitempty"`

	updated time.Time // UpdatedAt for people, in local time
}

type statsOut struct {
	DB string `json:"db"`
	// Exists is false when there is no index file yet (db_bytes is then 0
	// and schema_version the one a first index would write).
	Exists   bool           `json:"exists"`
	DBBytes  int64          `json:"db_bytes"`
	Schema   int            `json:"schema_version"`
	Projects []projectStats `json:"projects"`
	// Chinese says what translates Chinese queries (dictionary and
	// glossary, or glossary only and why).
	Chinese string `json:"chinese"`
	// Resident is the socket a watcher answers this index's searches on
	// (`index --watch`); "" when none listens.
	Resident string `json:"resident,omitempty"`
}

// counts renders {"class": 3, "method": 9} as " (class 3, method 9)", and
// an empty map as "".
func counts(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	return " (" + toolset.Counts(m) + ")"
}

// printLangStats prints one line per language (files, text fallbacks and
// their reasons) and the extensions left unindexed.
func printLangStats(w io.Writer, ls index.LangStats) {
	if len(ls.Languages) > 0 {
		fmt.Fprintln(w, "languages:")
	}
	for _, l := range ls.Languages {
		how := "definitions"
		if !l.Parser {
			how = "text (no parser)"
		}
		if l.Fallback > 0 && l.Parser {
			how += fmt.Sprintf(", %d fell back to text%s", l.Fallback, counts(l.Reasons))
		}
		fmt.Fprintf(w, "  %-12s %6d %-5s  %s\n", l.Language, l.Files, english.Plural(l.Files, "file"), how)
	}
	if len(ls.Unindexed) > 0 {
		n := 0
		for _, c := range ls.Unindexed {
			n += c
		}
		fmt.Fprintf(w, "not indexed: %s by extension%s\n", english.Counted(n, "file"), topCounts(ls.Unindexed, 20))
	}
}

// topCounts renders the n largest counts as " (.inc 12, (none) 3, ...)".
func topCounts(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := []string{}
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("+%d more", len(keys)-n))
			break
		}
		shown := k
		if k == "(none)" { // walk's key for a file without an extension
			shown = "no extension"
		}
		parts = append(parts, fmt.Sprintf("%s %d", shown, m[k]))
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// maxSkipsShown is how many skipped paths stats prints.
const maxSkipsShown = 10

func runStats(e *env, args []string) (err error) {
	fs := newFlags(e, "stats", "[flags]", `Show what is indexed: every project with its embedder (id and dimension), files, chunks
and relations; the DB path and size.

--json prints {"db", "exists", "db_bytes", "schema_version", "chinese", "resident" (the socket
of a watcher answering this index's searches, when one does), "projects": [{"root",
"embedder", "embedder_description", "dim", "files", "chunks", "embedded_chunks",
"chunks_by_type", "relations", "relations_by_kind", "updated_at", "languages": [{"language",
"files", "parser", "fallback", "fallback_reasons"}], "unindexed_extensions", "last_run":
{"total", "done", "failed", "skipped": [{"path", "reason", "error"}], "skipped_total", "withheld", "started",
"ended", "duration_ms"}}]}. root is the project's absolute path; exists is false when there
is no index yet; times are RFC 3339 in UTC; last_run is absent for a project indexed before
runs were recorded, and ended and duration_ms while a run is not done; skipped lists the paths
the last finished run passed over (unreadable, too large, symlink, binary, withheld as
secret-looking), at most 100; withheld counts the files withheld because their names look like
secrets (.env, *.pem, *.key, id_rsa*, credentials.json, secrets.yaml, .npmrc, ...).
An error is {"error": MSG} on stdout with --json.`)
	asJSON := fs.Bool("json", false, `print as JSON; an error as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	project := fs.String("project", "", "show only the indexed project holding this directory")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments (use --project DIR)")
	}
	out := statsOut{DB: store.Redact(e.cfg.DBPath()), Schema: store.SchemaVersion, Projects: []projectStats{}}
	exists, err := store.Exists(e.cfg.DBPath())
	if err != nil {
		return err
	}
	out.Exists = exists
	// an empty file (emptyIndexFile) holds no project and is left as it
	// is: no engine opened on it writes an empty index into it
	empty := exists && emptyIndexFile(e.cfg.DBPath())
	if empty && *project != "" {
		if _, _, err := openProjectQuiet(e, *project); err != nil {
			return err // the empty file's not-indexed message
		}
	}
	if exists && !empty {
		eng, release, err := openEngine(e)
		if err != nil {
			return err
		}
		defer release()
		out.DBBytes = eng.StoreBytes()
		var roots []string
		if *project != "" {
			p, release, err := openProject(e, *project)
			if err != nil {
				return err
			}
			roots = []string{p.Root}
			release()
		} else {
			ps, err := eng.Projects(e.ctx)
			if err != nil {
				return err
			}
			for _, p := range ps {
				roots = append(roots, p.Path)
			}
		}
		for _, root := range roots {
			st, err := eng.Status(e.ctx, root)
			if err != nil {
				return err
			}
			ls, err := eng.LangStats(e.ctx, root)
			if err != nil {
				return err
			}
			c := st.Counts
			ps := projectStats{Root: root, Embedder: st.Embedder, EmbedderDescribed: st.Described,
				Dim: st.Dim, Files: c.Files, Chunks: c.Chunks, Embedded: c.Embedded, ChunksByType: c.ChunksByType,
				Relations: c.Relations, RelationsByKind: c.RelationsByKind,
				UpdatedAt: st.UpdatedAt.UTC().Format(time.RFC3339), updated: st.UpdatedAt,
				Languages: ls.Languages, Unindexed: ls.Unindexed, LastRun: st.LastRun, Mixed: st.Mixed}
			if ps.Languages == nil {
				ps.Languages = []index.LangCount{}
			}
			if ps.Unindexed == nil {
				ps.Unindexed = map[string]int{}
			}
			out.Projects = append(out.Projects, ps)
		}
	}
	out.Chinese = e.an.Status()
	if p := resident.SocketPath(e.cfg.Home); resident.Listening(p) {
		out.Resident = p
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	switch {
	case empty:
		fmt.Fprintf(e.stdout, "index: %s is empty (0 bytes: SQLite takes it as an empty database)\n", out.DB)
	case out.Exists:
		fmt.Fprintf(e.stdout, "index: %s (%.1f MiB, schema %d)\n", out.DB, float64(out.DBBytes)/(1<<20), out.Schema)
	default:
		fmt.Fprintf(e.stdout, "index: none yet (%s does not exist)\n", out.DB)
	}
	fmt.Fprintf(e.stdout, "chinese: %s\n", out.Chinese)
	if out.Resident != "" {
		fmt.Fprintf(e.stdout, "resident: a watcher answers this index's searches on %s\n", out.Resident)
	}
	if len(out.Projects) == 0 {
		fmt.Fprintln(e.stdout, "no projects indexed yet: run `coderag index PATH`")
	}
	for _, p := range out.Projects {
		fmt.Fprintf(e.stdout, "\nproject:   %s\n", walk.DisplayPath(p.Root))
		fmt.Fprintf(e.stdout, "embedder:  %s (dim %d)\n           %s\n", p.Embedder, p.Dim, p.EmbedderDescribed)
		fmt.Fprintf(e.stdout, "files:     %d\n", p.Files)
		fmt.Fprintf(e.stdout, "chunks:    %d (%d embedded)%s\n", p.Chunks, p.Embedded, counts(p.ChunksByType))
		fmt.Fprintf(e.stdout, "relations: %d%s\n", p.Relations, counts(p.RelationsByKind))
		fmt.Fprintf(e.stdout, "updated:   %s\n", p.updated.Format("2006-01-02 15:04:05"))
		printLangStats(e.stdout, index.LangStats{Languages: p.Languages, Unindexed: p.Unindexed})
		switch r := p.LastRun; {
		case r == nil:
		case !r.Done && r.Total > 0 && p.Files >= r.Total && p.Mixed != nil:
			fmt.Fprintf(e.stdout, "last run:  unfinished (interrupted or still going): all %d of its files are indexed, not all with the project's embedder\n", r.Total)
		case !r.Done && r.Total > 0 && p.Files >= r.Total:
			// cancelled (or killed) after its last file was written
			fmt.Fprintf(e.stdout, "last run:  unfinished (interrupted or still going), but all %d of its files are indexed: the index is complete\n", r.Total)
		case !r.Done:
			fmt.Fprintf(e.stdout, "last run:  unfinished (interrupted or still going): index incomplete: %d of %d files indexed; run `coderag index %s`\n", p.Files, r.Total, p.Root)
		case r.Failed > 0:
			fmt.Fprintf(e.stdout, "last run:  %d of %d files failed and keep their previous rows (`coderag index --json %s` lists them)\n", r.Failed, r.Total, p.Root)
		}
		if p.Mixed != nil {
			fmt.Fprintf(e.stdout, "vectors:   %s; %s\n", search.MixedNote(*p.Mixed), mixedRemedy(*p.Mixed, p.Root))
		}
		if r := p.LastRun; r != nil && r.Done && r.Withheld > 0 {
			fmt.Fprintf(e.stdout, "withheld:  %s whose %s like secrets (.env, *.key, credentials.json, ...): not indexed, read or listed; --allow-secrets or CODERAG_ALLOW_SECRETS=1 takes %s\n",
				english.Counted(r.Withheld, "file"), english.Agree(r.Withheld, "name looks", "names look"), english.Agree(r.Withheld, "it", "them"))
		}
		if r := p.LastRun; r != nil && r.Done && r.SkippedTotal > 0 {
			fmt.Fprintf(e.stdout, "skipped:   %d by the last run\n", r.SkippedTotal)
			for i, sk := range r.Skipped {
				if i == maxSkipsShown {
					fmt.Fprintf(e.stdout, "           … %d more (`stats --json` lists %d)\n", r.SkippedTotal-i, len(r.Skipped))
					break
				}
				fmt.Fprintf(e.stdout, "           %s (%s)\n", sk.Path, sk.Reason)
			}
		}
	}
	return nil
}

// mixedRemedy says how to end a mixed index (store.MixedVectors): an
// index run embeds the stray files again with the embedder it runs with,
// so the change is finished by running it with the new embedder's
// settings, and undone by running it with the project's. A plain
// `coderag index` runs with whatever the environment configures, which
// is the project's embedder only if the change was made by a setting of
// that one command.
func mixedRemedy(m store.MixedVectors, root string) string {
	first, _, _ := strings.Cut(m.Other, ", ")
	if id, ok := store.RetiredOf(first); ok && id == m.Embedder {
		// the model behind the project's embedder was replaced (index's
		// model probe): only running again finishes it
		return fmt.Sprintf("the model behind %s was replaced; run `%scoderag index %s` to embed them again", id, search.EmbedderEnv(id), root)
	}
	return fmt.Sprintf("to finish the change run `%scoderag index %s`; to keep %s, run it with that embedder's settings (the defaults unless they were changed)",
		search.EmbedderEnv(first), root, m.Embedder)
}
