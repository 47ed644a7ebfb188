package serve

import (
	"context"
	"errors"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/index"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/tools"
)

// Backend is everything the server asks of coderag. Handlers call nothing
// else, so the server runs over any implementation: Local (local.go) is the
// one over an engine.Engine. Project arguments are absolute project roots
// as Projects lists them; the server resolves names to roots first.
type Backend interface {
	// Projects returns every indexed project with its counts, its last
	// recorded run and the progress of the index job of its root in this
	// process (and projects whose first run, started by Index, is going
	// on), sorted
	// by root.
	Projects(ctx context.Context) ([]ProjectStatus, error)
	// Roots returns the roots Projects lists, sorted, without reading
	// their counts or runs: what resolving a project name needs.
	Roots(ctx context.Context) ([]string, error)
	// Search answers query over projects (all indexed projects when empty),
	// merged by relevance by search.SearchProjects.
	Search(ctx context.Context, projects []string, query string, opts search.Options) (*search.MultiResponse, error)
	// File reads a window of one file of project with the confinement of
	// tools.Read: tools.ErrOutsideRoot for `..`, absolute paths elsewhere
	// and symlinks leading out; tools.ErrNotIndexed for a file the index
	// does not take (tools.ReadIndexed); tools.ErrNotFound, tools.ErrBinary, ...
	File(ctx context.Context, project, path string, offset, limit int) (*tools.ReadResult, error)
	// Graph returns the callers and callees of the function or method
	// name in project, depth levels deep (1: the direct ones);
	// relate.ErrNotFound or relate.ErrAmbiguous when name does not pick
	// one definition.
	Graph(ctx context.Context, project, name string, depth int) (*Graph, error)
	// Index starts indexing the directory root (a new project, or an
	// incremental run of an indexed one) in the background and returns at
	// once with its status; a run already going on is joined, not doubled.
	// engine.ErrRemoving (409) while a Remove of root is going on.
	Index(ctx context.Context, root string) (*ProjectStatus, error)
	// Cancel stops the index run of root going on in this server,
	// whoever started it (the API, an MCP session), and waits until it
	// has stopped; what it committed stays indexed. It reports whether a
	// run was going on.
	Cancel(ctx context.Context, root string) (bool, error)
	// Remove drops the project indexed at root (which must be its root):
	// ErrUnknownProject when it is not indexed, ErrBusy while it is being
	// indexed, engine.ErrRemoving while another Remove of it goes on. No
	// index run of root starts between the check and the delete.
	Remove(ctx context.Context, root string) (*Removed, error)
	// MCP returns the MCP server of project, with the same tools as
	// `coderag mcp --root project`; without write it writes nothing:
	// index_project is left out and search_code and code_graph answer
	// from the index as it is.
	MCP(project string, write bool) (*sdk.Server, error)
	// StorePath names the index (a file path or a URL without password).
	StorePath() string
}

// Sentinel errors of a Backend, mapped to HTTP statuses by the server.
var (
	// ErrUnknownProject: no indexed project has that root or name (404).
	ErrUnknownProject = errors.New("not an indexed project")
	// ErrBusy: the project is being indexed; try again when it is done
	// (409). It is engine.ErrIndexing, so errors of the engine match it.
	ErrBusy = engine.ErrIndexing
)

// ProjectStatus is one indexed project's state: the fields of `coderag
// stats --json` the page shows, and the progress of the index job of its
// root in the server.
type ProjectStatus struct {
	Project string `json:"project"` // absolute root
	// Name tells the project apart for display and in requests
	// (?project=, /api/remove): the shortest path suffix of its root that
	// no other project's root ends with ("lib", or "a/lib" and "b/lib").
	Name      string `json:"name"`
	Indexed   bool   `json:"indexed"` // false: a first run is going on
	Embedder  string `json:"embedder,omitempty"`
	Files     int    `json:"files"`
	Chunks    int    `json:"chunks"`
	Embedded  int    `json:"embedded_chunks"`
	Relations int    `json:"relations"`
	UpdatedAt string `json:"updated_at,omitempty"` // RFC 3339
	// LastRun is the record of the project's last index run, whichever
	// process ran it: done=false means it was interrupted or is going on.
	LastRun *store.RunReport `json:"last_run,omitempty"`
	// IndexedFiles of TotalFiles are indexed when a run is incomplete.
	IndexedFiles int `json:"indexed_files,omitempty"`
	TotalFiles   int `json:"total_files,omitempty"`
	// Mixed is set when some files carry vectors of another embedder than
	// the project's, which searches do not read (engine.Status.Mixed);
	// Note says so in words (search.MixedNote).
	Mixed *store.MixedVectors `json:"mixed,omitempty"`
	Note  string              `json:"note,omitempty"`
	// Indexing is the root's index run in this server, going on or the
	// last one that ended, whoever started it (the API, an MCP session);
	// nil when none ran.
	Indexing *IndexRun `json:"indexing,omitempty"`
}

// IndexRun is the progress of an index run in the server.
type IndexRun struct {
	Running   bool   `json:"running"`
	Phase     string `json:"phase"` // scan, index, done
	Done      int    `json:"done"`  // changed files processed
	Total     int    `json:"total"` // changed files to process
	Scanned   int    `json:"scanned"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Error     string `json:"error,omitempty"`     // a failed run's; not set for a cancelled one
	Cancelled bool   `json:"cancelled,omitempty"` // stopped at Done of Total, not failed
	// State is the run in one line: "running", "done", "cancelled at
	// 101/406" (changed files done / total) or "failed: " and Error.
	State  string        `json:"state"`
	Report *index.Report `json:"report,omitempty"` // when finished
}

// Graph is a definition with its callers and callees, Depth levels deep
// (1: the direct ones), each walk in the shape of `coderag callers --json`
// and `coderag callees --json`.
type Graph struct {
	Root    string       `json:"root"`
	Query   string       `json:"query"`
	Depth   int          `json:"depth"`
	Start   *relate.Def  `json:"start"`
	Callers *relate.Walk `json:"callers"`
	Callees *relate.Walk `json:"callees"`
	// Names holds, by "path:line", the name that selects each function or
	// method of the walks whose own name does not (it is shared: two
	// packages' response.writeCGIHeader): the links to their graphs use it.
	Names map[string]string `json:"names,omitempty"`
}

// selector is the name a link to d's graph carries: one that selects d
// alone (Names), else d's own.
func (g *Graph) selector(d *relate.Def) string {
	if s, ok := g.Names[d.Loc()]; ok {
		return s
	}
	return d.Name
}

// Removed is the answer to Remove, the shape of `coderag remove --json`.
type Removed struct {
	Removed      string `json:"removed"`
	Files        int    `json:"files"`
	BytesBefore  int64  `json:"db_bytes_before"`
	BytesAfter   int64  `json:"db_bytes_after"`
	CompactError string `json:"compact_error,omitempty"`
}
