#include "vc_json.h"

#include "vc_alloc.h"
#include "vc_strconv.h"

int vc_json_parse(const char *buf, size_t len, size_t cap, json_t **out, struct vc_error *err)
{
	return vc_json_parse_flags(buf, len, cap, 0, out, err);
}

int vc_json_parse_flags(const char *buf, size_t len, size_t cap, unsigned flags, json_t **out,
			struct vc_error *err)
{
	size_t jflags = JSON_REJECT_DUPLICATES;
	json_error_t jerr;
	json_t *v;
	int code;

	if (out)
		*out = NULL;
	if (!out || (!buf && len))
		return vc_error_set(err, VC_EINVAL, "no JSON input to parse");
	if (!cap)
		cap = VC_JSON_DEFAULT_CAP;
	if (len > cap)
		return vc_error_set(err, VC_E2BIG,
				    "JSON body of %zu bytes exceeds the limit of %zu bytes", len,
				    cap);
	if (flags & VC_JSON_PARSE_ANY)
		jflags |= JSON_DECODE_ANY;
	v = vc_json_loadb(buf ? buf : "", len, jflags, &jerr);
	if (!v) {
		/* jansson leaves the text empty when it fails before reading (an allocation). */
		if (json_error_code(&jerr) == json_error_out_of_memory || jerr.text[0] == '\0')
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		code = VC_EPARSE;
		return vc_error_set_at(err, code, VC_MAX(jerr.line, 0), VC_MAX(jerr.column, 0),
				       (size_t)VC_MAX(jerr.position, 0), "%s", jerr.text);
	}
	*out = v;
	return 0;
}

