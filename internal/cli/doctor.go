package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/english"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
)

func init() {
	register(command{name: "doctor", summary: "check the index file for damage; --rebuild moves a damaged one aside and re-indexes its projects", run: runDoctor})
}

// doctorOut is the --json form of a doctor run.
type doctorOut struct {
	store.CheckReport
	// Root is the indexed project that holds the working directory (the
	// project search, graph and stats would use there), an absolute path;
	// omitted when the directory is in none of Projects.
	Root    string `json:"root,omitempty"`
	Healthy bool   `json:"healthy"`
	// Chinese says what translates Chinese queries, as in `stats`: the
	// CC-CEDICT dictionary and the glossary, or the glossary only and why.
	// A missing dictionary is not a problem of the index file.
	Chinese string `json:"chinese"`
	// Embedder names the embedder a new index is built with (its id and
	// one line on what it is, embed.Describe), or why it cannot be built.
	Embedder string `json:"embedder"`
	// Notes says what a sound index's projects need, one line each: a
	// mixed project (project_vectors[].mixed) with the command that
	// finishes its change of embedder, a project recorded with an
	// embedder a new index would not get, or with a built-in model this
	// coderag does not ship. They are no damage: healthy stays true.
	Notes []string `json:"notes,omitempty"`
	// MovedTo is where --rebuild moved the damaged file.
	MovedTo string `json:"moved_to,omitempty"`
	// Rebuilt lists the projects --rebuild indexed again.
	Rebuilt []string `json:"rebuilt,omitempty"`
	// Lost lists the projects --rebuild could not index again (directory
	// gone, embedder unavailable, or the run failed), with why.
	Lost map[string]string `json:"lost,omitempty"`
	// Error is the line doctor fails with (exit status 1), as stderr has
	// it after "coderag doctor: ": the index is damaged, not an index, or
	// could not be read, or --rebuild did not finish. The findings are
	// printed all the same; omitted when doctor succeeds.
	Error string `json:"error,omitempty"`
}

// configuredEmbedder describes the embedder `coderag index` would use
// here (embed.Describe: id and what it is), or says why there is none;
// id is its id, "" when there is none.
func configuredEmbedder(e *env) (described, id string) {
	emb, err := e.newEmbedder()
	if err != nil {
		return "unavailable: " + oneLine(err.Error()), ""
	}
	return embed.Describe(emb), emb.ID()
}

// vectorNotes are doctor's notes on the projects of a sound index (vs,
// from store.Check), given the configured embedder's id (cfgID, "" when
// it cannot be built): mixed lists each mixed project's note and remedy,
// as `stats` gives them; embedders names each project recorded with
// another embedder than cfgID, and says when that is a built-in model
// this binary does not ship (engine.OutdatedBuiltin).
func vectorNotes(vs []store.ProjectVectors, cfgID string) (mixed, embedders []string) {
	for _, v := range vs {
		if m := v.Mixed; m != nil {
			mixed = append(mixed, fmt.Sprintf("%s: %s; %s", v.Root, search.MixedNote(*m), mixedRemedy(*m, v.Root)))
		}
		if v.Embedder == cfgID {
			continue
		}
		note := fmt.Sprintf("%s is indexed with %s", v.Root, v.Embedder)
		switch {
		case engine.OutdatedBuiltin(v.Embedder):
			note += ", a built-in model this coderag does not ship: its searches fail until `coderag index " + v.Root + "` embeds it again"
			if cfgID != "" {
				note += " with " + cfgID
			}
		case cfgID != "":
			note += "; `coderag index " + v.Root + "` with this configuration would embed it again with " + cfgID
		}
		embedders = append(embedders, note)
	}
	return mixed, embedders
}

