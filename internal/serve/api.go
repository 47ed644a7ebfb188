package serve

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/relate"
	"github.com/coderag/coderag/internal/rootrule"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/tools"
)

// statusJSON is GET /api/status.
type statusJSON struct {
	DB       string          `json:"db"`
	Version  string          `json:"version"`
	Writes   bool            `json:"writes"` // a token is set: index and remove are possible
	Projects []ProjectStatus `json:"projects"`
}

func (s *Server) apiStatus(w http.ResponseWriter, r *http.Request) {
	ps, err := s.b.Projects(r.Context())
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, statusJSON{DB: s.b.StorePath(), Version: s.opts.Version, Writes: s.opts.Token != "", Projects: ps})
}

// searchRequest reads the query parameters of a search: q, project
// (repeatable; none = all), top_k, ranker, explain.
func (s *Server) searchRequest(r *http.Request) (query string, roots []string, opts search.Options, err error) {
	q := r.URL.Query()
	query = strings.TrimSpace(q.Get("q"))
	if query == "" {
		return "", nil, opts, badRequest("missing q (the query)")
	}
	if opts.TopK, err = config.TopK.Parse(q.Get("top_k")); err != nil {
		return "", nil, opts, badRequest("%v", err)
	}
	opts.Ranker = q.Get("ranker")
	if opts.Explain, err = boolParam(q, "explain"); err != nil {
		return "", nil, opts, err
	}
	roots, err = s.resolveAll(r.Context(), q["project"])
	return query, roots, opts, err
}

// boolParam reads the boolean query parameter name of an API request:
// false when absent or empty, else what strconv.ParseBool takes (1, t,
// true, 0, f, false, ...); another value is a bad request naming it, not
// ignored.
func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, badRequest("%s must be 1 or 0 (true or false), got %q", name, v)
	}
	return b, nil
}

