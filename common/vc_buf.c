#include "vc_buf.h"

#include "vc_alloc.h"
#include "vc_err.h"

void vc_buf_init(struct vc_buf *b, size_t toobig)
{
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	b->toobig = toobig ? toobig : VC_BUF_DEFAULT_MAX;
}

void vc_buf_release(struct vc_buf *b)
{
	vc_free(b->data);
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
}

void vc_buf_reset(struct vc_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static int buf_reserve(struct vc_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra >= b->toobig || b->len >= b->toobig - extra)
		return VC_E2BIG;
	need = b->len + extra + 1;
	if (need <= b->alloc)
		return 0;
	cap = b->alloc ? b->alloc : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if (cap > b->toobig)
		cap = b->toobig;
	if (cap < need)
		cap = need;
	p = vc_realloc(b->data, cap);
	if (!p)
		return VC_ENOMEM;
	b->data = p;
	b->alloc = cap;
	return 0;
}

int vc_buf_add(struct vc_buf *b, const void *mem, size_t len)
{
	int rc = buf_reserve(b, len);

	if (rc)
		return rc;
	if (len)
		memcpy(b->data + b->len, mem, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int vc_buf_adds(struct vc_buf *b, const char *s)
{
	return vc_buf_add(b, s, strlen(s));
}

int vc_buf_addc(struct vc_buf *b, char c)
{
	return vc_buf_add(b, &c, 1);
}

int vc_buf_vaddf(struct vc_buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	int n, rc;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return VC_EINVAL;
	rc = buf_reserve(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int vc_buf_addf(struct vc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vc_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void vc_buf_consume(struct vc_buf *b, size_t n)
{
	if (n >= b->len) {
		vc_buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void vc_buf_truncate(struct vc_buf *b, size_t n)
{
	if (n < b->len) {
		b->len = n;
		b->data[n] = '\0';
	}
}

const char *vc_buf_str(const struct vc_buf *b)
{
	return b->data ? b->data : "";
}

char *vc_buf_take(struct vc_buf *b)
{
	char *p = b->data;

	if (!p)
		return vc_strdup("");
	b->data = NULL;
	b->len = 0;
	b->alloc = 0;
	return p;
}
