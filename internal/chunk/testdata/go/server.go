// Copyright 2024 The Example Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package server serves the example API.
package server

import (
	"context"
	"fmt"
	"net"

	"github.com/example/log"
	yaml "gopkg.in/yaml.v3"
)

// DefaultPort is the port used when none is configured.
const DefaultPort = 8080

var (
	errClosed  = fmt.Errorf("server closed")
	errTimeout = fmt.Errorf("timeout")
)

// Server accepts connections and dispatches them to a Handler.
type Server struct {
	Addr    string
	Handler Handler
	conns   map[net.Conn]struct{}
}

// Handler responds to one connection.
type Handler interface {
	Handle(ctx context.Context, c net.Conn) error
}

// Serve accepts connections on l until it is closed.
func (s *Server) Serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		go s.handle(c)
	}
}

func (s *Server) handle(c net.Conn) {
	defer c.Close()
	if err := s.Handler.Handle(context.Background(), c); err != nil {
		log.Printf("handle: %v", err)
	}
}

// ParseConfig decodes a YAML configuration.
func ParseConfig(data []byte,
	strict bool) (*Server, error) {
	var s Server
	err := yaml.Unmarshal(data, &s)
	return &s, err
}

func (l *List[T]) Push(v T) { l.items = append(l.items, v) }
