package postgres

import (
	"context"
	"errors"

	"github.com/coderag/coderag/internal/store"
)

// Check is store.Check for a PostgreSQL target: the database is opened
// (creating the schema if needed) and probed, as the server checks its own
// pages.
func Check(ctx context.Context, target string, _ bool) (*store.CheckReport, error) {
	rep := &store.CheckReport{Path: store.Redact(target)}
	st, err := Open(ctx, target)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Foreign = errors.Is(err, store.ErrForeign)
		rep.Problems = append(rep.Problems, err.Error())
		return rep, nil
	}
	defer st.Close()
	rep.Schema = store.SchemaVersion
	if ps, err := store.ProjectPaths(ctx, st.DB()); err == nil {
		rep.Projects = ps
	}
	if err := st.Probe(ctx); err != nil {
		rep.Problems = append(rep.Problems, err.Error())
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
