package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// SDKServer returns the SDK server behind s, with every tool registered,
// for serving it over another transport (the streamable HTTP handler of
// `coderag serve`). The caller may remove tools from it (RemoveTools) and
// must call s.Close when done with it; Run is then not used.
func (s *Server) SDKServer() *sdk.Server { return s.sdk }
