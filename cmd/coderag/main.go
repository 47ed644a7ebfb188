//go:build cgo

// Command coderag finds code in a codebase: exact search (grep, glob, read)
// and a local, incremental, hybrid RAG index for vague questions.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/coderag/coderag/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first SIGINT or SIGTERM cancels ctx; a second one ends the process
	// at once (the default action), even if something ignored the first.
	context.AfterFunc(ctx, stop)
	code := cli.Main(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
