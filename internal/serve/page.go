package serve

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/search"
	"github.com/coderag/coderag/internal/tools"
	"github.com/coderag/coderag/internal/walk"
)

// web holds the page templates, the stylesheet and the script: no CDN,
// nothing fetched from elsewhere.
//
//go:embed web
var web embed.FS

// pageNames are the templates under web/, each rendered inside layout.html.
var pageNames = []string{"search", "file", "graph", "status", "login", "error"}

func parsePages() (map[string]*template.Template, error) {
	funcs := template.FuncMap{
		"display": walk.DisplayPath,
		"fileurl": fileURL,
		"pct": func(done, total int) int {
			if total <= 0 {
				return 0
			}
			return 100 * done / total
		},
	}
	out := map[string]*template.Template{}
	for _, n := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(web, "web/layout.html", "web/"+n+".html")
		if err != nil {
			return nil, fmt.Errorf("serve: page %s: %w", n, err)
		}
		out[n] = t
	}
	return out, nil
}

// static serves web/ (style.css, app.js) and chroma.css.
func (s *Server) static() http.Handler {
	sub, _ := fs.Sub(web, "web") // a constant, present directory
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "chroma.css":
			w.Header().Set("Content-Type", "text/css; charset=utf-8")
			_, _ = w.Write(s.css)
		case strings.HasSuffix(r.URL.Path, ".css"), strings.HasSuffix(r.URL.Path, ".js"):
			files.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// page is what every template gets.
type page struct {
	Title    string
	Version  string
	Q        string
	Projects []ProjectStatus
	Selected map[string]bool
	Data     any
}

// render executes page name and answers with status code; a template
// error is a programming error reported as a 500 with its message.
func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	p, ok := data.(*page)
	if !ok {
		p = &page{Data: data}
	}
	p.Version = s.opts.Version
	if p.Title == "" {
		p.Title = "coderag"
	}
	var b strings.Builder
	if err := s.pages[name].Execute(&b, p); err != nil {
		http.Error(w, "render "+name+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(b.String())) // the client went away: nothing to tell it
}

// pageError renders an error inside the layout with its HTTP status.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, err error) {
	s.render(w, status(err), "error", &page{Title: "coderag: error", Q: r.URL.Query().Get("q"), Data: err.Error()})
}

// resultView is one search result on the page.
type resultView struct {
	search.MultiResult
	N           int
	ProjectName string
	FileURL     string
	GraphURL    string // functions and methods only
	Snippet     template.HTML
	Cut         bool
}

// searchView is the search page's data.
type searchView struct {
	Resp    *search.MultiResponse
	Results []resultView
	Error   string
}

// pageTopK is how many results the page shows when the query does not
// say (top_k, config.TopK's range).
const pageTopK = 10

func (s *Server) pageSearch(w http.ResponseWriter, r *http.Request) {
	ps, err := s.b.Projects(r.Context())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	q := r.URL.Query()
	p := &page{Q: strings.TrimSpace(q.Get("q")), Projects: ps, Selected: map[string]bool{}}
	for _, n := range q["project"] {
		p.Selected[n] = true
	}
	v := &searchView{}
	p.Data = v
	code := http.StatusOK
	if p.Q != "" {
		p.Title = p.Q + " - coderag"
		// the API's rule (config.TopK), with the page's own default: a
		// bad value is the API's 400, not silently replaced
		k, err := pageTopK, error(nil)
		if v := q.Get("top_k"); v != "" {
			if k, err = config.TopK.Parse(v); err != nil {
				err = badRequest("%v", err)
			}
		}
		var roots []string
		if err == nil {
			roots, err = s.resolveAll(r.Context(), q["project"])
		}
		if err == nil {
			v.Resp, err = s.b.Search(r.Context(), roots, p.Q, search.Options{TopK: k, Explain: true})
		}
		if err != nil {
			code = status(err)
			v.Error = err.Error()
		} else {
			names := map[string]string{}
			for _, pr := range ps {
				names[pr.Project] = pr.Name
			}
			for i, res := range v.Resp.Results {
				code, cut := snippet(res.Content())
				rv := resultView{MultiResult: res, N: i + 1, ProjectName: names[res.Project],
					FileURL: fileURL(res.Project, res.Path, res.StartLine, res.EndLine),
					Snippet: highlight(code, res.Path, res.Language, res.StartLine, [2]int{}, false), Cut: cut}
				if rv.ProjectName == "" {
					rv.ProjectName = res.Project
				}
				if res.Type == chunk.KindFunction || res.Type == chunk.KindMethod {
					rv.GraphURL = graphURL(res.Project, res.Name)
				}
				v.Results = append(v.Results, rv)
			}
		}
	}
	s.render(w, code, "search", p)
}

// fileView is the file page's data.
type fileView struct {
	Project, Name, Path string
	Res                 *tools.ReadResult
	Code                template.HTML
	Last                int    // last line shown
	Prev, Next          string // links to the previous and next windows
}

// fileWindow is how many lines the file page shows at once.
const fileWindow = tools.MaxReadLimit

func (s *Server) pageFile(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	path, err := filePath(q)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	root, err := s.resolve(r.Context(), q.Get("project"))
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	var line, end, offset int
	for _, p := range []struct {
		name string
		v    *int
	}{{"line", &line}, {"end", &end}, {"offset", &offset}} {
		if *p.v, err = lineParam(q, p.name); err != nil {
			s.pageError(w, r, err)
			return
		}
	}
	if offset < 1 {
		offset = max(1, line-fileWindow/4)
	}
	res, err := s.b.File(r.Context(), root, path, offset, fileWindow)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	hl := [2]int{}
	if line > 0 {
		hl = [2]int{line, max(line, end)}
	}
	v := &fileView{Project: root, Path: res.Path, Res: res, Last: res.Offset + len(res.Lines) - 1,
		Code: highlight(strings.Join(res.Lines, "\n"), res.Path, "", res.Offset, hl, true)}
	if res.Offset > 1 {
		v.Prev = fmt.Sprintf("/file?%s&offset=%d", projectPathQuery(root, res.Path), max(1, res.Offset-fileWindow))
	}
	if res.NextOffset > 0 {
		v.Next = fmt.Sprintf("/file?%s&offset=%d", projectPathQuery(root, res.Path), res.NextOffset)
	}
	s.render(w, http.StatusOK, "file", &page{Title: res.Path + " - coderag", Data: v})
}

func projectPathQuery(root, path string) string {
	return "project=" + url.QueryEscape(root) + "&path=" + url.QueryEscape(path)
}

// graphView is the graph page's data.
type graphView struct {
	G   *Graph
	SVG template.HTML
}

func (s *Server) pageGraph(w http.ResponseWriter, r *http.Request) {
	g, err := s.graph(r)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "graph", &page{Title: g.Query + " - call graph - coderag", Data: &graphView{G: g, SVG: drawGraph(g)}})
}

func (s *Server) pageStatus(w http.ResponseWriter, r *http.Request) {
	ps, err := s.b.Projects(r.Context())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "status", &page{Title: "index status - coderag", Projects: ps, Data: statusJSON{DB: s.b.StorePath(), Writes: s.opts.Token != "", Projects: ps}})
}
