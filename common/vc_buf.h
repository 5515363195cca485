/*
 * vc_buf.h - a growable byte buffer with a hard size cap (curl's dynbuf).
 *
 * Every buffer that grows with untrusted input has a maximum: appending past it fails with
 * VC_E2BIG and leaves the buffer unchanged. The contents are always NUL-terminated, so
 * vc_buf_str() can be handed to string functions; `len` does not count the terminator.
 */
#ifndef VC_BUF_H
#define VC_BUF_H

#include "vc_prelude.h"

struct vc_buf {
	char *data;    /* NULL until the first append; private */
	size_t len;    /* bytes in use, read-only */
	size_t alloc;  /* private */
	size_t toobig; /* the cap: len must stay below it */
};

#define VC_BUF_DEFAULT_MAX ((size_t)64 << 20)

void vc_buf_init(struct vc_buf *b, size_t toobig);
/* Free the contents; the buffer can be reused after vc_buf_init. */
void vc_buf_release(struct vc_buf *b);
/* Empty the buffer but keep its memory. */
void vc_buf_reset(struct vc_buf *b);
int vc_buf_add(struct vc_buf *b, const void *mem, size_t len) VC_WARN_UNUSED;
/*
 * vc_buf_add() with its common case inlined: the bytes fit in the memory the buffer has. For
 * callers that append many short pieces (the JSON serialiser, vc_json_dump); same contract.
 */
static inline int vc_buf_add_inline(struct vc_buf *b, const void *mem, size_t len)
{
	/* alloc never exceeds toobig, so this also keeps len below the cap */
	if (b->data && len < b->alloc - b->len) {
		memcpy(b->data + b->len, mem, len);
		b->len += len;
		b->data[b->len] = '\0';
		return 0;
	}
	return vc_buf_add(b, mem, len);
}
int vc_buf_adds(struct vc_buf *b, const char *s) VC_WARN_UNUSED;
int vc_buf_addc(struct vc_buf *b, char c) VC_WARN_UNUSED;
int vc_buf_addf(struct vc_buf *b, const char *fmt, ...) VC_PRINTF(2, 3) VC_WARN_UNUSED;
int vc_buf_vaddf(struct vc_buf *b, const char *fmt, va_list ap) VC_PRINTF(2, 0) VC_WARN_UNUSED;
/* Drop the first n bytes (a consumed prefix). */
void vc_buf_consume(struct vc_buf *b, size_t n);
/* Shorten to n bytes (n <= len). */
void vc_buf_truncate(struct vc_buf *b, size_t n);
/* The contents as a C string; "" for an empty buffer, never NULL. Borrowed. */
const char *vc_buf_str(const struct vc_buf *b);
/*
 * Hand the contents to the caller (free with vc_free) and leave the buffer empty. Returns an
 * empty allocated string for an empty buffer, NULL only when that allocation fails.
 */
char *vc_buf_take(struct vc_buf *b) VC_WARN_UNUSED;

#endif /* VC_BUF_H */
