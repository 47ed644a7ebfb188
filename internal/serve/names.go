package serve

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/coderag/coderag/internal/search"
)

// suffixNames returns the display name of each root: its shortest path
// suffix (whole directory names) that no other root ends with, so two
// projects named lib read "a/lib" and "b/lib" while a lone one reads "lib".
// A root that is a suffix of another ("/lib" and "/x/lib") keeps its whole
// path.
func suffixNames(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		parts := strings.Split(filepath.ToSlash(filepath.Clean(r)), "/")
		n := 1
		for ; n < len(parts); n++ {
			suffix := strings.Join(parts[len(parts)-n:], "/")
			clash := false
			for j, o := range roots {
				if j != i && hasPathSuffix(o, suffix) {
					clash = true
					break
				}
			}
			if !clash {
				break
			}
		}
		if n >= len(parts) {
			out[i] = r
		} else {
			out[i] = filepath.FromSlash(strings.Join(parts[len(parts)-n:], "/"))
		}
	}
	return out
}

// hasPathSuffix reports whether root ends with the whole directory names
// of suffix ("/src/a/lib" ends with "a/lib" and "lib", not "b").
func hasPathSuffix(root, suffix string) bool {
	root, suffix = filepath.ToSlash(filepath.Clean(root)), strings.Trim(filepath.ToSlash(filepath.Clean(suffix)), "/")
	return suffix != "" && suffix != "." && (root == suffix || strings.HasSuffix(root, "/"+suffix))
}

// nameProjects sets each project's Name to its suffixNames name among ps.
func nameProjects(ps []ProjectStatus) {
	roots := make([]string, len(ps))
	for i, p := range ps {
		roots[i] = p.Project
	}
	for i, n := range suffixNames(roots) {
		ps[i].Name = n
	}
}

// cliAdvice matches advice to run a command of the CLI ("; run `coderag
// index /srv/x`"), which a person on the page cannot follow.
var cliAdvice = regexp.MustCompile("[;:,]?\\s*(run|use|try)\\s+`coderag [^`]*`[^;]*")

// operatorAdvice rewrites the exact tools' advice that only the one who
// runs coderag can follow (an environment variable, a flag) or that names
// an MCP tool, for the page and the API, whose users can do neither.
var operatorAdvice = strings.NewReplacer(
	" (set CODERAG_ALLOW_SECRETS=1 or pass --allow-secrets to read it)", " (this server withholds files with secret-looking names)",
	" (set CODERAG_ALLOW_SECRETS=1 or pass --allow-secrets to search it)", " (this server withholds files with secret-looking names)",
	" (use glob_files to list it)", " (a directory: open one of its files)",
)

// webText is a note or an error as the page says it: no advice to run a
// command of the CLI (the status page indexes, the search box searches).
func webText(s string) string {
	switch {
	case s == search.NoWordsNote:
		return "the query has no searchable words (only punctuation or symbols): search with words, or a name from the code"
	case strings.HasPrefix(s, "index incomplete:"):
		s = cliAdvice.ReplaceAllString(s, "")
		return s + "; results cover only the files indexed so far (the status page shows the index's state)"
	case strings.HasPrefix(s, search.MixedLead):
		s = cliAdvice.ReplaceAllString(s, "")
		return s + "; indexing the project again embeds them (the status page shows the index's state)"
	}
	return strings.TrimSpace(cliAdvice.ReplaceAllString(operatorAdvice.Replace(s), ""))
}
