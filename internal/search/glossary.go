package search

// GlossaryExpand maps a term (a Chinese word or an English sub-word) to
// extra English terms. It is filled by the bilingual glossary.
var GlossaryExpand func(term string) []string
