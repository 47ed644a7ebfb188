package config

import (
	"fmt"
	"strconv"
	"strings"
)

// The number of results of one query: 1 to MaxTopK, DefaultTopK when not
// given (TopK).
const (
	MaxTopK     = 30
	DefaultTopK = 5
)

// Limit is a numeric request argument's declared range and default. The
// CLI's flag and its help, the tools' JSON schemas and their bounds check,
// and the server's query parameters (API and page alike) all read it, so
// the rule is written once.
type Limit struct {
	// Name is the argument as the tools and the API spell it ("top_k").
	Name string
	// What says what the number counts, for help texts ("number of
	// results").
	What string
	// Min and Max bound the value (inclusive); Default is used when the
	// argument is not given.
	Min, Max, Default int
}

// TopK is the rule of a query's number of results.
var TopK = Limit{Name: "top_k", What: "number of results", Min: 1, Max: MaxTopK, Default: DefaultTopK}

// Usage is What with the range, for a flag whose help adds the default
// itself: "number of results, 1 to 30".
func (l Limit) Usage() string { return fmt.Sprintf("%s, %d to %d", l.What, l.Min, l.Max) }

// Help is Usage with the default: "number of results, 1 to 30 (default 5)".
func (l Limit) Help() string { return fmt.Sprintf("%s (default %d)", l.Usage(), l.Default) }

// Check returns nil when v is in range, else an error "must be 1 to 30
// (default 5), got 0" for the caller to prefix with the argument's name as
// its front end spells it (--top-k, top_k).
func (l Limit) Check(v int) error {
	if v < l.Min || v > l.Max {
		return fmt.Errorf("must be %d to %d (default %d), got %d", l.Min, l.Max, l.Default, v)
	}
	return nil
}

// Parse reads the argument from text (a query parameter): "" is Default;
// anything but an integer in range is an error "top_k must be 1 to 30
// (default 5), got "99"".
func (l Limit) Parse(text string) (int, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return l.Default, nil
	}
	v, err := strconv.Atoi(text)
	if err != nil || l.Check(v) != nil {
		return 0, fmt.Errorf("%s must be %d to %d (default %d), got %q", l.Name, l.Min, l.Max, l.Default, text)
	}
	return v, nil
}
