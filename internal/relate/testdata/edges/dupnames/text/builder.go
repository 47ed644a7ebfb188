package text

// Builder collects plain text.
type Builder struct{ out []string }

// Add appends text as it is.
func (b *Builder) Add(text string) {
	b.reset()
	b.out = append(b.out, text)
}

func (b *Builder) reset() { b.out = nil }
