/* Growable byte buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buffer.h"

#define MIN_CAP 16

typedef struct buffer {
    char *data;
    size_t len;
    size_t cap;
} buffer_t;

enum grow_policy { GROW_DOUBLE, GROW_LINEAR };

static int (*hook)(buffer_t *) = NULL;

/* Allocates an empty buffer. */
buffer_t *buffer_new(size_t cap)
{
    buffer_t *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    b->data = calloc(cap < MIN_CAP ? MIN_CAP : cap, 1);
    b->cap = cap;
    return b;
}

int buffer_append(buffer_t *b, const char *s, size_t n)
{
    if (b->len + n > b->cap && buffer_grow(b, n) != 0)
        return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static void buffer_free(buffer_t *b) { free(b->data); free(b); }