const char *vc_json_get_str(const json_t *obj, const char *key)
{
	json_t *v = key ? json_object_get(obj, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* An integral real that fits int64_t, as the integer it equals. */
static bool real_as_int(double r, int64_t *out)
{
	/* -2^63 and 2^63 are exact doubles; the cast is defined strictly inside the range, and
	 * the negated form also turns NaN away. */
	const double two_63 = 9223372036854775808.0;

	if (!(r >= -two_63 && r < two_63))
		return false;
	if ((double)(int64_t)r != r)
		return false;
	*out = (int64_t)r;
	return true;
}

int64_t vc_json_get_int(const json_t *obj, const char *key, int64_t def)
{
	json_t *v = key ? json_object_get(obj, key) : NULL;
	int64_t i;

	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	if (json_is_real(v) && real_as_int(json_real_value(v), &i))
		return i;
	return def;
}

bool vc_json_get_bool(const json_t *obj, const char *key, bool def)
{
	json_t *v = key ? json_object_get(obj, key) : NULL;

	return json_is_boolean(v) ? json_is_true(v) : def;
}

double vc_json_get_number(const json_t *obj, const char *key, double def)
{
	json_t *v = key ? json_object_get(obj, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : def;
}

json_t *vc_json_get_obj(const json_t *obj, const char *key)
{
	json_t *v = key ? json_object_get(obj, key) : NULL;

	return json_is_object(v) ? v : NULL;
}

json_t *vc_json_get_arr(const json_t *obj, const char *key)
{
	json_t *v = key ? json_object_get(obj, key) : NULL;

	return json_is_array(v) ? v : NULL;
}

/* One step of a dotted path: an array index or a key (a slice of the path, not NUL-terminated). */
struct path_seg {
	bool is_index;
	size_t index;
	const char *key;
	size_t keylen;
};

static int path_bracket(const char **pp, struct path_seg *seg)
{
	const char *p = *pp + 1, *end;
	size_t v = 0;
	char quote;

	if (*p >= '0' && *p <= '9') {
		while (*p >= '0' && *p <= '9') {
			if (v > (SIZE_MAX - (size_t)(*p - '0')) / 10)
				return VC_EINVAL;
			v = v * 10 + (size_t)(*p - '0');
			p++;
		}
		seg->is_index = true;
		seg->index = v;
	} else if (*p == '"' || *p == '\'') {
		quote = *p++;
		end = strchr(p, quote);
		if (!end)
			return VC_EINVAL;
		seg->is_index = false;
		seg->key = p;
		seg->keylen = (size_t)(end - p);
		p = end + 1;
	} else {
		return VC_EINVAL;
	}
	if (*p != ']')
		return VC_EINVAL;
	*pp = p + 1;
	return 1;
}

/*
 * Read the next segment at *pp into seg and advance. Returns 1 for a segment, 0 at the end of the
 * path, VC_EINVAL when the path is malformed. `first` tells that no segment was read yet, so a
 * plain key needs no leading dot.
 */
static int path_next(const char **pp, bool first, struct path_seg *seg)
{
	const char *p = *pp, *start;

	if (*p == '\0')
		return 0;
	if (*p == '[')
		return path_bracket(pp, seg);
	if (!first) {
		if (*p != '.')
			return VC_EINVAL;
		p++;
	}
	start = p;
	while (*p && *p != '.' && *p != '[')
		p++;
	if (p == start)
		return VC_EINVAL;
	seg->is_index = false;
	seg->key = start;
	seg->keylen = (size_t)(p - start);
	*pp = p;
	return 1;
}

/* Whether seg addresses the kind of container node is. */
static bool seg_fits(const json_t *node, const struct path_seg *seg)
{
	return seg->is_index ? json_is_array(node) : json_is_object(node);
}

static json_t *seg_get(const json_t *node, const struct path_seg *seg)
{
	if (!seg_fits(node, seg))
		return NULL;
	if (seg->is_index)
		return json_array_get(node, seg->index);
	return json_object_getn(node, seg->key, seg->keylen);
}

json_t *vc_json_path(const json_t *root, const char *path)
{
	const json_t *cur = root;
	struct path_seg seg;
	bool first = true;
	int rc;

	if (!root || !path)
		return NULL;
	while ((rc = path_next(&path, first, &seg)) > 0) {
		first = false;
		cur = seg_get(cur, &seg);
		if (!cur)
			return NULL;
	}
	return rc < 0 ? NULL : (json_t *)cur;
}

/* Store value (stolen) at seg of container node, which seg_fits(). */
static int seg_set_new(json_t *node, const struct path_seg *seg, json_t *value)
{
	size_t size;

	if (!seg->is_index)
		return json_object_setn_new(node, seg->key, seg->keylen, value) ? VC_ENOMEM : 0;
	size = json_array_size(node);
	if (seg->index < size)
		return json_array_set_new(node, seg->index, value) ? VC_ENOMEM : 0;
	if (seg->index == size)
		return json_array_append_new(node, value) ? VC_ENOMEM : 0;
	json_decref(value);
	return VC_ENOENT;
}

/*
 * cur[seg] is missing and seg is a key: build the objects for the remaining segments (next and
 * what follows at *pp) detached, put value (stolen) at the end, and only then attach the chain,
 * so that a failure leaves cur as it was.
 */
static int attach_chain(json_t *cur, const struct path_seg *seg, struct path_seg next,
			const char *p, json_t *value)
{
	struct path_seg after;
	json_t *top, *tail, *o;
	int rc;

	top = json_object();
	if (!top) {
		json_decref(value);
		return VC_ENOMEM;
	}
	tail = top;
	for (;;) {
		if (next.is_index) {
			/* Arrays are never created. */
			json_decref(value);
			rc = VC_ENOENT;
			goto out_top;
		}
		if (path_next(&p, false, &after) == 0)
			break;
		o = json_object();
		if (json_object_setn_new(tail, next.key, next.keylen, o)) {
			json_decref(value);
			rc = VC_ENOMEM;
			goto out_top;
		}
		tail = o;
		next = after;
	}
	if (json_object_setn_new(tail, next.key, next.keylen, value)) {
		rc = VC_ENOMEM;
		goto out_top;
	}
	return json_object_setn_new(cur, seg->key, seg->keylen, top) ? VC_ENOMEM : 0;

out_top:
	json_decref(top);
	return rc;
}

int vc_json_set_path_new(json_t *root, const char *path, json_t *value)
{
	struct path_seg seg, next;
	const char *p;
	json_t *cur, *child;
	size_t n = 0;
	int rc;

	if (!value)
		return VC_EINVAL;
	if (!root || !path || !*path || !vc_utf8_valid(path, strlen(path))) {
		rc = VC_EINVAL;
		goto out_value;
	}
	/* Check the whole syntax first: a malformed tail must not leave a half-built chain. */
	p = path;
	while ((rc = path_next(&p, n == 0, &seg)) > 0)
		n++;
	if (rc < 0)
		goto out_value;

	p = path;
	cur = root;
	(void)path_next(&p, true, &seg);
	while (path_next(&p, false, &next) > 0) {
		if (!seg_fits(cur, &seg)) {
			rc = VC_EINVALID;
			goto out_value;
		}
		child = seg_get(cur, &seg);
		if (!child) {
			if (seg.is_index) {
				rc = VC_ENOENT;
				goto out_value;
			}
			return attach_chain(cur, &seg, next, p, value);
		}
		cur = child;
		seg = next;
	}
	if (!seg_fits(cur, &seg)) {
		rc = VC_EINVALID;
		goto out_value;
	}
	return seg_set_new(cur, &seg, value);

out_value:
	json_decref(value);
	return rc;
}

static int index_parse(const char *s, size_t len, size_t *out)
{
	size_t v = 0, i;

	if (len == 0 || (len > 1 && s[0] == '0'))
		return VC_EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return VC_EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (v > (SIZE_MAX - (size_t)(s[i] - '0')) / 10)
			return VC_ERANGE;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int vc_json_pointer_index(const char *token, size_t *out)
{
	if (!token || !out)
		return VC_EINVAL;
	return index_parse(token, strlen(token), out);
}

/* Whether the escaped token tok[0..len) (escapes already validated) names key[0..keylen). */
static bool token_matches(const char *tok, size_t len, const char *key, size_t keylen)
{
	size_t i = 0, k = 0;
	char c;

	while (i < len) {
		c = tok[i++];
		if (c == '~')
			c = tok[i++] == '0' ? '~' : '/';
		if (k >= keylen || key[k++] != c)
			return false;
	}
	return k == keylen;
}

static json_t *pointer_child(const json_t *node, const char *tok, size_t len)
{
	const char *tilde = memchr(tok, '~', len), *key;
	size_t keylen, idx, i;
	json_t *v;

	for (i = 0; i < len; i++) {
		if (tok[i] != '~')
			continue;
		if (i + 1 >= len || (tok[i + 1] != '0' && tok[i + 1] != '1'))
			return NULL;
		i++;
	}
	if (json_is_object(node)) {
		if (!tilde)
			return json_object_getn(node, tok, len);
		/* Rare: match the escaped token against each key instead of allocating. */
		json_object_keylen_foreach ((json_t *)node, key, keylen, v) {
			if (token_matches(tok, len, key, keylen))
				return v;
		}
		return NULL;
	}
	if (json_is_array(node) && index_parse(tok, len, &idx) == 0)
		return json_array_get(node, idx);
	return NULL;
}

json_t *vc_json_pointer_get(const json_t *root, const char *pointer)
{
	const json_t *cur = root;
	const char *p = pointer, *tok;
	size_t len;

	if (!root || !pointer)
		return NULL;
	if (*p == '\0')
		return (json_t *)root;
	if (*p != '/')
		return NULL;
	while (*p == '/') {
		tok = p + 1;
		len = strcspn(tok, "/");
		cur = pointer_child(cur, tok, len);
		if (!cur)
			return NULL;
		p = tok + len;
	}
	return (json_t *)cur;
}

int vc_json_pointer_escape(const char *in, struct vc_buf *out)
{
	size_t span;
	int rc;

	if (!in || !out)
		return VC_EINVAL;
	for (;;) {
		span = strcspn(in, "~/");
		rc = vc_buf_add(out, in, span);
		if (rc)
			return rc;
		in += span;
		if (*in == '\0')
			return 0;
		rc = vc_buf_add(out, *in == '~' ? "~0" : "~1", 2);
		if (rc)
			return rc;
		in++;
	}
}

int vc_json_pointer_split(const char *pointer, char ***tokens, size_t *count, struct vc_error *err)
{
	size_t len, n = 0, i, t = 0;
	char **toks, *w;

	if (!pointer || !tokens || !count)
		return vc_error_set(err, VC_EINVAL, "no JSON pointer to split");
	*tokens = NULL;
	*count = 0;
	len = strlen(pointer);
	if (len && pointer[0] != '/')
		return vc_error_set_at(err, VC_EINVAL, 1, 1, 0,
				       "invalid JSON pointer '%s': must be empty or start with '/'",
				       pointer);
	for (i = 0; i < len; i++) {
		if (pointer[i] == '/')
			n++;
		else if (pointer[i] == '~' && pointer[i + 1] != '0' && pointer[i + 1] != '1')
			return vc_error_set_at(err, VC_EINVAL, 1,
					       (int)VC_MIN(i + 1, (size_t)INT_MAX), i,
					       "invalid JSON pointer '%s': '~' must be followed by "
					       "'0' or '1'",
					       pointer);
	}
	/* n pointers, then the tokens: unescaping never lengthens, and each '/' becomes a NUL. */
	if (n > (SIZE_MAX - len - 1) / sizeof(char *))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	toks = vc_malloc(n * sizeof(char *) + len + 1);
	if (!toks)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	w = (char *)(toks + n);
	for (i = 0; i < len; i++) {
		if (pointer[i] == '/') {
			if (t)
				*w++ = '\0';
			toks[t++] = w;
		} else if (pointer[i] == '~') {
			*w++ = pointer[++i] == '0' ? '~' : '/';
		} else {
			*w++ = pointer[i];
		}
	}
	*w = '\0';
	*tokens = toks;
	*count = n;
	return 0;
}

static bool number_equal(const json_t *a, const json_t *b)
{
	int64_t i;

	if (json_is_integer(a) && json_is_integer(b))
		return json_integer_value(a) == json_integer_value(b);
	if (json_is_real(a) && json_is_real(b))
		return json_real_value(a) == json_real_value(b);
	if (json_is_integer(a))
		return real_as_int(json_real_value(b), &i) && i == json_integer_value(a);
	return real_as_int(json_real_value(a), &i) && i == json_integer_value(b);
}

bool vc_json_equal(const json_t *a, const json_t *b)
{
	const char *key;
	size_t keylen, i;
	json_t *v;

	if (!a || !b)
		return false;
	if (a == b)
		return true;
	if (json_is_number(a) && json_is_number(b))
		return number_equal(a, b);
	if (json_typeof(a) != json_typeof(b))
		return false;
	switch (json_typeof(a)) {
	case JSON_OBJECT:
		if (json_object_size(a) != json_object_size(b))
			return false;
		json_object_keylen_foreach ((json_t *)a, key, keylen, v) {
			if (!vc_json_equal(v, json_object_getn(b, key, keylen)))
				return false;
		}
		return true;
	case JSON_ARRAY:
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (i = 0; i < json_array_size(a); i++) {
			if (!vc_json_equal(json_array_get(a, i), json_array_get(b, i)))
				return false;
		}
		return true;
	case JSON_STRING:
		return json_string_length(a) == json_string_length(b) &&
		       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) ==
			       0;
	default:
		/* true, false and null: the type is the value. */
		return true;
	}
}

char *vc_json_dumps_sorted(const json_t *v)
{
	struct vc_buf buf;
	char *s;

	if (!v)
		return NULL;
	vc_buf_init(&buf, 0);
	if (vc_json_dump(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY, &buf)) {
		vc_buf_release(&buf);
		return NULL;
	}
	s = vc_buf_take(&buf);
	vc_buf_release(&buf);
	return s;
}
