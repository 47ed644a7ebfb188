// Command serveload is the load client of bench/serve_load.sh: it runs
// -clients clients, each sending -n searches one after the other to the
// JSON API of a running `coderag serve` (GET /api/search over every
// project), and prints one line of JSON: the searches, the errors (any
// answer but 200), and the p50, p99 and maximum latency in milliseconds.
//
// usage: go run ./bench/serveload -url http://127.0.0.1:7799 [-clients 8] [-n 200] [-token T]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"sync"
	"time"
)

// queries are the clients' questions about GOROOT/src.
var queries = []string{
	"parse the HTTP request line", "how are cookies parsed and serialized", "Transport RoundTrip",
	"garbage collector mark phase", "goroutine scheduler steal work", "map bucket growth",
	"json decoder unknown field", "tls handshake client hello", "filepath walk directory",
	"strconv parse float", "context cancel propagation", "sync mutex starvation mode",
}

func main() {
	base := flag.String("url", "http://127.0.0.1:7799", "server URL")
	clients := flag.Int("clients", 8, "clients searching at once")
	n := flag.Int("n", 200, "searches per client")
	token := flag.String("token", "", "bearer token (a server with --private)")
	flag.Parse()
	var (
		mu   sync.Mutex
		lat  []time.Duration
		errs int
		wg   sync.WaitGroup
	)
	hc := &http.Client{Timeout: 5 * time.Minute}
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range *n {
				q := queries[(c+i)%len(queries)]
				req, err := http.NewRequest("GET", *base+"/api/search?top_k=10&q="+url.QueryEscape(q), nil)
				if err != nil {
					panic(err)
				}
				if *token != "" {
					req.Header.Set("Authorization", "Bearer "+*token)
				}
				start := time.Now()
				res, err := hc.Do(req)
				ok := err == nil && res.StatusCode == 200
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				d := time.Since(start)
				mu.Lock()
				lat = append(lat, d)
				if !ok {
					errs++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	out := map[string]any{"searches": len(lat), "errors": errs, "p50_ms": pct(0.50), "p99_ms": pct(0.99), "max_ms": pct(1)}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
