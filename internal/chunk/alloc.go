package chunk

/*
#include <stddef.h>
#include <malloc.h>
extern void ts_set_allocator(void *(*)(size_t), void *(*)(size_t, size_t), void *(*)(void *, size_t), void (*)(void *));
static void coderag_use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }
static void coderag_trim(void) { malloc_trim(0); }
*/
import "C"

// go-tree-sitter routes every allocation of the C library through Go
// callbacks (C -> Go -> C.malloc), which costs about a sixth of the parse
// time. Nothing here installs a custom allocator, so the library is put back
// on libc malloc/free, which is what those callbacks end up calling anyway;
// memory freed by the bindings with C.free stays consistent.
func init() { C.coderag_use_libc_allocator() }

// TrimCHeap gives the C heap's free memory back to the system
// (glibc's malloc_trim(0)): the pages of trees tree-sitter has freed,
// which its per-thread arenas otherwise keep for reuse. An index run
// calls it now and then, not after every parse (after every parse of 64
// KiB or more it cost 1.24x the CPU of a GOROOT/src index).
func TrimCHeap() { C.coderag_trim() }
