#include "vc_jsonpatch.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_str.h"

/* What is known about the operation being applied, for messages. */
struct patch_ctx {
	size_t index;	  /* 0-based position in the patch */
	const char *op;	  /* NULL until "op" is read */
	const char *path; /* NULL until "path" is read */
	size_t copied;	  /* cost of all "copy" values so far */
	struct vc_error *err;
};

/* A parsed pointer ("path" or "from"). */
struct loc {
	char **tok;
	size_t n;
	const char *text;
	bool is_from;
};

static int op_fail(struct patch_ctx *c, int code, const char *fmt, ...) VC_PRINTF(3, 4);

static int op_fail(struct patch_ctx *c, int code, const char *fmt, ...)
{
	char why[VC_ERROR_TEXT_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* The root pointer "" is shown quoted so that it is visible. */
	if (c->path)
		vc_error_set(c->err, code, "operation %zu (%s %s): %s", c->index, c->op,
			     c->path[0] ? c->path : "\"\"", why);
	else if (c->op)
		vc_error_set(c->err, code, "operation %zu (%s): %s", c->index, c->op, why);
	else
		vc_error_set(c->err, code, "operation %zu: %s", c->index, why);
	return code;
}

static int nomem(struct patch_ctx *c)
{
	return op_fail(c, VC_ENOMEM, "out of memory");
}

static int not_found(struct patch_ctx *c, const struct loc *l)
{
	if (l->is_from)
		return op_fail(c, VC_ENOENT, "from '%s' not found", l->text);
	return op_fail(c, VC_ENOENT, "path not found");
}

/*
 * Resolve the array index token tok of arr. for_add allows "-" and the index equal to the size
 * (both name the end); otherwise the element must exist.
 */
static int array_index(struct patch_ctx *c, const struct loc *l, const json_t *arr, const char *tok,
		       bool for_add, size_t *idx)
{
	const char *from = l->is_from ? "from " : "";
	size_t size = json_array_size(arr);
	int rc;

	*idx = 0;
	if (strcmp(tok, "-") == 0) {
		if (!for_add)
			return not_found(c, l);
		*idx = size;
		return 0;
	}
	rc = vc_json_pointer_index(tok, idx);
	if (rc == VC_EINVAL)
		return op_fail(c, VC_EINVALID, "invalid %sarray index '%s'", from, tok);
	if (rc || *idx > size || (*idx == size && !for_add))
		return op_fail(c, VC_ENOENT, "%sarray index %s out of range (size %zu)", from, tok,
			       size);
	return 0;
}

/* node[tok] for a member or element that must exist (borrowed). */
static int child_get(struct patch_ctx *c, const struct loc *l, json_t *node, const char *tok,
		     json_t **out)
{
	size_t idx;
	int rc;

	*out = NULL;
	if (json_is_object(node)) {
		*out = json_object_get(node, tok);
		return *out ? 0 : not_found(c, l);
	}
	if (json_is_array(node)) {
		rc = array_index(c, l, node, tok, false, &idx);
		if (rc)
			return rc;
		*out = json_array_get(node, idx);
		return 0;
	}
	return not_found(c, l);
}

/* The value at the first n tokens of l (borrowed). */
static int walk(struct patch_ctx *c, json_t *doc, const struct loc *l, size_t n, json_t **out)
{
	json_t *cur = doc;
	size_t i;
	int rc;

	*out = NULL;
	for (i = 0; i < n; i++) {
		rc = child_get(c, l, cur, l->tok[i], &cur);
		if (rc)
			return rc;
	}
	*out = cur;
	return 0;
}

/* Container nesting of v (a scalar is 0), or limit + 1 as soon as it exceeds limit. */
static size_t depth_of(const json_t *v, size_t limit)
{
	size_t best = 0, d, i;
	const char *key;
	json_t *m;

	if (!json_is_object(v) && !json_is_array(v))
		return 0;
	if (limit == 0)
		return 1;
	if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v) && best < limit; i++) {
			d = depth_of(json_array_get(v, i), limit - 1);
			best = VC_MAX(best, d);
		}
	} else {
		json_object_foreach ((json_t *)v, key, m) {
			d = depth_of(m, limit - 1);
			best = VC_MAX(best, d);
			if (best >= limit)
				break;
		}
	}
	return best + 1;
}