func runDoctor(e *env, args []string) (err error) {
	fs := newFlags(e, "doctor", "[flags]",
		`Check $CODERAG_HOME/index.db without changing it: that it is a coderag index (an SQLite
file of another program is left alone), that every table exists, SQLite's quick_check
(--full: integrity_check) and the full-text index's own integrity check. Exit status 1
when something is wrong.

A sound index's projects are looked at too: a project whose files carry vectors of more
than one embedder (an interrupted change of EMBEDDING_MODEL) is reported as mixed with
the command that finishes the change, and the embedder line names each project indexed
with another embedder than a new index gets, and says when that is a built-in model this
coderag does not ship. An index file other users of the machine can read (older versions
created it 0644; it is 0600 now, in a 0700 directory when that is new) is reported with
the chmod that stops it. None of these is damage: the exit status stays 0.

With --rebuild, a damaged index is moved aside to index.db.damaged-TIME (never deleted)
and every project it listed whose directory still exists is indexed again into a new
file, each with the embedder it was indexed with. A file that is not a coderag index is
never moved: set CODERAG_HOME elsewhere instead. Nor is one the checks could not read
for the disk's sake (full, an I/O error): that is no damage, and doctor says so.`)
	rebuild := fs.Bool("rebuild", false, "move a damaged index aside and index its projects again")
	full := fs.Bool("full", false, "run integrity_check (slower, every index entry) instead of quick_check")
	asJSON := fs.Bool("json", false, `print the findings as JSON: {"path" (the index), "schema_version", "projects", "problems", "root" (the indexed project holding the working directory), "healthy", "chinese" (what translates Chinese queries), "embedder" (what a new index is built with), "project_vectors" ([{"root", "embedder", "mixed"}]), "notes" (what projects need), "error" (why doctor failed), ...}; an error before the checks ran as {"error": MSG}`)
	defer func() { err = e.jsonError(*asJSON, err) }()
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("takes no arguments")
	}
	path := e.cfg.DBPath()
	exists, err := store.Exists(path)
	if err != nil {
		return err
	}
	described, cfgID := configuredEmbedder(e)
	if !exists {
		if *asJSON {
			return writeJSON(e.stdout, doctorOut{CheckReport: store.CheckReport{Path: store.Redact(path)}, Healthy: true,
				Chinese: e.an.Status(), Embedder: described})
		}
		fmt.Fprintf(e.stdout, "no index at %s yet: nothing to check\nchinese: %s\nembedder: %s\n", store.Redact(path),
			e.an.Status(), described)
		return nil
	}
	rep, err := store.Check(e.ctx, path, *full)
	if err != nil {
		return fmt.Errorf("check %s: %w", store.Redact(path), err)
	}
	out := doctorOut{CheckReport: *rep, Root: enclosingRoot(".", rep.Projects), Healthy: len(rep.Problems) == 0 && rep.Unreadable == "",
		Chinese: e.an.Status(), Embedder: described}
	// from here on --json prints the findings, one object, and a failure
	// is its "error" (an interrupt is not: it has no findings to add)
	fail := func(err error) error {
		if !*asJSON {
			return err
		}
		if !errors.Is(err, context.Canceled) {
			out.Error = e.jsonMessage(err)
			err = jsonReported{err}
		}
		if werr := writeJSON(e.stdout, out); werr != nil {
			return werr
		}
		return err
	}
	if !*asJSON {
		for _, p := range rep.Problems {
			fmt.Fprintf(e.stdout, "problem: %s\n", problemLine(p))
		}
		for _, s := range rep.Skipped {
			fmt.Fprintf(e.stdout, "not checked: %s\n", oneLine(s))
		}
	}
	switch {
	case rep.Unreadable != "":
		// a full disk or an I/O error says nothing of the file: moving it
		// aside would lose a healthy index (and its project list)
		return fail(unreadableError(store.Redact(path), rep))
	case out.Healthy:
		mixed, embedders := vectorNotes(rep.Vectors, cfgID)
		out.Notes = append(mixed, embedders...)
		private := ""
		if !store.IsPostgres(path) {
			private = store.PrivateModeIssue(path)
		}
		if private != "" {
			out.Notes = append(out.Notes, private)
		}
		if *asJSON {
			return writeJSON(e.stdout, out)
		}
		projects := "projects"
		if len(rep.Projects) == 1 {
			projects = "project"
		}
		verdict := "ok"
		switch len(mixed) {
		case 0:
		case 1:
			verdict = "no damage, but 1 project's index is mixed"
		default:
			verdict = fmt.Sprintf("no damage, but %d projects' indexes are mixed", len(mixed))
		}
		fmt.Fprintf(e.stdout, "%s: %s (schema %d, %d %s)\n", store.Redact(path), verdict, rep.Schema, len(rep.Projects), projects)
		for _, m := range mixed {
			fmt.Fprintf(e.stdout, "mixed: %s\n", m)
		}
		fmt.Fprintf(e.stdout, "chinese: %s\nembedder: %s\n", out.Chinese, out.Embedder)
		for _, n := range embedders {
			fmt.Fprintf(e.stdout, "          %s\n", n)
		}
		if private != "" {
			fmt.Fprintf(e.stdout, "readable: %s\n", private)
		}
		return nil
	case rep.Foreign:
		where := "set CODERAG_HOME"
		if e.cfg.Store != "" {
			where = "point CODERAG_STORE (or --store) at another file"
		}
		return fail(fmt.Errorf("%s is not a coderag index; it was left untouched: move it away or %s", store.Redact(path), where))
	case !*rebuild:
		if rep.ProjectsError != "" {
			return fail(fmt.Errorf("%s is damaged and its list of projects cannot be read (%s): `coderag doctor --rebuild` moves it aside "+
				"and starts an empty index, and every project it held must then be indexed again with `coderag index PATH`",
				store.Redact(path), oneLine(rep.ProjectsError)))
		}
		projects := fmt.Sprintf("its %d projects", len(rep.Projects))
		if len(rep.Projects) == 1 {
			projects = "its project"
		}
		return fail(fmt.Errorf("%s is damaged: run `coderag doctor --rebuild` to move it aside and index %s again", store.Redact(path), projects))
	}
	if store.IsPostgres(path) {
		return fail(fmt.Errorf("%s: a PostgreSQL index is not moved aside: remove its projects (coderag remove) and index them again", store.Redact(path)))
	}
	out.MovedTo, out.Rebuilt, out.Lost, err = e.rebuild(path, rep.Projects)
	if err != nil {
		return fail(err)
	}
	if len(out.Lost) > 0 {
		return fail(fmt.Errorf("%d of %s could not be indexed again (the damaged file is at %s)", len(out.Lost), english.Counted(len(rep.Projects), "project"), out.MovedTo))
	}
	if *asJSON {
		return writeJSON(e.stdout, out)
	}
	return nil
}

