/*
 * vc_json_loadb(): json_loadb()'s trees, without its per-byte lexer.
 *
 * jansson's parser reads every byte through a callback, appends it to a growing buffer, checks it
 * again as UTF-8 and copies each string a second time when it unescapes it: about 80 MB/s here,
 * which made parsing half of a 100 KiB Job review's time in vc-webhook and a large part of every
 * watch event's cost in vc-controller. This parser walks the buffer once: clean runs of a string
 * are found with a byte table and handed to jansson's constructors in one copy.
 *
 * It only ever decides "this is the tree": whenever it meets anything it does not take in exactly
 * the way jansson would (a syntax error, a number out of range, bad UTF-8, \u0000 where it is not
 * allowed, a duplicate key under JSON_REJECT_DUPLICATES, nesting past jansson's depth, a flag it
 * does not know, running out of memory) it gives up and json_loadb() parses the same bytes, so
 * errors, their messages and positions are jansson's own. tests/fuzz/fuzz_json_load.c holds the
 * two to the same trees and the same verdicts.
 */
#include "vc_json.h"

#include <errno.h>
#include <math.h>

#include "vc_alloc.h"
#include "vc_strconv.h"

/* The flags the fast path knows; with any other, json_loadb() does the whole parse. */
#define FAST_FLAGS (JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL)

/* strtod needs a NUL-terminated copy of a real's text: on the stack up to this length. */
#define NUMBER_MAX 64

struct lp {
	const unsigned char *p, *end;
	size_t flags;
	size_t depth;
	char *scratch; /* unescaped string bytes (vc_malloc) */
	size_t scap;
};

/* 1 for the bytes a string may hold as they are: not '"', '\\', a control byte or non-ASCII. */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static json_t *parse_value(struct lp *lp);

static inline void skip_ws(struct lp *lp)
{
	const unsigned char *p = lp->p, *end = lp->end;

	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	lp->p = p;
}