/* Refuse to place value under n containers if the result would nest too deeply. */
static int check_depth(struct patch_ctx *c, size_t n, const json_t *value)
{
	if (n > VC_JSON_MAX_DEPTH || depth_of(value, VC_JSON_MAX_DEPTH - n) > VC_JSON_MAX_DEPTH - n)
		return op_fail(c, VC_E2BIG, "result would nest deeper than %d levels",
			       VC_JSON_MAX_DEPTH);
	return 0;
}

/* Decimal digits of an integer, with its sign. */
static size_t int_width(json_int_t i)
{
	size_t w = i < 0 ? 2 : 1;

	while (i <= -10 || i >= 10) {
		i /= 10;
		w++;
	}
	return w;
}

/*
 * A lower bound of the compact serialised size of v (escapes are not counted), or limit + 1 as
 * soon as it exceeds limit.
 */
static size_t cost_of(const json_t *v, size_t limit)
{
	size_t total, i, keylen;
	const char *key;
	json_t *m;

	switch (json_typeof(v)) {
	case JSON_STRING:
		total = json_string_length(v) + 2;
		break;
	case JSON_INTEGER:
		total = int_width(json_integer_value(v));
		break;
	case JSON_REAL:
		total = 3; /* "1.0" */
		break;
	case JSON_FALSE:
		total = 5;
		break;
	case JSON_ARRAY:
		total = 1 + json_array_size(v);
		for (i = 0; i < json_array_size(v) && total <= limit; i++)
			total += cost_of(json_array_get(v, i), limit - total);
		break;
	case JSON_OBJECT:
		total = 1 + json_object_size(v);
		json_object_keylen_foreach ((json_t *)v, key, keylen, m) {
			if (total > limit || keylen + 3 > limit - total)
				return limit + 1;
			total += keylen + 3;
			total += cost_of(m, limit - total);
		}
		break;
	default: /* true, null */
		total = 4;
	}
	return total > limit ? limit + 1 : total;
}

/* Put value (stolen) at l: "add" (replace false) inserts into an array and may name the index
 * one past its end; "replace" needs the target to exist. */
static int put_value(struct patch_ctx *c, json_t **docp, const struct loc *l, json_t *value,
		     bool replace)
{
	json_t *parent;
	const char *last;
	size_t idx;
	int rc;

	rc = check_depth(c, l->n, value);
	if (rc)
		goto out_value;
	if (l->n == 0) {
		json_decref(*docp);
		*docp = value;
		return 0;
	}
	rc = walk(c, *docp, l, l->n - 1, &parent);
	if (rc)
		goto out_value;
	last = l->tok[l->n - 1];
	if (json_is_object(parent)) {
		if (replace && !json_object_get(parent, last)) {
			rc = not_found(c, l);
			goto out_value;
		}
		return json_object_set_new(parent, last, value) ? nomem(c) : 0;
	}
	if (json_is_array(parent)) {
		rc = array_index(c, l, parent, last, !replace, &idx);
		if (rc)
			goto out_value;
		if (replace)
			return json_array_set_new(parent, idx, value) ? nomem(c) : 0;
		return json_array_insert_new(parent, idx, value) ? nomem(c) : 0;
	}
	rc = not_found(c, l);
out_value:
	json_decref(value);
	return rc;
}

static int do_add(struct patch_ctx *c, json_t **docp, const struct loc *l, json_t *value)
{
	return put_value(c, docp, l, value, false);
}