// problemShown is how many findings of one problem doctor's text output
// shows; --json has them all.
const problemShown = 3

// problemLine is one problem of store.Check as doctor prints it, one line:
// SQLite's quick_check and integrity_check give their findings as the
// lines of one row (up to 100 of them, some 8 KB, under "*** in database
// main ***"), of which the first problemShown are shown, then how many more
// there are and where to read them.
func problemLine(p string) string {
	var finds []string
	for _, l := range strings.Split(p, "\n") {
		l = oneLine(l)
		if l == "" || strings.HasPrefix(l, "*** in database ") && strings.HasSuffix(l, " ***") {
			continue
		}
		finds = append(finds, l)
	}
	if len(finds) <= problemShown+1 {
		return strings.Join(finds, "; ")
	}
	return fmt.Sprintf("%s; ... and %d more (`coderag doctor --json` lists them all)",
		strings.Join(finds[:problemShown], "; "), len(finds)-problemShown)
}

// unreadableError is doctor's answer when the checks of the index at path
// could not read it for another cause than its content (rep.Unreadable):
// nothing was moved, and what to do about it.
func unreadableError(path string, rep *store.CheckReport) error {
	msg := fmt.Sprintf("cannot read %s: %s; nothing was moved", path, oneLine(rep.Unreadable))
	if len(rep.Problems) == 0 {
		msg += " (this is no sign of damage to the index)"
	}
	if strings.HasPrefix(rep.Unreadable, store.DiskFull) {
		return errors.New(msg + ": free some space on the disk and run `coderag doctor` again")
	}
	return errors.New(msg + ": run `coderag doctor` again once that is resolved")
}

// enclosingRoot returns the nearest of roots that is dir or one of its
// parents, after resolving dir as rootrule.Resolve does; "" when none is.
func enclosingRoot(dir string, roots []string) string {
	d, err := rootrule.Resolve(dir)
	if err != nil {
		return ""
	}
	best := ""
	for _, r := range roots {
		rel, err := filepath.Rel(r, d)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if len(r) > len(best) {
			best = r
		}
	}
	return best
}

