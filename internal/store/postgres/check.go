package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/coderag/coderag/internal/store"
)

// Check is store.Check for a PostgreSQL target: the database is opened
// (creating the schema if needed) and probed, as the server checks its own
// pages. A failure of the server's disk (store.DiskProblem) goes into
// Unreadable, not Problems: it says nothing of the tables.
func Check(ctx context.Context, target string, _ bool) (*store.CheckReport, error) {
	rep := &store.CheckReport{Path: store.Redact(target)}
	st, err := Open(ctx, target)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if p := store.DiskProblem(err); p != "" {
			rep.Unreadable = fmt.Sprintf("%s (%v)", p, err)
			return rep, nil
		}
		rep.Foreign = errors.Is(err, store.ErrForeign)
		rep.Problems = append(rep.Problems, err.Error())
		return rep, nil
	}
	defer st.Close()
	rep.Schema = store.SchemaVersion
	ps, err := store.ProjectPaths(ctx, st.DB())
	if err != nil {
		rep.ProjectsError = err.Error()
	}
	rep.Projects = ps
	if err := st.Probe(ctx); err != nil {
		if p := store.DiskProblem(err); p != "" {
			rep.Unreadable = fmt.Sprintf("%s (%v)", p, err)
		} else {
			rep.Problems = append(rep.Problems, err.Error())
		}
	}
	if len(rep.Problems) == 0 && rep.Unreadable == "" && rep.ProjectsError == "" {
		vs, err := store.ReadVectors(ctx, st.DB())
		if err != nil {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("the embedders of each project's vectors (%v)", err))
		}
		rep.Vectors = vs
	}
	return rep, ctx.Err()
}

// ReadProjects is store.ReadProjects for a PostgreSQL target: the database
// is opened and its projects listed.
func ReadProjects(ctx context.Context, target string) ([]store.Project, error) {
	st, err := Open(ctx, target)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Projects(ctx)
}