static int do_replace(struct patch_ctx *c, json_t **docp, const struct loc *l, json_t *value)
{
	return put_value(c, docp, l, value, true);
}

/* Remove the value at l; with removed non-NULL, hand it over as a new reference. */
static int do_remove(struct patch_ctx *c, json_t **docp, const struct loc *l, json_t **removed)
{
	json_t *parent, *v;
	const char *last;
	size_t idx;
	int rc;

	if (l->n == 0)
		return op_fail(c, VC_EINVALID, "cannot remove the whole document");
	rc = walk(c, *docp, l, l->n - 1, &parent);
	if (rc)
		return rc;
	last = l->tok[l->n - 1];
	if (json_is_object(parent)) {
		v = json_object_get(parent, last);
		if (!v)
			return not_found(c, l);
		if (removed)
			*removed = json_incref(v);
		json_object_del(parent, last);
		return 0;
	}
	if (json_is_array(parent)) {
		rc = array_index(c, l, parent, last, false, &idx);
		if (rc)
			return rc;
		if (removed)
			*removed = json_incref(json_array_get(parent, idx));
		json_array_remove(parent, idx);
		return 0;
	}
	return not_found(c, l);
}

/* Whether a's tokens are a prefix of b's (equal counts as a prefix). */
static bool loc_is_prefix(const struct loc *a, const struct loc *b)
{
	size_t i;

	if (a->n > b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->tok[i], b->tok[i]) != 0)
			return false;
	}
	return true;
}

static int do_move(struct patch_ctx *c, json_t **docp, const struct loc *path,
		   const struct loc *from)
{
	json_t *v;
	int rc;

	rc = walk(c, *docp, from, from->n, &v);
	if (rc)
		return rc;
	if (loc_is_prefix(from, path)) {
		if (from->n == path->n)
			return 0;
		return op_fail(c, VC_EINVALID, "cannot move a value into one of its own children");
	}
	rc = do_remove(c, docp, from, &v);
	if (rc)
		return rc;
	return do_add(c, docp, path, v);
}

static int do_copy(struct patch_ctx *c, json_t **docp, const struct loc *path,
		   const struct loc *from)
{
	size_t left = VC_JSON_PATCH_COPY_LIMIT - c->copied;
	json_t *v, *dup;
	int rc;

	rc = walk(c, *docp, from, from->n, &v);
	if (rc)
		return rc;
	c->copied += cost_of(v, left);
	if (c->copied > VC_JSON_PATCH_COPY_LIMIT)
		return op_fail(c, VC_E2BIG, "copied values exceed the limit of %zu bytes",
			       VC_JSON_PATCH_COPY_LIMIT);
	dup = json_deep_copy(v);
	if (!dup)
		return nomem(c);
	return do_add(c, docp, path, dup);
}

static int do_test(struct patch_ctx *c, json_t *doc, const struct loc *l, const json_t *value)
{
	json_t *v;
	int rc;

	rc = walk(c, doc, l, l->n, &v);
	if (rc)
		return rc;
	if (!vc_json_equal(v, value))
		return op_fail(c, VC_ETESTFAILED, "value differs");
	return 0;
}

enum op_kind {
	OP_ADD,
	OP_REMOVE,
	OP_REPLACE,
	OP_MOVE,
	OP_COPY,
	OP_TEST
};

static const struct {
	const char *name;
	enum op_kind kind;
	bool has_value;
	bool has_from;
} op_table[] = {
	{ "add", OP_ADD, true, false },		{ "remove", OP_REMOVE, false, false },
	{ "replace", OP_REPLACE, true, false }, { "move", OP_MOVE, false, true },
	{ "copy", OP_COPY, false, true },	{ "test", OP_TEST, true, false },
};

