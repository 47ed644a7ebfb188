package serve

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/coderag/coderag/internal/search"
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
	if v := q.Get("top_k"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 || k > search.MaxTopK {
			return "", nil, opts, badRequest("top_k must be 1..%d, got %q", search.MaxTopK, v)
		}
		opts.TopK = k
	}
	opts.Ranker = q.Get("ranker")
	opts.Explain, _ = strconv.ParseBool(q.Get("explain"))
	roots, err = s.resolveAll(r.Context(), q["project"])
	return query, roots, opts, err
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
	root, err := s.resolve(r.Context(), q.Get("project"))
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	limit, _ := strconv.Atoi(q.Get("limit"))
	res, err := s.b.File(r.Context(), root, q.Get("path"), max(offset, 0), max(limit, 0))
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// apiGraph is GET /api/graph?project=&name=[&format=svg]: direct callers
// and callees as JSON (Graph), or drawn as SVG.
func (s *Server) apiGraph(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	g, err := s.graph(r)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	if q.Get("format") == "svg" {
		w.Header().Set("Content-Type", "image/svg+xml")
		_, _ = io.WriteString(w, string(drawGraph(g))) // the client went away: nothing to tell it
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
	return s.b.Graph(r.Context(), root, name)
}

// rootRequest is the body of POST /api/index and /api/remove.
type rootRequest struct {
	Root string `json:"root"`
}

// readRoot reads the root of a write from a JSON body {"root": ...} or the
// root query parameter.
func readRoot(r *http.Request) (string, error) {
	if v := r.URL.Query().Get("root"); v != "" {
		return v, nil
	}
	var req rootRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil && !errors.Is(err, io.EOF) {
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
	}
	st, err := s.b.Index(r.Context(), root)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusAccepted, st)
}

// apiRemove is POST /api/remove: drops an indexed project (`coderag
// remove --json`).
func (s *Server) apiRemove(w http.ResponseWriter, r *http.Request) {
	root, err := readRoot(r)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	if indexed, err := s.resolve(r.Context(), root); err == nil {
		root = indexed
	}
	res, err := s.b.Remove(r.Context(), root)
	if err != nil {
		httpError(w, r, status(err), err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}