// apiSearch is GET /api/search: the answer of `search --json` over
// several projects (search.MultiResponse).
func (s *Server) apiSearch(w http.ResponseWriter, r *http.Request) {
	query, roots, opts, err := s.searchRequest(r)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	resp, err := s.b.Search(r.Context(), roots, query, opts)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// apiExplain is GET /api/explain: a search with every result's score
// breakdown (`search --explain --json`).
func (s *Server) apiExplain(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	q.Set("explain", "true")
	r.URL.RawQuery = q.Encode()
	s.apiSearch(w, r)
}

// apiFile is GET /api/file?project=&path=&offset=&limit=: the read_file
// window (tools.ReadResult), confined to the project root.
func (s *Server) apiFile(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	path, err := filePath(q)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	root, err := s.resolve(r.Context(), q.Get("project"))
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	offset, err := lineParam(q, "offset")
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	limit := 0
	if v := q.Get("limit"); v != "" {
		// a read returns at most MaxReadLimit lines (as MCP's read_file
		// says): a larger limit is refused, not cut without a word
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 1 || n > tools.MaxReadLimit {
			err = badRequest("limit must be a number of lines from 1 to %d, got %q (page with offset)", tools.MaxReadLimit, v)
		}
		limit = n
	}
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	res, err := s.b.File(r.Context(), root, path, offset, limit)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// filePath is the path parameter of a file view: a missing one, or one
// with a NUL byte, which no file name holds, is a 400.
func filePath(q url.Values) (string, error) {
	p := q.Get("path")
	if strings.TrimSpace(p) == "" {
		return "", badRequest("missing path (a file of the project, relative to its root)")
	}
	if strings.ContainsRune(p, 0) {
		return "", badRequest("path %q holds a NUL byte", p)
	}
	return p, nil
}

// maxLine bounds the line numbers of a file view (offset, limit, line,
// end): a file is read in its first 64 MiB only, so no line is beyond it.
const maxLine = tools.MaxReadScanBytes

// lineParam is the line number parameter name of q: 0 when absent, a 400
// naming the value as given when it is not a whole number from 1 to
// maxLine (offset=-1 is not read as line 1).
func lineParam(q url.Values, name string) (int, error) {
	v := q.Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > maxLine {
		return 0, badRequest("%s must be a line number from 1 to %d, got %q", name, maxLine, v)
	}
	return int(n), nil
}

// apiGraph is GET /api/graph?project=&name=[&depth=N][&guesses=1][&format=svg]:
// callers and callees, depth levels deep (1 to maxGraphDepth, default 1),
// as JSON (Graph), or drawn as SVG (guessed calls only with guesses=1).
func (s *Server) apiGraph(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	// an option value the endpoint does not know is a 400, not ignored
	format := q.Get("format")
	if format != "" && format != "json" && format != "svg" {
		httpError(w, r, http.StatusBadRequest, badRequest("format must be json or svg, got %q", format))
		return
	}
	guesses, err := boolParam(q, "guesses")
	if err != nil {
		httpError(w, r, http.StatusBadRequest, err)
		return
	}
	g, err := s.graph(r)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	if format == "svg" {
		w.Header().Set("Content-Type", "image/svg+xml")
		_, _ = io.WriteString(w, string(drawGraph(g, guesses))) // the client went away: nothing to tell it
		return
	}
	writeJSON(w, http.StatusOK, g)
}

// graph answers a graph request of the API or the page.
func (s *Server) graph(r *http.Request) (*Graph, error) {
	q := r.URL.Query()
	root, err := s.resolve(r.Context(), q.Get("project"))
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(q.Get("name"))
	if name == "" {
		return nil, badRequest("missing name (a function or Class.method)")
	}
	depth := 1
	if v := q.Get("depth"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxGraphDepth {
			return nil, badRequest("depth must be a whole number from 1 to %d, got %q", maxGraphDepth, v)
		}
		depth = n
	}
	g, err := s.b.Graph(r.Context(), root, name, depth)
	if errors.Is(err, relate.ErrAmbiguous) {
		// a search result's link names its file too (path=): a name
		// several definitions share opens the one in that file
		if path := strings.TrimSpace(q.Get("path")); path != "" {
			return s.b.Graph(r.Context(), root, path+":"+name, depth)
		}
	}
	return g, err
}

// maxGraphDepth is the deepest graph the page and the API draw: each level
// is two more columns.
const maxGraphDepth = 3

// rootRequest is the body of POST /api/index and /api/remove.
type rootRequest struct {
	Root string `json:"root"`
}

// readRoot reads the root of a write from a JSON body {"root": ...}, read
// strictly (decodeStrict: no trailing data, unknown, duplicate or
// case-variant keys), or the root query parameter.
func readRoot(r *http.Request) (string, error) {
	if v := r.URL.Query().Get("root"); v != "" {
		return v, nil
	}
	var req rootRequest
	if err := decodeStrict(r.Body, &req); err != nil && !errors.Is(err, io.EOF) {
		return "", badRequest("body: %v (want {\"root\": \"/path/to/project\"})", err)
	}
	if strings.TrimSpace(req.Root) == "" {
		return "", badRequest("missing root (the project directory on the server)")
	}
	return req.Root, nil
}

// apiIndex is POST /api/index: starts indexing a directory on the server
// and answers 202 with its status (poll /api/status for progress).
func (s *Server) apiIndex(w http.ResponseWriter, r *http.Request) {
	root, err := readRoot(r)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	if indexed, err := s.resolve(r.Context(), root); err == nil {
		root = indexed // a project's name re-indexes it
	} else if _, err = indexRoot(root); err != nil {
		httpError(w, r, status(err), err)
		return
	} // else the directory as given: Backend.Index checks it as given and resolved
	st, err := s.b.Index(r.Context(), root)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusAccepted, st)
}

// indexRoot checks a directory POST /api/index was asked to index that is
// not an indexed project's name or root, and returns it symlink-resolved:
// a 400 for a relative path (the server's working directory is no one's
// business) or one that is not a directory. Whether it may be a project
// at all (rootrule: not /, the home directory, a system tree, a hidden or
// ignored directory) is Backend.Index's to say, for every root alike.
func indexRoot(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", badRequest("root %q is relative: give the absolute directory on the server, or the name of an indexed project", dir)
	}
	root, err := rootrule.Resolve(dir)
	if err != nil {
		return "", badRequest("root %q: %v", dir, err)
	}
	return root, nil
}

// bodyRoot reads a write request's "root" (readRoot) and returns the
// indexed project's root when it names one (by name or path), else the
// root as given.
func (s *Server) bodyRoot(r *http.Request) (string, error) {
	root, err := readRoot(r)
	if err != nil {
		return "", err
	}
	if indexed, err := s.resolve(r.Context(), root); err == nil {
		return indexed, nil
	}
	return root, nil
}

// apiCancel is POST /api/cancel: stops the index run of a project (its
// name or root) going on in the server and answers when it has stopped,
// with {"root", "cancelled"} (false: no run was going on); what the run
// committed stays indexed.
func (s *Server) apiCancel(w http.ResponseWriter, r *http.Request) {
	root, err := s.bodyRoot(r)
	if err == nil && !filepath.IsAbs(root) {
		_, err = s.resolve(r.Context(), root) // the name's own error
	}
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	root = filepath.Clean(root)
	stopped, err := s.b.Cancel(r.Context(), root)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"root": root, "cancelled": stopped})
}

// apiRemove is POST /api/remove: drops an indexed project, named by its
// root or its name as apiCancel's (`coderag remove --json`); a name two
// projects share is the 400 naming them.
func (s *Server) apiRemove(w http.ResponseWriter, r *http.Request) {
	root, err := s.bodyRoot(r)
	if err == nil && !filepath.IsAbs(root) {
		_, err = s.resolve(r.Context(), root) // the name's own error
	}
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	res, err := s.b.Remove(r.Context(), root)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