/* The string member `name` of op as a NUL-free C string (borrowed), or NULL after op_fail(). */
static const char *op_string(struct patch_ctx *c, const json_t *op, const char *name)
{
	json_t *v = json_object_get(op, name);

	if (!json_is_string(v)) {
		op_fail(c, VC_EINVALID, "missing or non-string '%s'", name);
		return NULL;
	}
	if (strlen(json_string_value(v)) != json_string_length(v)) {
		op_fail(c, VC_EINVALID, "'%s' contains a NUL byte", name);
		return NULL;
	}
	return json_string_value(v);
}

static int op_pointer(struct patch_ctx *c, const char *text, bool is_from, struct loc *l)
{
	struct vc_error perr;
	int rc;

	l->text = text;
	l->is_from = is_from;
	rc = vc_json_pointer_split(text, &l->tok, &l->n, &perr);
	if (rc == VC_ENOMEM)
		return nomem(c);
	if (rc)
		return op_fail(c, VC_EINVALID, "%s%s", is_from ? "from: " : "", perr.text);
	return 0;
}

static int apply_one(struct patch_ctx *c, json_t **docp, const json_t *op)
{
	struct loc path = { 0 }, from = { 0 };
	const char *name, *text;
	json_t *value = NULL, *copy;
	size_t k;
	int rc;

	if (!json_is_object(op))
		return op_fail(c, VC_EINVALID, "not an object");
	name = op_string(c, op, "op");
	if (!name)
		return VC_EINVALID;
	for (k = 0; k < VC_ARRAY_SIZE(op_table); k++) {
		if (strcmp(name, op_table[k].name) == 0)
			break;
	}
	if (k == VC_ARRAY_SIZE(op_table))
		return op_fail(c, VC_EINVALID, "unknown op '%s'", name);
	c->op = name;
	text = op_string(c, op, "path");
	if (!text)
		return VC_EINVALID;
	c->path = text;
	if (op_table[k].has_value) {
		value = json_object_get(op, "value");
		if (!value)
			return op_fail(c, VC_EINVALID, "missing 'value'");
	}
	rc = op_pointer(c, text, false, &path);
	if (rc)
		return rc;
	if (op_table[k].has_from) {
		text = op_string(c, op, "from");
		rc = text ? op_pointer(c, text, true, &from) : VC_EINVALID;
		if (rc)
			goto out_path;
	}

	switch (op_table[k].kind) {
	case OP_ADD:
	case OP_REPLACE:
		copy = json_deep_copy(value);
		if (!copy) {
			rc = nomem(c);
			break;
		}
		if (op_table[k].kind == OP_ADD)
			rc = do_add(c, docp, &path, copy);
		else
			rc = do_replace(c, docp, &path, copy);
		break;
	case OP_REMOVE:
		rc = do_remove(c, docp, &path, NULL);
		break;
	case OP_MOVE:
		rc = do_move(c, docp, &path, &from);
		break;
	case OP_COPY:
		rc = do_copy(c, docp, &path, &from);
		break;
	case OP_TEST:
		rc = do_test(c, *docp, &path, value);
		break;
	}
	vc_free(from.tok);
out_path:
	vc_free(path.tok);
	return rc;
}

int vc_json_patch_apply(const json_t *doc, const json_t *patch, json_t **result,
			struct vc_error *err)
{
	struct patch_ctx c = { .err = err };
	json_t *work;
	size_t i;
	int rc;

	if (result)
		*result = NULL;
	if (!doc || !patch || !result)
		return vc_error_set(err, VC_EINVAL, "no document or patch to apply");
	if (!json_is_array(patch))
		return vc_error_set(err, VC_EINVALID, "patch is not an array of operations");
	work = json_deep_copy(doc);
	if (!work)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(patch); i++) {
		c.index = i;
		c.op = NULL;
		c.path = NULL;
		rc = apply_one(&c, &work, json_array_get(patch, i));
		if (rc) {
			json_decref(work);
			return rc;
		}
	}
	*result = work;
	return 0;
}