static int hex4(const unsigned char *p, int32_t *out)
{
	int32_t v = 0;

	for (int i = 0; i < 4; i++) {
		unsigned char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v += c - '0';
		else if (c >= 'a' && c <= 'f')
			v += c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v += c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

/*
 * The string whose opening quote lp->p has just passed over: its bytes in *s and *n, either in the
 * input (no escapes) or in lp->scratch (valid until the next string). *has_nul says whether an
 * escape produced a NUL byte. Returns -1 for anything jansson would not take.
 */
static int parse_string(struct lp *lp, const char **s, size_t *n, bool *has_nul)
{
	const unsigned char *start = lp->p, *q = start, *end = lp->end;
	size_t w, cap;
	char *t;

	*has_nul = false;
	for (;;) {
		while (q < end && plain[*q])
			q++;
		if (q >= end)
			return -1;
		if (*q == '"') {
			*s = (const char *)start;
			*n = (size_t)(q - start);
			lp->p = q + 1;
			return 0;
		}
		if (*q == '\\')
			break;
		if (*q < 0x20)
			return -1;
		if (vc_utf8_decode((const char *)q, (size_t)(end - q), &w) < 0)
			return -1;
		q += w;
	}

	/* Escapes: the unescaped text is never longer than the source up to the closing quote. */
	cap = (size_t)(end - start);
	for (const unsigned char *r = q; r < end; r++) {
		if (*r == '\\')
			r++;
		else if (*r == '"') {
			cap = (size_t)(r - start);
			break;
		}
	}
	if (cap + 1 > lp->scap) {
		char *grown = vc_realloc(lp->scratch, cap + 1);

		if (!grown)
			return -1;
		lp->scratch = grown;
		lp->scap = cap + 1;
	}
	t = lp->scratch;
	memcpy(t, start, (size_t)(q - start));
	t += q - start;
	for (;;) {
		if (q >= end)
			return -1;
		if (*q == '"')
			break;
		if (*q == '\\') {
			int32_t v, v2;

			if (end - q < 2)
				return -1;
			switch (q[1]) {
			case '"':
			case '\\':
			case '/':
				*t++ = (char)q[1];
				break;
			case 'b':
				*t++ = '\b';
				break;
			case 'f':
				*t++ = '\f';
				break;
			case 'n':
				*t++ = '\n';
				break;
			case 'r':
				*t++ = '\r';
				break;
			case 't':
				*t++ = '\t';
				break;
			case 'u':
				if (end - q < 6 || hex4(q + 2, &v))
					return -1;
				q += 6;
				if (v >= 0xDC00 && v <= 0xDFFF)
					return -1;
				if (v >= 0xD800 && v <= 0xDBFF) {
					if (end - q < 6 || q[0] != '\\' || q[1] != 'u' ||
					    hex4(q + 2, &v2) || v2 < 0xDC00 || v2 > 0xDFFF)
						return -1;
					q += 6;
					v = ((v - 0xD800) << 10) + (v2 - 0xDC00) + 0x10000;
				}
				if (v == 0)
					*has_nul = true;
				t += vc_utf8_encode(v, t);
				continue;
			default:
				return -1;
			}
			q += 2;
			continue;
		}
		if (*q < 0x20)
			return -1;
		if (*q < 0x80) {
			*t++ = (char)*q++;
			continue;
		}
		if (vc_utf8_decode((const char *)q, (size_t)(end - q), &w) < 0)
			return -1;
		memcpy(t, q, w);
		t += w;
		q += w;
	}
	*s = lp->scratch;
	*n = (size_t)(t - lp->scratch);
	lp->p = q + 1;
	return 0;
}

static json_t *parse_number(struct lp *lp)
{
	const unsigned char *start = lp->p, *p = start, *end = lp->end;
	bool neg = false, big = false;
	uint64_t v = 0;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p >= end)
		return NULL;
	if (*p == '0') {
		p++;
		if (p < end && *p >= '0' && *p <= '9')
			return NULL;
	} else if (*p >= '1' && *p <= '9') {
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			/* Past 2^63 either way: a real's digits, or jansson's "too big integer". */
			if (big || v > (UINT64_C(1) << 63) / 10)
				big = true;
			else
				v = v * 10 + (unsigned)(*p - '0');
			if (v > (UINT64_C(1) << 63))
				big = true;
		}
	} else {
		return NULL;
	}
	if (p < end && (*p == '.' || *p == 'e' || *p == 'E')) {
		char stack[NUMBER_MAX + 1], *text = stack, *stop;
		size_t n;
		double d;
		bool ok;

		if (*p == '.') {
			p++;
			if (p >= end || *p < '0' || *p > '9')
				return NULL;
			while (p < end && *p >= '0' && *p <= '9')
				p++;
		}
		if (p < end && (*p == 'e' || *p == 'E')) {
			p++;
			if (p < end && (*p == '+' || *p == '-'))
				p++;
			if (p >= end || *p < '0' || *p > '9')
				return NULL;
			while (p < end && *p >= '0' && *p <= '9')
				p++;
		}
		n = (size_t)(p - start);
		if (n > NUMBER_MAX && !(text = vc_malloc(n + 1)))
			return NULL;
		memcpy(text, start, n);
		text[n] = '\0';
		errno = 0;
		d = strtod(text, &stop);
		/* jansson refuses an overflow ("real number overflow") and takes an underflow. */
		ok = stop == text + n && !((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE);
		if (text != stack)
			vc_free(text);
		if (!ok)
			return NULL;
		lp->p = p;
		return json_real(d);
	}
	if (big || (!neg && v > (uint64_t)INT64_MAX))
		return NULL;
	lp->p = p;
	if (neg)
		return json_integer(v == (UINT64_C(1) << 63) ? INT64_MIN : -(json_int_t)v);
	return json_integer((json_int_t)v);
}

/*
 * After a container's opening bracket or one of its members: whitespace, then the closing
 * bracket (1, consumed), or for a member a ',' and the whitespace after it (0). -1 otherwise:
 * also a ',' right after the opening bracket, or a closing one after a ','.
 */
static int after_member(struct lp *lp, unsigned char close, bool first)
{
	skip_ws(lp);
	if (lp->p >= lp->end)
		return -1;
	if (*lp->p == close) {
		lp->p++;
		return 1;
	}
	if (first)
		return 0;
	if (*lp->p != ',')
		return -1;
	lp->p++;
	skip_ws(lp);
	return 0;
}

static json_t *parse_object(struct lp *lp)
{
	json_t *obj = json_object();

	if (!obj)
		return NULL;
	lp->p++;
	for (int next = after_member(lp, '}', true); next != 1;) {
		const char *key;
		char *copy = NULL;
		size_t klen, size;
		bool nul;
		json_t *v;
		int rc;

		if (next < 0 || lp->p >= lp->end || *lp->p != '"')
			goto fail;
		lp->p++;
		if (parse_string(lp, &key, &klen, &nul) || nul)
			goto fail;
		if (key == lp->scratch) {
			/* The value's strings reuse the scratch: keep an unescaped key apart. */
			copy = vc_malloc(klen + 1);
			if (!copy)
				goto fail;
			memcpy(copy, key, klen);
			key = copy;
		}
		skip_ws(lp);
		if (lp->p >= lp->end || *lp->p != ':') {
			vc_free(copy);
			goto fail;
		}
		lp->p++;
		skip_ws(lp);
		v = parse_value(lp);
		if (!v) {
			vc_free(copy);
			goto fail;
		}
		size = json_object_size(obj);
		rc = json_object_setn_new_nocheck(obj, key, klen, v);
		vc_free(copy);
		if (rc)
			goto fail;
		/* The same size after a set: the key was there already, and the last one won. */
		if ((lp->flags & JSON_REJECT_DUPLICATES) && json_object_size(obj) == size)
			goto fail;
		next = after_member(lp, '}', false);
	}
	return obj;
fail:
	json_decref(obj);
	return NULL;
}

static json_t *parse_array(struct lp *lp)
{
	json_t *arr = json_array();

	if (!arr)
		return NULL;
	lp->p++;
	for (int next = after_member(lp, ']', true); next != 1;) {
		json_t *v = next < 0 ? NULL : parse_value(lp);

		if (!v || json_array_append_new(arr, v))
			goto fail;
		next = after_member(lp, ']', false);
	}
	return arr;
fail:
	json_decref(arr);
	return NULL;
}

static bool literal(struct lp *lp, const char *word, size_t n)
{
	if ((size_t)(lp->end - lp->p) < n || memcmp(lp->p, word, n) != 0)
		return false;
	lp->p += n;
	return true;
}

/* One value at lp->p (whitespace before it skipped); NULL when jansson must decide. */
static json_t *parse_value(struct lp *lp)
{
	json_t *v = NULL;
	bool token = true; /* a number or a literal */

	/* jansson counts every value, scalars too, against its depth limit. */
	if (++lp->depth > JSON_PARSER_MAX_DEPTH || lp->p >= lp->end)
		return NULL;
	switch (*lp->p) {
	case '{':
		v = parse_object(lp);
		token = false;
		break;
	case '[':
		v = parse_array(lp);
		token = false;
		break;
	case '"': {
		const char *s;
		size_t n;
		bool nul;

		lp->p++;
		if (parse_string(lp, &s, &n, &nul) || (nul && !(lp->flags & JSON_ALLOW_NUL)))
			return NULL;
		v = json_stringn_nocheck(s, n);
		token = false;
		break;
	}
	case 't':
		v = literal(lp, "true", 4) ? json_true() : NULL;
		break;
	case 'f':
		v = literal(lp, "false", 5) ? json_false() : NULL;
		break;
	case 'n':
		v = literal(lp, "null", 4) ? json_null() : NULL;
		break;
	default:
		if (*lp->p == '-' || (*lp->p >= '0' && *lp->p <= '9'))
			v = parse_number(lp);
		break;
	}
	/*
	 * jansson's quirk, kept: its lexer reads the byte after a number or a literal and puts it
	 * back; a NUL byte put back reads as "nothing buffered", so it is skipped ("[1\0]" is [1]).
	 */
	if (v && token && lp->p < lp->end && *lp->p == '\0')
		lp->p++;
	lp->depth--;
	return v;
}

json_t *vc_json_loadb_fast(const char *buf, size_t len, size_t flags)
{
	struct lp lp = { 0 };
	json_t *v = NULL;

	if (!buf || (flags & ~(size_t)FAST_FLAGS))
		return NULL;
	lp.p = (const unsigned char *)buf;
	lp.end = lp.p + len;
	lp.flags = flags;
	skip_ws(&lp);
	if (lp.p < lp.end && ((flags & JSON_DECODE_ANY) || *lp.p == '{' || *lp.p == '['))
		v = parse_value(&lp);
	skip_ws(&lp);
	if (v && lp.p != lp.end) {
		json_decref(v);
		v = NULL;
	}
	vc_free(lp.scratch);
	return v;
}

json_t *vc_json_loadb(const char *buf, size_t len, size_t flags, json_error_t *error)
{
	json_t *v = vc_json_loadb_fast(buf, len, flags);

	if (v) {
		if (error) {
			/* What json_loadb leaves in a successful call's error: its source and the
			 * bytes read. */
			static const char source[] = "<buffer>";

			error->line = -1;
			error->column = -1;
			error->position = (int)len;
			memcpy(error->source, source, sizeof(source));
			error->text[0] = '\0';
			/* Its last byte is json_error_code(): json_error_unknown. */
			error->text[JSON_ERROR_TEXT_LENGTH - 1] = '\0';
		}
		return v;
	}
	return json_loadb(buf, len, flags, error);
}
