package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/rootrule"
)

// listRootsTimeout bounds the roots/list request a tool call may make.
const listRootsTimeout = 5 * time.Second

// rootsForbiddenFrom is the first protocol version in which a server may no
// longer send roots/list (SEP-2322); such clients pass paths in arguments.
const rootsForbiddenFrom = "2026-07-28"

// ErrNoProjectRoot: the server has no --root, the client sent no usable
// root, and the working directory is not a project (rootrule.Implicit).
var ErrNoProjectRoot = errors.New("no project root")

// implicitRootError returns why dir (absolute, symlink-resolved) cannot be
// the implicit project root (rootrule.Implicit: not /, not the home
// directory, a project marker in it or a parent below home), or nil.
func implicitRootError(dir string) error {
	if err := rootrule.Implicit(dir); err != nil {
		why := strings.TrimPrefix(err.Error(), rootrule.ErrNoMarker.Error()+": ")
		return fmt.Errorf("%w: the server was started in %s, which is not a project (%s); start the server with --root PATH, or use a client that sends MCP roots", ErrNoProjectRoot, dir, why)
	}
	return nil
}

// root returns the project root for a tool call: the directory rootDir
// chooses, or the indexed project enclosing it (enclosing.go).
func (s *Server) root(ctx context.Context, ss *sdk.ServerSession) (string, error) {
	dir, err := s.rootDir(ctx, ss)
	if err != nil {
		return "", err
	}
	return s.enclosing(ctx, dir), nil
}

// rootDir returns Config.Root, else the first usable file:// root of the
// client (asked once, and again after the client says its roots changed),
// else Config.WorkDir when it is a project (implicitRootError), else
// ErrNoProjectRoot: a server started from / or the home directory by a
// client that sends no roots must not serve the whole disk.
func (s *Server) rootDir(ctx context.Context, ss *sdk.ServerSession) (string, error) {
	if s.cfg.Root != "" {
		return s.cfg.Root, nil
	}
	s.rootMu.Lock()
	defer s.rootMu.Unlock()
	if !s.rootsAsked && ss != nil && clientHasRoots(ss) {
		s.rootsAsked = true
		s.clientRoot = ""
		cctx, cancel := context.WithTimeout(ctx, listRootsTimeout)
		res, err := ss.ListRoots(cctx, nil)
		cancel()
		switch {
		case err != nil:
			s.log.Warn("roots/list failed; using the working directory", "dir", s.cfg.WorkDir, "error", err)
		default:
			for _, r := range res.Roots {
				dir, err := fileURIPath(r.URI)
				if err == nil {
					dir, err = rootrule.Resolve(dir)
				}
				if err != nil {
					s.log.Warn("unusable client root", "uri", r.URI, "error", err)
					continue
				}
				s.clientRoot = dir
				s.log.Info("project root from client roots", "root", dir)
				break
			}
		}
	}
	if s.clientRoot != "" {
		return s.clientRoot, nil
	}
	if err := implicitRootError(s.cfg.WorkDir); err != nil {
		return "", err
	}
	return s.cfg.WorkDir, nil
}

// rootsChanged makes the next tool call ask the client for its roots again.
func (s *Server) rootsChanged() {
	s.rootMu.Lock()
	s.rootsAsked = false
	s.rootMu.Unlock()
}

// clientHasRoots reports whether the session's client declared the roots
// capability on a protocol version that still allows roots/list.
func clientHasRoots(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.ProtocolVersion >= rootsForbiddenFrom {
		return false
	}
	return p.Capabilities.RootsV2 != nil || p.Capabilities.Roots.ListChanged
}

// fileURIPath returns the local path of a file:// URI.
func fileURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("root %q: %w", uri, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("root %q: not a file:// URI", uri)
	}
	p := u.Path
	if filepath.Separator == '\\' { // file:///C:/x -> C:\x
		p = filepath.FromSlash(strings.TrimPrefix(p, "/"))
	}
	if p == "" {
		return "", fmt.Errorf("root %q: empty path", uri)
	}
	return p, nil
}
