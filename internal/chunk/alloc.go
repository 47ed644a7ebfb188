package chunk

/*
#include <stddef.h>
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
static void coderag_use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
*/
import "C"

// go-tree-sitter routes every allocation of the C library through Go
// callbacks (C -> Go -> C.malloc), which costs about a sixth of the parse
// time. Nothing here installs a custom allocator, so the library is put back
// on libc malloc/free, which is what those callbacks end up calling anyway;
// memory freed by the bindings with C.free stays consistent.
func init() { C.coderag_use_libc_allocator() }
