package search

import (
	"encoding/json"

	"github.com/coderag/coderag/internal/walk"
)

// MarshalJSON writes the result with its path as walk.DisplayPath shows it
// (`"bad\xff.go"` for a name that is not UTF-8, or holds a control
// character), as every other surface shows paths: encoding/json would turn
// the invalid bytes into U+FFFD, a path that read, grep and /api/file cannot
// open. A valid path is written unchanged.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // no methods: marshals field by field
	p := plain(r)
	p.Path = walk.DisplayPath(r.Path)
	return json.Marshal(p)
}

// MarshalJSON writes the result as before Result had a MarshalJSON of its
// own (the embedded Result's would otherwise stand for the whole value and
// drop project, project_rank and also_in), with the path shown as
// Result.MarshalJSON shows it.
func (m MultiResult) MarshalJSON() ([]byte, error) {
	type plainResult Result
	type plain struct {
		Project string `json:"project"`
		plainResult
		ProjectRank int      `json:"project_rank"`
		AlsoIn      []string `json:"also_in,omitempty"`
	}
	p := plain{Project: m.Project, plainResult: plainResult(m.Result), ProjectRank: m.ProjectRank, AlsoIn: m.AlsoIn}
	p.Path = walk.DisplayPath(m.Path)
	return json.Marshal(p)
}