/* The diff's state: the operations so far and the pointer of the value being compared. */
struct diff_ctx {
	json_t *ops;
	struct vc_buf path;
};

/* Append {"op":op,"path":<current>} plus a deep copy of value when it is not NULL. */
static int emit(struct diff_ctx *d, const char *op, const json_t *value)
{
	json_t *o = json_object();

	if (!o)
		return VC_ENOMEM;
	if (json_object_set_new(o, "op", json_string(op)) ||
	    json_object_set_new(o, "path", json_stringn(vc_buf_str(&d->path), d->path.len)) ||
	    (value && json_object_set_new(o, "value", json_deep_copy(value)))) {
		json_decref(o);
		return VC_ENOMEM;
	}
	return json_array_append_new(d->ops, o) ? VC_ENOMEM : 0;
}

static int push_key(struct diff_ctx *d, const char *key)
{
	int rc = vc_buf_addc(&d->path, '/');

	return rc ? rc : vc_json_pointer_escape(key, &d->path);
}

/* The keys of obj in strcmp order, as a new vc_malloc'd array of borrowed strings. */
static const char **sorted_keys(const json_t *obj)
{
	size_t n = json_object_size(obj), i = 0;
	const char **keys, *key;
	json_t *v;

	keys = vc_calloc(n ? n : 1, sizeof(*keys));
	if (!keys)
		return NULL;
	json_object_foreach ((json_t *)obj, key, v) {
		keys[i++] = key;
	}
	qsort(keys, n, sizeof(*keys), vc_str_cmp_ptr);
	return keys;
}

static int diff_value(struct diff_ctx *d, const json_t *a, const json_t *b);

static int diff_object(struct diff_ctx *d, const json_t *a, const json_t *b)
{
	size_t save = d->path.len, na = json_object_size(a), nb = json_object_size(b), i;
	const char **ka, **kb = NULL;
	json_t *va;
	int rc = VC_ENOMEM;

	ka = sorted_keys(a);
	if (!ka)
		return VC_ENOMEM;
	kb = sorted_keys(b);
	if (!kb)
		goto out_keys;
	for (i = 0; i < na; i++) {
		if (json_object_get(b, ka[i]))
			continue;
		rc = push_key(d, ka[i]);
		if (!rc)
			rc = emit(d, "remove", NULL);
		vc_buf_truncate(&d->path, save);
		if (rc)
			goto out_keys;
	}
	for (i = 0; i < nb; i++) {
		va = json_object_get(a, kb[i]);
		rc = push_key(d, kb[i]);
		if (!rc && va)
			rc = diff_value(d, va, json_object_get(b, kb[i]));
		else if (!rc)
			rc = emit(d, "add", json_object_get(b, kb[i]));
		vc_buf_truncate(&d->path, save);
		if (rc)
			goto out_keys;
	}
	rc = 0;
out_keys:
	vc_free(kb);
	vc_free(ka);
	return rc;
}

static int diff_array(struct diff_ctx *d, const json_t *a, const json_t *b)
{
	size_t save = d->path.len, na = json_array_size(a), nb = json_array_size(b), i;
	int rc;

	for (i = 0; i < VC_MIN(na, nb); i++) {
		rc = vc_buf_addf(&d->path, "/%zu", i);
		if (!rc)
			rc = diff_value(d, json_array_get(a, i), json_array_get(b, i));
		vc_buf_truncate(&d->path, save);
		if (rc)
			return rc;
	}
	for (i = na; i < nb; i++) {
		rc = vc_buf_addf(&d->path, "/%zu", i);
		if (!rc)
			rc = emit(d, "add", json_array_get(b, i));
		vc_buf_truncate(&d->path, save);
		if (rc)
			return rc;
	}
	for (i = na; i > nb; i--) {
		rc = vc_buf_addf(&d->path, "/%zu", i - 1);
		if (!rc)
			rc = emit(d, "remove", NULL);
		vc_buf_truncate(&d->path, save);
		if (rc)
			return rc;
	}
	return 0;
}

