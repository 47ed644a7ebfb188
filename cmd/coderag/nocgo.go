//go:build !cgo

// Command coderag needs cgo: its tree-sitter grammars are C. Without cgo
// (CGO_ENABLED=0, or no C compiler found) main.go is left out and this
// file is the whole command, so `go build` stops at one line naming the
// fix, "undefined: coderag_needs_cgo__install_a_C_compiler", instead of
// one "build constraints exclude all Go files" line per grammar.
package main

func main() {
	coderag_needs_cgo__install_a_C_compiler()
}
