package serve

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/coderag/coderag/internal/chunk"
	"github.com/coderag/coderag/internal/config"
	"github.com/coderag/coderag/internal/relate"
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
		"add":     func(a, b int) int { return a + b },
		"join":    strings.Join,
		"dict": func(kv ...any) map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		},
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

// static serves web/ (style.css, app.js, favicon.svg) and chroma.css.
func (s *Server) static() http.Handler {
	sub, _ := fs.Sub(web, "web") // a constant, present directory
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "chroma.css":
			w.Header().Set("Content-Type", "text/css; charset=utf-8")
			_, _ = w.Write(s.css)
		case strings.HasSuffix(r.URL.Path, ".css"), strings.HasSuffix(r.URL.Path, ".js"), r.URL.Path == "favicon.svg":
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

// pageError renders an error inside the layout with its HTTP status, in
// the page's words (webText).
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, err error) {
	s.render(w, status(err), "error", &page{Title: "coderag: error", Q: r.URL.Query().Get("q"), Data: webText(err.Error())})
}

// resultView is one search result on the page.
type resultView struct {
	search.MultiResult
	N           int
	ProjectName string
	AlsoIn      []string // names of the other projects holding the same chunk
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
	// Notes are the answer's notes as the page says them (webText), each
	// after its project's name when several projects were searched.
	Notes []string
	// TopK is the number of results asked for; More the URL asking for
	// moreStep more (up to config.MaxTopK), "" when there are no more to
	// show; AtMost is set when TopK is the most a search gives.
	TopK   int
	More   string
	AtMost bool
}

// MaxTopK is the most results one search gives (config.MaxTopK), for the
// page's "more results" line.
func (*searchView) MaxTopK() int { return config.MaxTopK }

// pageTopK is how many results the page shows when the query does not
// say (top_k, config.TopK's range); moreStep how many more its "more
// results" link asks for.
const (
	pageTopK = 10
	moreStep = 10
)

// pageLimit is config.TopK with the page's default, so that the page's
// error says the default it shows ("(default 10)").
var pageLimit = func() config.Limit { l := config.TopK; l.Default = pageTopK; return l }()

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
			if k, err = pageLimit.Parse(v); err != nil {
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
		v.TopK = k
		if err != nil {
			code = status(err)
			v.Error = webText(err.Error())
		} else {
			v.Notes = searchNotes(v.Resp, ps)
			if len(v.Resp.Results) >= k {
				if k < config.MaxTopK {
					mq := url.Values{}
					for key, vals := range q {
						mq[key] = vals
					}
					mq.Set("top_k", strconv.Itoa(min(k+moreStep, config.MaxTopK)))
					v.More = "/?" + mq.Encode()
				} else {
					v.AtMost = true
				}
			}
			names := map[string]string{}
			for _, pr := range ps {
				names[pr.Project] = pr.Name
			}
			for i, res := range v.Resp.Results {
				code, cut := snippet(res.Content())
				rv := resultView{MultiResult: res, N: i + 1, ProjectName: names[res.Project],
					FileURL: fileURL(res.Project, res.Path, res.StartLine, res.EndLine),
					Snippet: highlight(code, res.Path, res.Language, res.StartLine, [2]int{}, false, res.LineMatches), Cut: cut}
				if rv.ProjectName == "" {
					rv.ProjectName = res.Project
				}
				for _, p := range res.AlsoIn {
					rv.AlsoIn = append(rv.AlsoIn, placeName(p, names))
				}
				if res.Type == chunk.KindFunction || res.Type == chunk.KindMethod {
					rv.GraphURL = graphURL(res.Project, res.Name) + "&path=" + url.QueryEscape(res.Path)
				}
				v.Results = append(v.Results, rv)
			}
		}
	}
	s.render(w, code, "search", p)
}

