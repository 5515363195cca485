/*
 * tbuf.h - the growing byte buffer of the unit tests' HTTP clients (header-only: include it after
 * <cmocka.h>).
 *
 * The client side keeps its bytes in libc memory: tests that make the server's vc_malloc fail
 * must not affect their clients. data is always NUL-terminated.
 */
#ifndef CALDERA_TESTS_TBUF_H
#define CALDERA_TESTS_TBUF_H

#include "vc_prelude.h"

struct tbuf {
	char *data;
	size_t len;
};

static inline void tbuf_init(struct tbuf *b)
{
	b->data = calloc(1, 1);
	assert_non_null(b->data);
	b->len = 0;
}

static inline void tbuf_add(struct tbuf *b, const char *data, size_t n)
{
	char *p = realloc(b->data, b->len + n + 1);

	assert_non_null(p);
	memcpy(p + b->len, data, n);
	b->len += n;
	p[b->len] = '\0';
	b->data = p;
}

static inline void tbuf_release(struct tbuf *b)
{
	free(b->data);
	b->data = NULL;
}

/* A libcurl CURLOPT_WRITEFUNCTION appending to the struct tbuf of CURLOPT_WRITEDATA. */
static inline size_t curl_sink(char *data, size_t size, size_t n, void *ctx)
{
	tbuf_add(ctx, data, size * n);
	return size * n;
}

#endif
