/*
 * vc_json_dump.c - vc_json_dump(): jansson's compact serialisation, byte for byte, without its
 * per-character costs. jansson decodes every character of a string through utf8_iterate, keeps
 * its loop check in a hash table keyed by each container's address printed with "%p", and
 * formats every integer with snprintf; on a Job of 100 KiB that made serialising the admission
 * patch 29% of a review. Here a string is scanned with a 256-entry table and its clean runs are
 * copied whole, only multi-byte UTF-8 is decoded (to refuse what jansson refuses), integers are
 * formatted by hand and the loop check walks a short list on the stack.
 *
 * The output rules are jansson 2.14's src/dump.c (Debian's libjansson 2.14); the unit tests and
 * tests/fuzz/fuzz_json_dump.c hold the two side by side.
 */
#include "vc_json.h"

#include "vc_alloc.h"
#include "vc_strconv.h"

/* What a string byte needs: nothing (0), an escape (E), a check of the UTF-8 it starts (U). */
enum {
	E = 1,
	U = 2
};

static const unsigned char byte_class[256] = {
	/* 0x00 */ E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E,
	/* 0x10 */ E, E, E, E, E, E, E, E, E, E, E, E, E, E, E, E,
	/* 0x20 */ 0, 0, E, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x30 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, E, 0, 0, 0,
	/* 0x60 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x70 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 0x80 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0x90 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0xa0 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0xb0 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0xc0 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0xd0 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0xe0 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
	/* 0xf0 */ U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U,
};

/* One member of an object being written with JSON_SORT_KEYS. */
struct sort_key {
	const char *key;
	size_t len;
	const json_t *value;
};

struct dumper {
	struct vc_buf *out;
	size_t flags;
	/* The members of the objects being sorted, innermost last (a stack shared by the levels).
	 */
	struct sort_key *keys;
	size_t nkeys, cap;
};

/*
 * The containers on the path from the root that could be met again below: the root, and those
 * with more than one reference. A container inside a cycle is referenced by its parent on the
 * path and again from inside the cycle, so a container with one reference can only be met
 * twice if it is the root (reached through a reference the caller borrowed from the cycle).
 */
struct parent {
	const json_t *v;
	const struct parent *up;
};

static int put(struct dumper *d, const void *s, size_t n)
{
	return vc_buf_add_inline(d->out, s, n);
}

static int put_escape(struct dumper *d, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	switch (c) {
	case '"':
		return put(d, "\\\"", 2);
	case '\\':
		return put(d, "\\\\", 2);
	case '\b':
		return put(d, "\\b", 2);
	case '\f':
		return put(d, "\\f", 2);
	case '\n':
		return put(d, "\\n", 2);
	case '\r':
		return put(d, "\\r", 2);
	case '\t':
		return put(d, "\\t", 2);
	default:
		return put(d, u, sizeof(u));
	}
}

/*
 * Write s[0..len) as a JSON string. VC_EINVAL for invalid UTF-8, after writing what jansson's
 * dump_string has written by then: the opening quote and the text up to the last escape (the
 * clean run before the bad byte is not flushed). Object keys depend on that: jansson ignores
 * the failure of a key and carries on.
 */
static int dump_string(struct dumper *d, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;
	size_t width;
	int rc;

	rc = put(d, "\"", 1);
	if (rc)
		return rc;
	while (p < end) {
		unsigned char cls = byte_class[*p];

		if (!cls) {
			p++;
			continue;
		}
		if (cls == U) {
			if (vc_utf8_decode((const char *)p, (size_t)(end - p), &width) < 0)
				return VC_EINVAL;
			p += width;
			continue;
		}
		if (p > run) {
			rc = put(d, run, (size_t)(p - run));
			if (rc)
				return rc;
		}
		rc = put_escape(d, *p);
		if (rc)
			return rc;
		run = ++p;
	}
	if (p > run) {
		rc = put(d, run, (size_t)(p - run));
		if (rc)
			return rc;
	}
	return put(d, "\"", 1);
}

/* "%lld" by hand: snprintf's format parsing was most of an integer's cost. */
static int dump_integer(struct dumper *d, json_int_t i)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i : (unsigned long long)i;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (i < 0)
		*--p = '-';
	return put(d, p, (size_t)(tmp + sizeof(tmp) - p));
}

/*
 * Reals are rare in Kubernetes objects; jansson's own formatting (its jsonp_dtostr: "%.17g",
 * the locale's decimal point undone, ".0" added, the exponent trimmed) is used as it is. It
 * fails only when its loop check cannot allocate: jansson makes no NaN or infinite real.
 */
static int dump_real(struct dumper *d, const json_t *v)
{
	char tmp[128];
	size_t n = json_dumpb(v, tmp, sizeof(tmp), JSON_ENCODE_ANY);

	if (!n)
		return VC_ENOMEM;
	if (n > sizeof(tmp))
		return VC_EINVAL;
	return put(d, tmp, n);
}

static int compare_keys(const void *a, const void *b)
{
	const struct sort_key *ka = a, *kb = b;
	int res = memcmp(ka->key, kb->key, ka->len < kb->len ? ka->len : kb->len);

	if (res)
		return res;
	return ka->len < kb->len ? -1 : ka->len > kb->len;
}

static int dump_value(struct dumper *d, const json_t *v, const struct parent *parents);

