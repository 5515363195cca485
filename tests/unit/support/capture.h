/*
 * capture.h - what a printer writes to a FILE, as a string (header-only: include it after
 * <cmocka.h>). cap_open gives the stream to pass, cap_text flushes it and returns what was
 * written so far, cap_close closes it and frees the text.
 */
#ifndef CALDERA_TESTS_CAPTURE_H
#define CALDERA_TESTS_CAPTURE_H

#include "vc_prelude.h"

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static inline FILE *cap_open(struct capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

static inline const char *cap_text(struct capture *c)
{
	fflush(c->f);
	return c->buf;
}

static inline void cap_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
}

#endif /* CALDERA_TESTS_CAPTURE_H */
