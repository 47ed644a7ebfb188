package cli

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coderag/coderag/internal/agent"
	"github.com/coderag/coderag/internal/embed"
	"github.com/coderag/coderag/internal/engine"
	"github.com/coderag/coderag/internal/mcp"
	"github.com/coderag/coderag/internal/store"
	"github.com/coderag/coderag/internal/toolset"
)

// TestToolContractsAgree: for every tool of the registry, the agent's
// model and an MCP client see the same name, description and argument
// schema, and the agent gets exactly the registry's query tools.
func TestToolContractsAgree(t *testing.T) {
	setHome(t)
	ctx := context.Background()
	root := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng, err := engine.New(engine.Config{Store: st, Embedders: engine.FromOptions(embed.Options{Provider: "local"}, nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	srv, err := mcp.NewServer(mcp.Config{Root: root, Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	// serve one session over pipes, as the stdio server does
	cin, sin := io.Pipe()
	sout, cout := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, cin, cout) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&sdk.IOTransport{Reader: sout, Writer: sin}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	<-done

	mcpTools := map[string]*sdk.Tool{}
	for _, tl := range listed.Tools {
		mcpTools[tl.Name] = tl
	}
	decode := func(raw []byte) any {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("schema %s: %v", raw, err)
		}
		return v
	}
	all := agent.FromRegistry(&toolset.Env{}, toolset.Fixed(root), toolset.All()...)
	if len(all) != len(mcpTools) || len(all) != 7 {
		t.Fatalf("%d registry tools, %d MCP tools", len(all), len(mcpTools))
	}
	for _, at := range all {
		mt := mcpTools[at.Name()]
		if mt == nil {
			t.Errorf("%s: not served over MCP", at.Name())
			continue
		}
		if mt.Description != at.Description() {
			t.Errorf("%s: descriptions differ:\nMCP:   %s\nagent: %s", at.Name(), mt.Description, at.Description())
		}
		mraw, err := json.Marshal(mt.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if m, a := decode(mraw), decode(at.Schema()); !reflect.DeepEqual(m, a) {
			t.Errorf("%s: schemas differ:\nMCP:   %s\nagent: %s", at.Name(), mraw, at.Schema())
		}
	}
	var names []string
	for _, at := range agent.ProjectTools(root, nil) {
		names = append(names, at.Name())
		if !at.ReadOnly() {
			t.Errorf("agent tool %s is not read-only", at.Name())
		}
	}
	if want := []string{"glob_files", "grep_code", "read_file", "search_code", "code_graph"}; !reflect.DeepEqual(names, want) {
		t.Errorf("agent tools %v, want %v", names, want)
	}
}
