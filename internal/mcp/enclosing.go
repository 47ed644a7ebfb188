package mcp

import "context"

// enclosing returns the indexed project that holds dir (dir itself, or the
// nearest indexed ancestor), as the CLI resolves --project: a client root
// inside an indexed project is that project, not a second, nested one.
// dir is returned unchanged when no project holds it or the index cannot
// be read.
func (s *Server) enclosing(ctx context.Context, dir string) string {
	return s.env.Engine.Enclosing(ctx, dir)
}
