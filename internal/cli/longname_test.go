package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// longSigPy is a Python method whose signature (the result's name) runs
// past 600 characters, as FastAPI's include_router does.
const longSigPy = `from typing import Annotated, Optional, Sequence


class FastAPI:
    """The FastAPI application."""

    def include_router(
        self,
        router: Annotated["APIRouter", Doc("The APIRouter to include, with all its path operations and their dependencies.")],
        *,
        prefix: Annotated[str, Doc("An optional path prefix for the router, applied to every route it holds.")] = "",
        tags: Annotated[Optional[list], Doc("A list of tags to be applied to all the path operations in this router.")] = None,
        dependencies: Annotated[Optional[Sequence], Doc("A list of dependencies to be applied to all the path operations.")] = None,
        responses: Annotated[Optional[dict], Doc("Additional responses to be shown in OpenAPI.")] = None,
    ) -> None:
        """Include an APIRouter in the same app."""
        self.router.include_router(router, prefix=prefix, tags=tags)
`

// TestLongSignatureShortened: a result whose name is a 600-character
// signature prints it cut to its name and first parameter with "…)" in
// the text formats (one project, several, --tool-format: it filled the
// result line), and whole in --json.
func TestLongSignatureShortened(t *testing.T) {
	setHome(t)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "app.py"), longSigPy)
	if code, out, errs := run(t, "index", "--quiet", root); code != 0 {
		t.Fatalf("index: %d %s %s", code, out, errs)
	}
	const short = "FastAPI.include_router(self, …)"
	for _, args := range [][]string{
		{"search", "--project", root, "include router"},
		{"search", "--all", "include router"},
		{"search", "--tool-format", "--project", root, "include router"},
	} {
		code, out, errs := run(t, args...)
		if code != 0 || !strings.Contains(out, short) {
			t.Errorf("%v: exit %d, no %q in\n%s%s", args, code, short, out, errs)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "include_router(self") && len(l) > 250 {
				t.Errorf("%v: a line of %d bytes: %s", args, len(l), l)
			}
		}
	}
	_, out, _ := run(t, "search", "--json", "--project", root, "include router")
	var js struct {
		Results []struct {
			Name string `json:"name"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &js); err != nil || len(js.Results) == 0 {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if n := js.Results[0].Name; len(n) < 400 || !strings.Contains(n, "prefix: Annotated[str") {
		t.Errorf("--json name %q: want the whole signature", n)
	}
	// a stale result keeps its mark after the cut name: too many changed
	// files to refresh before answering
	for i := 0; i <= freshMaxFiles; i++ {
		writeFile(t, filepath.Join(root, fmt.Sprintf("gen%02d.py", i)), fmt.Sprintf("def gen%d():\n    pass\n", i))
	}
	writeFile(t, filepath.Join(root, "app.py"), longSigPy+"\n# edited\n")
	_, out, _ = run(t, "search", "--project", root, "include router")
	if !strings.Contains(out, short+"  [stale: file changed since the last index") {
		t.Errorf("stale result: want %q and its mark in\n%s", short, out)
	}
}
