package cli

import (
	"bufio"
	"fmt"
	"strings"
)

// runREPL is the interactive loop: /index [path], /search q, /graph name,
// /help, /exit; free text goes to search.
func runREPL(e *env, _ []string) error {
	project := "."
	fmt.Fprintf(e.stdout, "coderag %s — /help for commands, /exit to quit\n", Version)
	sc := bufio.NewScanner(e.stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for {
		fmt.Fprint(e.stdout, "coderag> ")
		if !sc.Scan() {
			fmt.Fprintln(e.stdout)
			return sc.Err()
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		cmd, arg, _ := strings.Cut(line, " ")
		arg = strings.TrimSpace(arg)
		var err error
		switch cmd {
		case "/exit", "/quit":
			return nil
		case "/help":
			fmt.Fprintln(e.stdout, "/index [path]  index a directory and make it the session's project\n/search QUERY  hybrid search\n/graph NAME    relations of a class or Class.method\n/exit          quit\nfree text      search")
		case "/index":
			if arg != "" {
				project = arg
			}
			err = runIndex(e, []string{"--quiet", project})
		case "/search":
			err = runSearch(e, []string{"--project", project, "--", arg})
		default:
			if strings.HasPrefix(cmd, "/") {
				fmt.Fprintf(e.stdout, "unknown command %s (/help)\n", cmd)
				continue
			}
			err = runSearch(e, []string{"--project", project, "--", line})
		}
		if err != nil {
			fmt.Fprintf(e.stdout, "error: %s\n", oneLine(err.Error()))
		}
	}
}