static int diff_value(struct diff_ctx *d, const json_t *a, const json_t *b)
{
	if (json_is_object(a) && json_is_object(b))
		return diff_object(d, a, b);
	if (json_is_array(a) && json_is_array(b))
		return diff_array(d, a, b);
	if (vc_json_equal(a, b))
		return 0;
	return emit(d, "replace", b);
}

json_t *vc_json_patch_diff(const json_t *from, const json_t *to)
{
	struct diff_ctx d;
	int rc;

	if (!from || !to)
		return NULL;
	d.ops = json_array();
	if (!d.ops)
		return NULL;
	vc_buf_init(&d.path, 0);
	rc = diff_value(&d, from, to);
	vc_buf_release(&d.path);
	if (rc) {
		json_decref(d.ops);
		return NULL;
	}
	return d.ops;
}

static int merge_object(json_t *target, const json_t *patch);

/* MergePatch(absent, patch): a copy of patch with the nulls of nested objects dropped. */
static json_t *merge_fresh(const json_t *patch)
{
	json_t *o;

	if (!json_is_object(patch))
		return json_deep_copy(patch);
	o = json_object();
	if (o && merge_object(o, patch)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Merge the object patch into the object target, which this call may change. */
static int merge_object(json_t *target, const json_t *patch)
{
	const char *key;
	size_t keylen;
	json_t *pv, *tv;
	int rc;

	json_object_keylen_foreach ((json_t *)patch, key, keylen, pv) {
		if (json_is_null(pv)) {
			json_object_deln(target, key, keylen);
			continue;
		}
		tv = json_object_getn(target, key, keylen);
		if (json_is_object(tv) && json_is_object(pv)) {
			rc = merge_object(tv, pv);
			if (rc)
				return rc;
			continue;
		}
		if (json_object_setn_new_nocheck(target, key, keylen, merge_fresh(pv)))
			return VC_ENOMEM;
	}
	return 0;
}

int vc_json_merge_patch_apply(const json_t *target, const json_t *patch, json_t **result,
			      struct vc_error *err)
{
	json_t *out;

	if (result)
		*result = NULL;
	if (!patch || !result)
		return vc_error_set(err, VC_EINVAL, "no merge patch to apply");
	if (!json_is_object(patch))
		out = json_deep_copy(patch);
	else if (json_is_object(target))
		out = json_deep_copy(target);
	else
		out = json_object();
	if (!out)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (json_is_object(patch) && merge_object(out, patch)) {
		json_decref(out);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	*result = out;
	return 0;
}

static json_t *merge_diff_object(const json_t *from, const json_t *to)
{
	json_t *p, *fv, *tv, *sub;
	const char *key;
	size_t keylen;

	p = json_object();
	if (!p)
		return NULL;
	json_object_keylen_foreach ((json_t *)from, key, keylen, fv) {
		if (!json_object_getn(to, key, keylen) &&
		    json_object_setn_new_nocheck(p, key, keylen, json_null()))
			goto out_patch;
	}
	json_object_keylen_foreach ((json_t *)to, key, keylen, tv) {
		fv = json_object_getn(from, key, keylen);
		if (!fv && json_is_null(tv))
			continue;
		if (fv && vc_json_equal(fv, tv))
			continue;
		if (json_is_object(fv) && json_is_object(tv))
			sub = merge_diff_object(fv, tv);
		else
			sub = json_deep_copy(tv);
		if (json_object_setn_new_nocheck(p, key, keylen, sub))
			goto out_patch;
	}
	return p;

out_patch:
	json_decref(p);
	return NULL;
}

json_t *vc_json_merge_patch_diff(const json_t *from, const json_t *to)
{
	if (!from || !to)
		return NULL;
	if (!json_is_object(from) || !json_is_object(to))
		return json_deep_copy(to);
	return merge_diff_object(from, to);
}
