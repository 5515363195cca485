#include "vc_resource.h"

#include <math.h>

#include "vc_alloc.h"
#include "vc_quantity.h"
#include "vc_str.h"

#define PODS "pods"

void vc_resource_init(struct vc_resource *r)
{
	memset(r, 0, sizeof(*r));
}

void vc_resource_release(struct vc_resource *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nscalars; i++)
		vc_free(r->scalars[i].name);
	vc_free(r->scalars);
	r->scalars = NULL;
	r->nscalars = 0;
	r->alloc = 0;
}

void vc_resource_clear(struct vc_resource *r)
{
	vc_resource_release(r);
	vc_resource_init(r);
}

struct vc_resource *vc_resource_new(void)
{
	return vc_calloc(1, sizeof(struct vc_resource));
}

void vc_resource_free(struct vc_resource *r)
{
	vc_resource_release(r);
	vc_free(r);
}

/* Binary search: the index of name, or where it would be inserted (then *found is false). */
static size_t scalar_find(const struct vc_resource *r, const char *name, bool *found)
{
	size_t lo = 0, hi = r->nscalars;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(r->scalars[mid].name, name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static struct vc_resource_scalar *scalar_get(const struct vc_resource *r, const char *name)
{
	bool found;
	size_t i = scalar_find(r, name, &found);

	return found ? &r->scalars[i] : NULL;
}

static bool wanted(const struct vc_resource_scalar *s, bool positive_only)
{
	return !positive_only || s->value > 0;
}

/*
 * Make sure r holds every name of src (sorted, unique), new ones at 0; with positive_only only
 * the names whose src value is above 0. All allocation happens before r is touched, so on
 * VC_ENOMEM r is unchanged.
 */
static int merge_names(struct vc_resource *r, const struct vc_resource_scalar *src, size_t nsrc,
		       bool positive_only)
{
	struct vc_resource_scalar *merged;
	char **dups;
	size_t missing = 0, i, j, k, d;
	bool found;

	for (j = 0; j < nsrc; j++) {
		if (wanted(&src[j], positive_only)) {
			scalar_find(r, src[j].name, &found);
			missing += !found;
		}
	}
	if (!missing)
		return 0;
	dups = vc_calloc(missing, sizeof(*dups));
	if (!dups)
		return VC_ENOMEM;
	merged = vc_calloc(r->nscalars + missing, sizeof(*merged));
	if (!merged)
		goto fail_merged;
	for (j = 0, d = 0; j < nsrc; j++) {
		if (!wanted(&src[j], positive_only))
			continue;
		scalar_find(r, src[j].name, &found);
		if (found)
			continue;
		dups[d] = vc_strdup(src[j].name);
		if (!dups[d])
			goto fail_dups;
		d++;
	}
	/* dups is in src order, which is name order: a plain merge. */
	for (i = 0, d = 0, k = 0; i < r->nscalars || d < missing; k++) {
		if (d >= missing || (i < r->nscalars && strcmp(r->scalars[i].name, dups[d]) < 0)) {
			merged[k] = r->scalars[i++];
		} else {
			merged[k].name = dups[d++];
			merged[k].value = 0;
		}
	}
	vc_free(r->scalars);
	r->scalars = merged;
	r->nscalars = k;
	r->alloc = k;
	vc_free(dups);
	return 0;
fail_dups:
	while (d > 0)
		vc_free(dups[--d]);
	vc_free(merged);
fail_merged:
	vc_free(dups);
	return VC_ENOMEM;
}

int vc_resource_copy(struct vc_resource *dst, const struct vc_resource *src)
{
	struct vc_resource tmp = VC_RESOURCE_INIT;
	int rc;

	rc = merge_names(&tmp, src->scalars, src->nscalars, false);
	if (rc)
		return rc;
	for (size_t i = 0; i < src->nscalars; i++)
		tmp.scalars[i].value = src->scalars[i].value;
	tmp.milli_cpu = src->milli_cpu;
	tmp.memory = src->memory;
	tmp.max_task_num = src->max_task_num;
	vc_resource_release(dst);
	*dst = tmp;
	return 0;
}

double vc_resource_get(const struct vc_resource *r, const char *name)
{
	const struct vc_resource_scalar *s;

	if (strcmp(name, "cpu") == 0)
		return r->milli_cpu;
	if (strcmp(name, "memory") == 0)
		return r->memory;
	s = scalar_get(r, name);
	return s ? s->value : 0;
}

bool vc_resource_has_scalar(const struct vc_resource *r, const char *name)
{
	return scalar_get(r, name) != NULL;
}

int vc_resource_set_scalar(struct vc_resource *r, const char *name, double value)
{
	struct vc_resource_scalar one = { (char *)name, 0 };
	int rc = merge_names(r, &one, 1, false);

	if (rc)
		return rc;
	scalar_get(r, name)->value = value;
	return 0;
}

int vc_resource_add_scalar(struct vc_resource *r, const char *name, double value)
{
	struct vc_resource_scalar one = { (char *)name, 0 };
	int rc = merge_names(r, &one, 1, false);

	if (rc)
		return rc;
	scalar_get(r, name)->value += value;
	return 0;
}

int vc_resource_add(struct vc_resource *r, const struct vc_resource *rr)
{
	int rc = merge_names(r, rr->scalars, rr->nscalars, false);
	size_t j;

	if (rc)
		return rc;
	r->milli_cpu += rr->milli_cpu;
	r->memory += rr->memory;
	for (j = 0; j < rr->nscalars; j++)
		scalar_get(r, rr->scalars[j].name)->value += rr->scalars[j].value;
	return 0;
}

int vc_resource_sub(struct vc_resource *r, const struct vc_resource *rr)
{
	size_t j;

	if (r->nscalars) {
		int rc = merge_names(r, rr->scalars, rr->nscalars, false);

		if (rc)
			return rc;
		for (j = 0; j < rr->nscalars; j++)
			scalar_get(r, rr->scalars[j].name)->value -= rr->scalars[j].value;
	}
	r->milli_cpu -= rr->milli_cpu;
	r->memory -= rr->memory;
	return 0;
}

int vc_resource_sub_checked(struct vc_resource *r, const struct vc_resource *rr,
			    struct vc_error *err)
{
	if (!vc_resource_less_equal(rr, r, VC_RESOURCE_ZERO)) {
		char a[200], b[200];

		vc_resource_snprint(a, sizeof(a), r);
		vc_resource_snprint(b, sizeof(b), rr);
		return vc_error_set(err, VC_EINVAL,
				    "resource is not sufficient to do operation: <%s> sub <%s>", a,
				    b);
	}
	return vc_resource_sub(r, rr);
}

void vc_resource_multi(struct vc_resource *r, double ratio)
{
	size_t i;

	r->milli_cpu *= ratio;
	r->memory *= ratio;
	for (i = 0; i < r->nscalars; i++)
		r->scalars[i].value *= ratio;
}

int vc_resource_set_max(struct vc_resource *r, const struct vc_resource *rr)
{
	struct vc_resource tmp = VC_RESOURCE_INIT;
	size_t j;
	int rc;

	/* Names r lacks take rr's value outright, whatever it is (Go: !ok || greater). */
	for (j = 0; j < rr->nscalars; j++) {
		if (!scalar_get(r, rr->scalars[j].name)) {
			rc = vc_resource_set_scalar(&tmp, rr->scalars[j].name,
						    rr->scalars[j].value);
			if (rc)
				goto out;
		}
	}
	rc = merge_names(r, rr->scalars, rr->nscalars, false);
	if (rc)
		goto out;
	if (rr->milli_cpu > r->milli_cpu)
		r->milli_cpu = rr->milli_cpu;
	if (rr->memory > r->memory)
		r->memory = rr->memory;
	for (j = 0; j < rr->nscalars; j++) {
		struct vc_resource_scalar *s = scalar_get(r, rr->scalars[j].name);

		if (scalar_get(&tmp, rr->scalars[j].name) || rr->scalars[j].value > s->value)
			s->value = rr->scalars[j].value;
	}
out:
	vc_resource_release(&tmp);
	return rc;
}

/* Go's math.Min: -Inf wins, then NaN, and -0 is below +0. */
static double go_min(double x, double y)
{
	if (isinf(x) && x < 0)
		return x;
	if (isinf(y) && y < 0)
		return y;
	if (isnan(x) || isnan(y))
		return NAN;
	if (x == 0 && y == 0)
		return signbit(x) ? x : y;
	return x < y ? x : y;
}

void vc_resource_min_dimension(struct vc_resource *r, const struct vc_resource *rr,
			       enum vc_resource_default dflt)
{
	size_t i;

	if (rr->milli_cpu < r->milli_cpu)
		r->milli_cpu = rr->milli_cpu;
	if (rr->memory < r->memory)
		r->memory = rr->memory;
	for (i = 0; i < r->nscalars; i++) {
		const struct vc_resource_scalar *s = scalar_get(rr, r->scalars[i].name);

		if (s)
			r->scalars[i].value = go_min(r->scalars[i].value, s->value);
		else if (dflt == VC_RESOURCE_ZERO)
			r->scalars[i].value = 0;
	}
}

int vc_resource_fit_delta(struct vc_resource *r, const struct vc_resource *rr)
{
	int rc = merge_names(r, rr->scalars, rr->nscalars, true);
	size_t j;

	if (rc)
		return rc;
	if (rr->milli_cpu > 0)
		r->milli_cpu -= rr->milli_cpu + VC_RESOURCE_MIN;
	if (rr->memory > 0)
		r->memory -= rr->memory + VC_RESOURCE_MIN;
	for (j = 0; j < rr->nscalars; j++) {
		if (rr->scalars[j].value > 0)
			scalar_get(r, rr->scalars[j].name)->value -=
				rr->scalars[j].value + VC_RESOURCE_MIN;
	}
	return 0;
}

bool vc_resource_is_empty(const struct vc_resource *r)
{
	size_t i;

	if (!(r->milli_cpu < VC_RESOURCE_MIN && r->memory < VC_RESOURCE_MIN))
		return false;
	for (i = 0; i < r->nscalars; i++) {
		/* Every pod asks for one "pods"; it does not make a request non-empty. */
		if (strcmp(r->scalars[i].name, PODS) == 0)
			continue;
		if (r->scalars[i].value >= VC_RESOURCE_MIN)
			return false;
	}
	return true;
}

bool vc_resource_is_zero(const struct vc_resource *r, const char *name)
{
	return vc_resource_get(r, name) < VC_RESOURCE_MIN;
}

static bool lt(double l, double r)
{
	return l < r;
}

static bool le(double l, double r)
{
	return l < r || fabs(l - r) < VC_RESOURCE_MIN;
}

/* Less and LessEqual: every dimension passes cmp. */
static bool all_dims(const struct vc_resource *r, const struct vc_resource *rr,
		     enum vc_resource_default dflt, bool (*cmp)(double, double))
{
	const struct vc_resource_scalar *s;
	size_t i;

	if (!cmp(r->milli_cpu, rr->milli_cpu) || !cmp(r->memory, rr->memory))
		return false;
	if (dflt == VC_RESOURCE_INFINITY) {
		for (i = 0; i < rr->nscalars; i++) {
			if (!scalar_get(r, rr->scalars[i].name))
				return false;
		}
	}
	for (i = 0; i < r->nscalars; i++) {
		s = scalar_get(rr, r->scalars[i].name);
		if (!s && dflt == VC_RESOURCE_INFINITY)
			continue;
		if (!cmp(r->scalars[i].value, s ? s->value : 0))
			return false;
	}
	return true;
}

/* LessPartly and LessEqualPartly: some dimension passes cmp. */
static bool any_dim(const struct vc_resource *r, const struct vc_resource *rr,
		    enum vc_resource_default dflt, bool (*cmp)(double, double))
{
	const struct vc_resource_scalar *s;
	size_t i;

	if (cmp(r->milli_cpu, rr->milli_cpu) || cmp(r->memory, rr->memory))
		return true;
	if (dflt == VC_RESOURCE_ZERO) {
		for (i = 0; i < rr->nscalars; i++) {
			if (!scalar_get(r, rr->scalars[i].name))
				return true;
		}
	}
	for (i = 0; i < r->nscalars; i++) {
		s = scalar_get(rr, r->scalars[i].name);
		if (!s && dflt == VC_RESOURCE_INFINITY)
			return true;
		if (cmp(r->scalars[i].value, s ? s->value : 0))
			return true;
	}
	return false;
}

bool vc_resource_less(const struct vc_resource *r, const struct vc_resource *rr,
		      enum vc_resource_default dflt)
{
	return all_dims(r, rr, dflt, lt);
}

bool vc_resource_less_equal(const struct vc_resource *r, const struct vc_resource *rr,
			    enum vc_resource_default dflt)
{
	return all_dims(r, rr, dflt, le);
}

bool vc_resource_less_partly(const struct vc_resource *r, const struct vc_resource *rr,
			     enum vc_resource_default dflt)
{
	return any_dim(r, rr, dflt, lt);
}

bool vc_resource_less_equal_partly(const struct vc_resource *r, const struct vc_resource *rr,
				   enum vc_resource_default dflt)
{
	return any_dim(r, rr, dflt, le);
}

static bool eq(double l, double r)
{
	return l == r || fabs(l - r) < VC_RESOURCE_MIN;
}

bool vc_resource_equal(const struct vc_resource *r, const struct vc_resource *rr,
		       enum vc_resource_default dflt)
{
	size_t i;

	(void)dflt;
	if (!eq(r->milli_cpu, rr->milli_cpu) || !eq(r->memory, rr->memory))
		return false;
	for (i = 0; i < r->nscalars; i++) {
		if (!eq(r->scalars[i].value, vc_resource_get(rr, r->scalars[i].name)))
			return false;
	}
	return true;
}

size_t vc_resource_names(const struct vc_resource *r, const char **names, size_t cap)
{
	size_t n = 0, i;

	if (r->milli_cpu >= VC_RESOURCE_MIN) {
		if (n < cap)
			names[n] = "cpu";
		n++;
	}
	if (r->memory >= VC_RESOURCE_MIN) {
		if (n < cap)
			names[n] = "memory";
		n++;
	}
	for (i = 0; i < r->nscalars; i++) {
		if (r->scalars[i].value >= VC_RESOURCE_MIN) {
			if (n < cap)
				names[n] = r->scalars[i].name;
			n++;
		}
	}
	return n;
}

static void appendf(char *buf, size_t len, size_t *total, const char *fmt, ...) VC_PRINTF(4, 5);

static void appendf(char *buf, size_t len, size_t *total, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (*total < len)
		n = vsnprintf(buf + *total, len - *total, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*total += (size_t)n;
}

/* Go's %0.2f, whose non-finite forms differ from C's. */
static void append_go_float(char *buf, size_t len, size_t *total, double v)
{
	if (isnan(v))
		appendf(buf, len, total, "NaN");
	else if (isinf(v))
		appendf(buf, len, total, "%s", v > 0 ? "+Inf" : "-Inf");
	else
		appendf(buf, len, total, "%.2f", v);
}

size_t vc_resource_snprint(char *buf, size_t len, const struct vc_resource *r)
{
	size_t total = 0, i;

	if (len)
		buf[0] = '\0';
	appendf(buf, len, &total, "cpu ");
	append_go_float(buf, len, &total, r->milli_cpu);
	appendf(buf, len, &total, ", memory ");
	append_go_float(buf, len, &total, r->memory);
	for (i = 0; i < r->nscalars; i++) {
		appendf(buf, len, &total, ", %s ", r->scalars[i].name);
		append_go_float(buf, len, &total, r->scalars[i].value);
	}
	return total;
}

int vc_resource_format(const struct vc_resource *r, struct vc_buf *out)
{
	size_t n = vc_resource_snprint(NULL, 0, r);
	char *tmp = vc_malloc(n + 1);
	int rc;

	if (!tmp)
		return VC_ENOMEM;
	vc_resource_snprint(tmp, n + 1, r);
	rc = vc_buf_add(out, tmp, n);
	vc_free(tmp);
	return rc;
}

/* Add one ResourceList entry to r, as NewResource does. */
static int add_entry(struct vc_resource *r, const char *name, const struct vc_quantity *q)
{
	if (strcmp(name, "cpu") == 0) {
		r->milli_cpu += (double)vc_quantity_milli_value(q);
		return 0;
	}
	if (strcmp(name, "memory") == 0) {
		r->memory += (double)vc_quantity_value(q);
		return 0;
	}
	if (strcmp(name, PODS) == 0) {
		int64_t v = vc_quantity_value(q);
		int rc = vc_resource_add_scalar(r, name, (double)v);

		if (!rc)
			r->max_task_num += v;
		return rc;
	}
	if (strcmp(name, "ephemeral-storage") == 0)
		return vc_resource_add_scalar(r, name, (double)vc_quantity_milli_value(q));
	if (vc_str_has_prefix(name, "count/") || !vc_resource_is_scalar(name))
		return 0;
	return vc_resource_add_scalar(r, name, (double)vc_quantity_milli_value(q));
}

static int build_from_list(struct vc_resource *tmp, const json_t *list, struct vc_error *err)
{
	const char *name;
	json_t *value;
	int rc;

	if (!json_is_object(list))
		return vc_error_set(err, VC_EINVAL, "a resource list must be a JSON object");
	/* jansson's iterators take a non-const object; nothing here changes it. */
	json_object_foreach ((json_t *)list, name, value) {
		struct vc_quantity q;

		rc = vc_quantity_parse_json(value, &q, err);
		if (rc) {
			vc_error_prefix(err, "resource '%s'", name);
			return rc;
		}
		rc = add_entry(tmp, name, &q);
		if (rc)
			return vc_error_set(err, rc, "out of memory");
	}
	return 0;
}

int vc_resource_from_list(struct vc_resource *r, const json_t *list, struct vc_error *err)
{
	struct vc_resource tmp = VC_RESOURCE_INIT;
	int rc = build_from_list(&tmp, list, err);

	if (rc) {
		vc_resource_release(&tmp);
		return rc;
	}
	vc_resource_release(r);
	*r = tmp;
	return 0;
}

int vc_resource_add_list(struct vc_resource *r, const json_t *list, struct vc_error *err)
{
	struct vc_resource tmp = VC_RESOURCE_INIT;
	int rc = build_from_list(&tmp, list, err);

	if (!rc) {
		rc = vc_resource_add(r, &tmp);
		if (rc)
			vc_error_set(err, rc, "out of memory");
		else
			r->max_task_num += tmp.max_task_num;
	}
	vc_resource_release(&tmp);
	return rc;
}

int vc_resource_list_canonical(const json_t *list, json_t **out, struct vc_error *err)
{
	const char *name;
	json_t *value, *obj;
	int rc;

	*out = NULL;
	if (!json_is_object(list))
		return vc_error_set(err, VC_EINVAL, "a resource list must be a JSON object");
	obj = json_object();
	if (!obj)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_object_foreach ((json_t *)list, name, value) {
		struct vc_quantity q;

		rc = vc_quantity_parse_json(value, &q, err);
		if (rc) {
			vc_error_prefix(err, "resource '%s'", name);
			goto fail;
		}
		if (json_object_set_new(obj, name, vc_quantity_to_json(&q))) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
	}
	*out = obj;
	return 0;
fail:
	json_decref(obj);
	return rc;
}

/* Go's int64(float64) for the values Volcano converts, made total: truncate and saturate. */
static int64_t to_int64(double v)
{
	if (isnan(v))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

static int set_quantity(json_t *obj, const char *name, const struct vc_quantity *q)
{
	return json_object_set_new(obj, name, vc_quantity_to_json(q)) ? VC_ENOMEM : 0;
}

int vc_resource_to_list(const struct vc_resource *r, json_t **out)
{
	struct vc_quantity q;
	json_t *obj;
	size_t i;

	*out = NULL;
	obj = json_object();
	if (!obj)
		return VC_ENOMEM;
	vc_quantity_from_milli(&q, to_int64(r->milli_cpu), VC_QUANTITY_DECIMAL_SI);
	if (set_quantity(obj, "cpu", &q))
		goto fail;
	vc_quantity_from_int64(&q, to_int64(r->memory), VC_QUANTITY_BINARY_SI);
	if (set_quantity(obj, "memory", &q))
		goto fail;
	for (i = 0; i < r->nscalars; i++) {
		int64_t v = to_int64(r->scalars[i].value);

		if (strcmp(r->scalars[i].name, PODS) == 0)
			vc_quantity_from_int64(&q, v, VC_QUANTITY_DECIMAL_SI);
		else
			vc_quantity_from_milli(&q, v, VC_QUANTITY_DECIMAL_SI);
		if (set_quantity(obj, r->scalars[i].name, &q))
			goto fail;
	}
	*out = obj;
	return 0;
fail:
	json_decref(obj);
	return VC_ENOMEM;
}

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* DNS-1123 subdomain: at most 253 bytes of dot-separated [a-z0-9]([-a-z0-9]*[a-z0-9])? labels. */
static bool is_dns1123_subdomain(const char *s, size_t len)
{
	size_t i, start = 0;

	if (len == 0 || len > 253)
		return false;
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.') {
			if (!is_lower_alnum(s[i]) && s[i] != '-')
				return false;
			continue;
		}
		if (i == start || !is_lower_alnum(s[start]) || !is_lower_alnum(s[i - 1]))
			return false;
		start = i + 1;
	}
	return true;
}

/* The name part of a qualified name: 1-63 bytes of ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]. */
static bool is_qualified_name_part(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > 63 || !is_alnum(s[0]) || !is_alnum(s[len - 1]))
		return false;
	for (i = 1; i + 1 < len; i++) {
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	}
	return true;
}

bool vc_resource_is_prefixed_native(const char *name)
{
	return name && strstr(name, "kubernetes.io/") != NULL;
}

bool vc_resource_is_native(const char *name)
{
	return name && (!strchr(name, '/') || vc_resource_is_prefixed_native(name));
}

bool vc_resource_is_hugepages(const char *name)
{
	return name && vc_str_has_prefix(name, "hugepages-");
}

bool vc_resource_is_extended(const char *name)
{
	static const char requests[] = "requests.";
	char prefix[256];
	const char *slash;
	size_t plen;

	if (!name || vc_resource_is_native(name) || vc_str_has_prefix(name, requests))
		return false;
	/* "requests." + name must be a qualified name: exactly one '/'. */
	slash = strchr(name, '/');
	if (strchr(slash + 1, '/'))
		return false;
	plen = (size_t)(slash - name);
	if (plen + sizeof(requests) > sizeof(prefix))
		return false;
	memcpy(prefix, requests, sizeof(requests) - 1);
	memcpy(prefix + sizeof(requests) - 1, name, plen);
	return is_dns1123_subdomain(prefix, sizeof(requests) - 1 + plen) &&
	       is_qualified_name_part(slash + 1, strlen(slash + 1));
}

bool vc_resource_is_scalar(const char *name)
{
	return name && (vc_resource_is_extended(name) || vc_resource_is_hugepages(name) ||
			vc_resource_is_prefixed_native(name) ||
			vc_str_has_prefix(name, "attachable-volumes-"));
}

bool vc_resource_is_integer_resource(const char *name)
{
	static const char *const integer[] = {
		"pods",
		"resourcequotas",
		"services",
		"replicationcontrollers",
		"secrets",
		"configmaps",
		"persistentvolumeclaims",
		"services.nodeports",
		"services.loadbalancers",
	};
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < VC_ARRAY_SIZE(integer); i++) {
		if (strcmp(name, integer[i]) == 0)
			return true;
	}
	return vc_resource_is_extended(name);
}