/* One member: the key (whose failure jansson ignores), ':' and the value. */
static int dump_member(struct dumper *d, const char *key, size_t len, const json_t *value,
		       const struct parent *self)
{
	int rc = dump_string(d, key, len);

	if (rc && rc != VC_EINVAL)
		return rc;
	rc = put(d, ":", 1);
	if (rc)
		return rc;
	return dump_value(d, value, self);
}

static int dump_object_sorted(struct dumper *d, const json_t *v, const struct parent *self)
{
	size_t base = d->nkeys, n = json_object_size(v), i = 0;
	void *it;
	int rc = 0;

	if (!n)
		return 0;
	if (n > d->cap - base) {
		size_t cap = d->cap ? d->cap : 64;
		struct sort_key *keys;

		while (cap - base < n)
			cap *= 2;
		keys = vc_realloc(d->keys, cap * sizeof(*keys));
		if (!keys)
			return VC_ENOMEM;
		d->keys = keys;
		d->cap = cap;
	}
	for (it = json_object_iter((json_t *)v); it && i < n;
	     it = json_object_iter_next((json_t *)v, it), i++) {
		d->keys[base + i].key = json_object_iter_key(it);
		d->keys[base + i].len = json_object_iter_key_len(it);
		d->keys[base + i].value = json_object_iter_value(it);
	}
	n = i;
	d->nkeys = base + n;
	if (n > 1)
		qsort(d->keys + base, n, sizeof(*d->keys), compare_keys);
	/* d->keys may move while a member's value is written: index it afresh each time. */
	for (i = 0; i < n && !rc; i++) {
		if (i)
			rc = put(d, ",", 1);
		if (!rc)
			rc = dump_member(d, d->keys[base + i].key, d->keys[base + i].len,
					 d->keys[base + i].value, self);
	}
	d->nkeys = base;
	return rc;
}

static int dump_object(struct dumper *d, const json_t *v, const struct parent *self)
{
	void *it;
	int rc;

	rc = put(d, "{", 1);
	if (rc)
		return rc;
	it = json_object_iter((json_t *)v);
	if (it && (d->flags & JSON_SORT_KEYS)) {
		rc = dump_object_sorted(d, v, self);
	} else {
		while (it && !rc) {
			void *next = json_object_iter_next((json_t *)v, it);

			rc = dump_member(d, json_object_iter_key(it), json_object_iter_key_len(it),
					 json_object_iter_value(it), self);
			if (!rc && next)
				rc = put(d, ",", 1);
			it = next;
		}
	}
	return rc ? rc : put(d, "}", 1);
}

static int dump_array(struct dumper *d, const json_t *v, const struct parent *self)
{
	size_t i, n = json_array_size(v);
	int rc;

	rc = put(d, "[", 1);
	for (i = 0; i < n && !rc; i++) {
		if (i)
			rc = put(d, ",", 1);
		if (!rc)
			rc = dump_value(d, json_array_get(v, i), self);
	}
	return rc ? rc : put(d, "]", 1);
}

static int dump_value(struct dumper *d, const json_t *v, const struct parent *parents)
{
	struct parent self;
	const struct parent *p;

	if (!v)
		return VC_EINVAL;
	switch (json_typeof(v)) {
	case JSON_NULL:
		return put(d, "null", 4);
	case JSON_TRUE:
		return put(d, "true", 4);
	case JSON_FALSE:
		return put(d, "false", 5);
	case JSON_INTEGER:
		return dump_integer(d, json_integer_value(v));
	case JSON_REAL:
		return dump_real(d, v);
	case JSON_STRING:
		return dump_string(d, json_string_value(v), json_string_length(v));
	case JSON_OBJECT:
	case JSON_ARRAY:
		/* jansson refuses a container that contains itself */
		for (p = parents; p; p = p->up) {
			if (p->v == v)
				return VC_EINVAL;
		}
		self.v = v;
		self.up = parents;
		/* Relaxed: another thread may hold (and drop) references to a cached object. */
		if (parents && __atomic_load_n(&v->refcount, __ATOMIC_RELAXED) == 1)
			self = *parents; /* cannot be met again below: not worth a check */
		return json_is_object(v) ? dump_object(d, v, &self) : dump_array(d, v, &self);
	default:
		return VC_EINVAL;
	}
}

/* json_dump_callback's sink for the flags handled by jansson; keeps the buffer's error. */
struct fallback {
	struct vc_buf *out;
	int rc;
};

static int fallback_add(const char *buffer, size_t size, void *data)
{
	struct fallback *f = data;

	f->rc = vc_buf_add(f->out, buffer, size);
	return f->rc ? -1 : 0;
}

int vc_json_dump(const json_t *v, size_t flags, struct vc_buf *out)
{
	struct dumper d = { .out = out, .flags = flags };
	size_t start = out->len;
	int rc;

	if ((flags & ~(size_t)VC_JSON_DUMP_OWN_FLAGS) || !(flags & JSON_COMPACT)) {
		struct fallback f = { .out = out, .rc = 0 };

		if (!json_dump_callback(v, fallback_add, &f, flags))
			return 0;
		rc = f.rc ? f.rc : VC_EINVAL;
	} else if (!(flags & JSON_ENCODE_ANY) && !json_is_object(v) && !json_is_array(v)) {
		rc = VC_EINVAL;
	} else {
		rc = dump_value(&d, v, NULL);
		vc_free(d.keys);
	}
	if (rc)
		vc_buf_truncate(out, start);
	return rc;
}
