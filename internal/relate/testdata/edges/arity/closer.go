package arity

// Two types whose methods share a name and differ in their parameters.
type file struct{}

func (f *file) Close() error { return nil }

type conn struct{}

func (c *conn) Close(force bool) error { return nil }

func shutdown(x interface{ Close() error }) error {
	return x.Close()
}