// searchNotes are the notes of resp for the page: each project's failure,
// partial index and weak-result note, in the page's words (webText), each
// after the project's name (ps) when several projects were searched; a
// note every project shares is said once.
func searchNotes(resp *search.MultiResponse, ps []ProjectStatus) []string {
	names := map[string]string{}
	for _, p := range ps {
		names[p.Project] = p.Name
	}
	var out []string
	seen := map[string]bool{}
	shared := len(resp.Projects) > 1
	for _, a := range resp.Projects {
		shared = shared && a.Note == resp.Projects[0].Note && a.Note != ""
	}
	for _, a := range resp.Projects {
		name := names[a.Project]
		if name == "" {
			name = a.Project
		}
		var notes []string
		switch {
		case a.Error != "":
			notes = append(notes, "search failed: "+webText(a.Error))
		case a.Incomplete != "":
			notes = append(notes, webText(a.Incomplete))
		}
		if a.Note != "" && a.Error == "" && !shared {
			notes = append(notes, webText(a.Note))
		}
		for _, n := range notes {
			if len(resp.Projects) > 1 {
				n = name + ": " + n
			}
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	if shared {
		out = append(out, webText(resp.Projects[0].Note))
	}
	return out
}

// fileView is the file page's data.
type fileView struct {
	Project, Name, Path string
	Res                 *tools.ReadResult
	Code                template.HTML
	Last                int    // last line shown
	Prev, Next          string // links to the previous and next windows
}

// fileWindow is how many lines the file page shows at once; fileContext
// how many lines above its target line (?line=) the window starts, so the
// page opens at the target, with a few lines of context and a link to
// the earlier ones.
const (
	fileWindow  = tools.MaxReadLimit
	fileContext = 10
)

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
		offset = max(1, line-fileContext)
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
		Code: highlight(strings.Join(res.Lines, "\n"), res.Path, "", res.Offset, hl, true, nil)}
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

// graphView is the graph page's data: the drawing, the depth control
// (Depths to choose from), whether guessed calls are drawn (Guesses, with
// GuessURL toggling it) and the lists of callers and callees.
type graphView struct {
	G                *Graph
	SVG              template.HTML
	Depths           []int
	Guesses          bool
	GuessURL         string
	Callers, Callees graphList
}

// graphList is one side of the graph as a list: the first maxListed edges
// that are not guesses (Shown), the others (More, collapsed under "N
// more"), and the guessed calls (Guessed, collapsed unless asked for).
type graphList struct {
	Shown, More, Guessed []edgeView
	Omitted              int // guesses the walk itself left out (relate's cap)
}

// edgeView is one caller or callee in the lists.
type edgeView struct {
	Name, GraphURL, FileURL, Loc, How string
	Depth                             int
}

// maxListed is how many callers or callees a list shows before "N more".
const maxListed = maxGraphRows

// listEdges sorts a walk's edges into a graphList.
func listEdges(g *Graph, w *relate.Walk, callers bool) graphList {
	var l graphList
	if w == nil {
		return l
	}
	l.Omitted = w.OmittedGuesses
	for _, e := range w.Edges {
		d, name := e.Target, e.To
		if callers {
			d, name = e.Caller, e.From
		}
		v := edgeView{Name: name, Loc: fmt.Sprintf("%s:%d", e.Path, e.Line), How: e.Resolution, Depth: e.Depth,
			FileURL: fileURL(g.Root, e.Path, e.Line, 0)}
		if d != nil && e.Resolution != relate.ResAmbiguous {
			v.Name = d.Name
			if d.Type == "function" || d.Type == "method" {
				v.GraphURL = graphURLDepth(g.Root, g.selector(d), g.Depth)
			}
		}
		switch {
		case e.Guess:
			v.How += " · guess"
			l.Guessed = append(l.Guessed, v)
		case len(l.Shown) < maxListed:
			l.Shown = append(l.Shown, v)
		default:
			l.More = append(l.More, v)
		}
	}
	return l
}

// placeName is how the page names a place of MultiResult.AlsoIn: a
// project root by its short name (names), a copy at another path by its
// project's short name and the path ("http/internal/chunked.go"), else
// as given.
func placeName(place string, names map[string]string) string {
	if n := names[place]; n != "" {
		return n
	}
	best := ""
	for root := range names {
		if strings.HasPrefix(place, strings.TrimSuffix(root, "/")+"/") && len(root) > len(best) {
			best = root
		}
	}
	if best == "" {
		return place
	}
	return names[best] + "/" + strings.TrimPrefix(place, strings.TrimSuffix(best, "/")+"/")
}

func (s *Server) pageGraph(w http.ResponseWriter, r *http.Request) {
	g, err := s.graph(r)
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	q := r.URL.Query()
	guesses, err := boolParam(q, "guesses") // the API's rule and message
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	toggle := url.Values{}
	for k, v := range q {
		toggle[k] = v
	}
	if guesses {
		toggle.Del("guesses")
	} else {
		toggle.Set("guesses", "1")
	}
	v := &graphView{G: g, SVG: drawGraph(g, guesses), Guesses: guesses, GuessURL: "/graph?" + toggle.Encode(),
		Callers: listEdges(g, g.Callers, true), Callees: listEdges(g, g.Callees, false)}
	for d := 1; d <= maxGraphDepth; d++ {
		v.Depths = append(v.Depths, d)
	}
	s.render(w, http.StatusOK, "graph", &page{Title: g.Query + " - call graph - coderag", Data: v})
}

func (s *Server) pageStatus(w http.ResponseWriter, r *http.Request) {
	ps, err := s.b.Projects(r.Context())
	if err != nil {
		s.pageError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "status", &page{Title: "index status - coderag", Projects: ps, Data: statusJSON{DB: s.b.StorePath(), Writes: s.opts.Token != "", Projects: ps}})
}
