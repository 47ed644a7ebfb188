package serve

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// trickle sends one byte of c's body every interval until c is closed
// or stop is closed: a client that sends its body slowly.
func trickle(c net.Conn, interval time.Duration, stop <-chan struct{}, wg *sync.WaitGroup) {
	defer wg.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if _, err := io.WriteString(c, " "); err != nil {
				return
			}
		}
	}
}

// slowBody opens a connection from ip to srv and sends the headers of a
// POST to path with a body of contentType announcing 100000 bytes, and
// its first byte.
func slowBody(t *testing.T, ip string, srv string, path, contentType, token string) net.Conn {
	t.Helper()
	c, err := dialFrom(ip).Dial("tcp", srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n", path, contentType)
	if token != "" {
		req += "Authorization: Bearer " + token + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n{"); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSlowBodiesDoNotLockOut is the load test of issue 25 item 5, on
// loopback and bounded in count and time: 40 connections from each of
// 127.0.0.2 and 127.0.0.3 trickle request bodies (POST /mcp, and with
// PrivateReads POST /login, which needs no token), with the server's
// default limits (64 requests, 32 per client); searches from 127.0.0.1
// must then all be served, none answered 503. Before bodies were read
// ahead of taking a slot, the 64 slow requests held every slot.
func TestSlowBodiesDoNotLockOut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		path    string
		ctype   string // of the slow bodies
		token   string // of the searches
		slowTok string // of the slow requests
	}{
		{"mcp", Options{Token: "s3cret"}, "/mcp?project=list", "application/json", "", ""},
		{"mcp-with-token", Options{Token: "s3cret"}, "/mcp?project=list", "application/json", "", "s3cret"},
		{"private-login", Options{Token: "s3cret", PrivateReads: true}, "/login", "application/x-www-form-urlencoded", "s3cret", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.opts)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
				for range 40 {
					c := slowBody(t, ip, f.srv.Listener.Addr().String(), tc.path, tc.ctype, tc.slowTok)
					wg.Add(1)
					go trickle(c, 200*time.Millisecond, stop, &wg)
				}
			}
			defer wg.Wait()
			defer close(stop)
			// let the server read the slow requests' headers: a settling
			// pause, not a measure
			time.Sleep(300 * time.Millisecond)
			c := clientFrom("127.0.0.1")
			codes := map[int]int{}
			const probes = 40
			for range probes {
				req, err := http.NewRequest("GET", f.srv.URL+"/api/search?q=insert+element&project=list&top_k=3", nil)
				if err != nil {
					t.Fatal(err)
				}
				if tc.token != "" {
					req.Header.Set("Authorization", "Bearer "+tc.token)
				}
				res, err := c.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				codes[res.StatusCode]++
				time.Sleep(25 * time.Millisecond) // probes spread over a second
			}
			if codes[http.StatusServiceUnavailable] > 0 || codes[200] != probes {
				t.Errorf("searches from 127.0.0.1 while 80 slow bodies come in: %v of %d probes", codes, probes)
			}
		})
	}
}
