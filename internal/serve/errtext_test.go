package serve

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorTexts: an error the API answers is the message alone, one
// line: the sentinels that give it its status ("bad request", "no project
// named") are not appended, and an operation is not named twice ("index X:
// index X: ..."); the status codes stay those the sentinels map to.
func TestErrorTexts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	release, err := f.eng.Hold(f.list) // as a Remove does
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, tc := range []struct {
		method, path, body string
		code               int
		want               string
	}{
		{"GET", "/api/search", "", 400, "missing q (the query)"},
		{"GET", "/api/search?q=x&top_k=99", "", 400, `top_k must be 1 to 30 (default 5), got "99"`},
		{"GET", "/api/graph?project=list", "", 400, "missing name (a function or Class.method)"},
		{"GET", "/api/search?q=x&project=nope", "", 404, `"nope": not an indexed project`},
		{"POST", "/mcp", "{}", 400, "2 projects are indexed (httptest, list): name one with /mcp?project=NAME"},
		{"GET", "/api/file?project=list&path=list.go&offset=-1", "", 400, `offset must be a line number from 1 to 67108864, got "-1"`},
		{"GET", "/api/file?project=list&path=list.go&limit=0", "", 400, `limit must be a number of lines from 1 to 2000, got "0" (page with offset)`},
		{"GET", "/api/file?project=list&path=list.go&limit=5000", "", 400, `limit must be a number of lines from 1 to 2000, got "5000" (page with offset)`},
		{"GET", "/api/graph?project=list&name=List.insertValue&format=png", "", 400, `format must be json or svg, got "png"`},
		{"GET", "/api/file?project=list", "", 400, `missing path (a file of the project, relative to its root)`},
		{"GET", "/api/graph?project=list&name=List.insertValue&format=svg&guesses=yes", "", 400, `guesses must be 1 or 0 (true or false), got "yes"`},
		{"POST", "/api/index", `{"root":"` + filepath.Join(f.list, "list.go") + `"}`, 400, `root "` + filepath.Join(f.list, "list.go") + `": not a directory`},
		{"POST", "/api/index", `{}`, 400, "missing root (the project directory on the server)"},
		{"POST", "/api/index", `{"root":"rel"}`, 400, `root "rel" is relative: give the absolute directory on the server, or the name of an indexed project`},
		{"POST", "/api/remove", `{"root":"rel"}`, 404, `"rel": not an indexed project`},
		{"POST", "/api/index", `{"root":"list"}`, 409, "index " + f.list + ": the project is being removed"},
	} {
		code, body := f.do(t, tc.method, tc.path, "s3cret", tc.body)
		var got struct{ Error string }
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Errorf("%s %s: %d, not JSON: %s", tc.method, tc.path, code, body)
			continue
		}
		if code != tc.code || got.Error != tc.want {
			t.Errorf("%s %s %s: %d %q, want %d %q", tc.method, tc.path, tc.body, code, got.Error, tc.code, tc.want)
		}
		for _, leak := range []string{": bad request", ": no project named", "index " + f.list + ": index"} {
			if strings.Contains(got.Error, leak) {
				t.Errorf("%s %s: %q leaks %q", tc.method, tc.path, got.Error, leak)
			}
		}
	}
}

// TestPageTopK: the page reads top_k by the API's rule (config.TopK): a
// bad value is the API's 400 with its message, naming the page's own
// default (10, what the page shows, not the API's 5), not silently
// replaced by the default as on the previous main; a good one is used.
func TestPageTopK(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	want := fmt.Sprintf(`top_k must be 1 to 30 (default %d), got &#34;99&#34;`, pageTopK)
	for _, v := range []string{"99", "0", "x"} {
		code, body := f.do(t, "GET", "/?q=list&top_k="+v, "", "")
		if code != 400 || !strings.Contains(body, fmt.Sprintf("top_k must be 1 to 30 (default %d), got", pageTopK)) {
			t.Errorf("page top_k=%s: %d\n%.400s", v, code, body)
		}
		if v == "99" && !strings.Contains(body, want) {
			t.Errorf("page top_k=99: the message differs from the API's:\n%.2000s", body)
		}
	}
	if code, body := f.do(t, "GET", "/?q=insert+element&top_k=1", "", ""); code != 200 || strings.Count(body, `class="result"`) != 1 {
		t.Errorf("page top_k=1: %d, %d results", code, strings.Count(body, `class="result"`))
	}
}

// TestPageGraphGuesses: the graph page reads guesses= by the API's rule
// (boolParam): a bad value is a 400 page with the API's message, not
// taken as false; 1 draws the guessed calls and offers to hide them.
func TestPageGraphGuesses(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, v := range []string{"maybe", "yes", "2"} {
		code, body := f.do(t, "GET", "/graph?project=list&name=List.insertValue&guesses="+v, "", "")
		if want := fmt.Sprintf("guesses must be 1 or 0 (true or false), got &#34;%s&#34;", v); code != 400 || !strings.Contains(body, want) {
			t.Errorf("guesses=%s: %d, want 400 with %q\n%.600s", v, code, want, body)
		}
	}
	for _, v := range []string{"1", "0", ""} {
		code, body := f.do(t, "GET", "/graph?project=list&name=List.insertValue&guesses="+v, "", "")
		if code != 200 || !strings.Contains(body, "<svg") {
			t.Errorf("guesses=%q: %d\n%.600s", v, code, body)
		}
	}
}

// TestSearchRefusesBadExplain: /api/search's explain is a boolean: a
// value strconv.ParseBool does not take is a 400 with a one-line JSON
// error naming it (it was ignored, as false), as guesses= of /api/graph
// is; true gives each result its score breakdown, 0 and absent none.
func TestSearchRefusesBadExplain(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{})
	for _, v := range []string{"maybe", "yes", "2"} {
		code, body := f.do(t, "GET", "/api/search?project=list&q=insert&explain="+v, "", "")
		var got struct{ Error string }
		want := fmt.Sprintf("explain must be 1 or 0 (true or false), got %q", v)
		if err := json.Unmarshal([]byte(body), &got); err != nil || code != 400 || got.Error != want {
			t.Errorf("explain=%s: %d %s, want 400 {\"error\": %q}", v, code, body, want)
		}
	}
	for v, want := range map[string]bool{"true": true, "1": true, "0": false, "": false} {
		code, body := f.do(t, "GET", "/api/search?project=list&q=insert&explain="+v, "", "")
		if code != 200 || strings.Contains(body, `"explain"`) != want {
			t.Errorf("explain=%q: %d, breakdown given: %v, want %v", v, code, strings.Contains(body, `"explain"`), want)
		}
	}
}