// rebuild moves the damaged file (and its WAL and shared-memory files)
// aside and indexes projects again into a new file. When the new file
// cannot be made (the disk is full), the damaged one is moved back: an
// empty index in its place would hide the projects it lists.
func (e *env) rebuild(path string, projects []string) (movedTo string, rebuilt []string, lost map[string]string, err error) {
	movedTo = path + ".damaged-" + time.Now().UTC().Format("20060102-150405")
	sufs := []string{"", "-wal", "-shm"}
	for _, suf := range sufs {
		if err := os.Rename(path+suf, movedTo+suf); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", nil, nil, fmt.Errorf("move %s aside: %w", path+suf, err)
		}
	}
	// the embedder of each project, from the damaged file if it can tell
	embedders := map[string]string{}
	if old, err := store.ReadProjects(e.ctx, movedTo); err == nil {
		for _, p := range old {
			embedders[p.Path] = p.Embedder
		}
	}
	say := func(format string, a ...any) {
		fmt.Fprintf(e.stderr, format, a...)
	}
	// a process that had the index open (coderag serve, index --watch)
	// keeps reading, and writing, the file it opened, now under its new
	// name: only a restart points it at the new index
	say("moved the damaged index to %s (restart any coderag serve or index --watch using it: they keep the moved file open)\n", movedTo)
	st, err := openStore(e)
	if err != nil {
		// what Open made of the new file goes; the damaged one comes back
		for _, suf := range sufs {
			os.Remove(path + suf)
		}
		for _, suf := range sufs {
			if rerr := os.Rename(movedTo+suf, path+suf); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				return movedTo, nil, nil, fmt.Errorf("%w (and moving the damaged index back from %s failed: %v)", err, movedTo, rerr)
			}
		}
		say("could not make a new index, so the damaged one was moved back to %s\n", path)
		return "", nil, nil, err
	}
	defer st.Close()
	// every project goes into the new file before any is indexed, as a run
	// begun and not finished: an interrupted rebuild leaves them all
	// listed (stats and index_status say incomplete, and `coderag index`
	// or a search's refresh finishes each), not only those it reached
	lost = map[string]string{}
	embs := map[string]embed.Embedder{}
	var todo []string
	for _, p := range projects {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			lost[p] = "directory gone"
			continue
		}
		emb, err := e.newEmbedder()
		if id := embedders[p]; id != "" {
			emb, err = engine.ProjectEmbedder(id, e.embedding())
		}
		if err == nil {
			err = registerProject(e.ctx, st, filepath.Clean(p), emb)
		}
		if err != nil {
			if e.ctx.Err() != nil {
				return movedTo, rebuilt, lost, e.ctx.Err()
			}
			lost[p] = e.errText(err)
			continue
		}
		embs[p] = emb
		todo = append(todo, p)
	}
	for _, p := range todo {
		r, err := index.Run(e.ctx, st, embs[p], filepath.Clean(p), index.Options{Threads: e.cfg.IndexThreads, BatchSize: e.cfg.Embedding.BatchSize})
		if err != nil {
			if e.ctx.Err() != nil {
				return movedTo, rebuilt, lost, e.ctx.Err()
			}
			lost[p] = e.errText(err)
			continue
		}
		rebuilt = append(rebuilt, p)
		say("re-indexed %s: %s, %s, %d failed\n", p, english.Counted(r.Changed, "file"), english.Counted(r.Chunks, "chunk"), r.Failed)
	}
	for p, why := range lost {
		say("not re-indexed: %s: %s\n", p, why)
	}
	if len(projects) == 0 {
		say("the damaged index listed no readable projects: run `coderag index PATH` for each\n")
	}
	return movedTo, rebuilt, lost, nil
}

// registerProject records root in st as a project of emb whose index run
// began and has not finished (store.BeginRun), as index.Run records a new
// project before it writes any file.
func registerProject(ctx context.Context, st *store.Store, root string, emb embed.Embedder) error {
	if err := st.PutProject(ctx, store.Project{Path: root, Embedder: emb.ID(), Dim: emb.Dim()}); err != nil {
		return fmt.Errorf("record project: %w", err)
	}
	return st.BeginRun(ctx, root, 0, false)
}

// openStore opens the index for writing (creating it): doctor's repair
// rebuilds a new index file itself, below any engine.
func openStore(e *env) (*store.Store, error) {
	return store.Open(e.ctx, e.cfg.DBPath())
}
