#include "vc_metrics.h"

#include <math.h>
#include <pthread.h>

#include "vc_alloc.h"
#include "vc_strconv.h"

const double vc_metrics_default_buckets[VC_METRICS_DEFAULT_NBUCKETS] = {
	.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10,
};

enum metric_type {
	METRIC_COUNTER,
	METRIC_GAUGE,
	METRIC_HISTOGRAM
};

static const char *const type_names[] = { "counter", "gauge", "histogram" };

/*
 * One series: a tuple of label values and its numbers. It is a single allocation: the struct,
 * then the histogram's per-bucket counts, then the value pointers, then the value strings.
 */
struct series {
	double value;	  /* counter and gauge */
	double sum;	  /* histogram */
	uint64_t count;	  /* histogram */
	uint64_t *counts; /* histogram: nbounds + 1 non-cumulative counts, the last for +Inf */
	char **values;	  /* nlabels strings */
};

struct vc_metric {
	char *name;
	char *help; /* NULL: no HELP line */
	enum metric_type type;
	char **labels;
	size_t nlabels;
	double *bounds; /* histogram upper bounds, without +Inf */
	size_t nbounds;
	pthread_mutex_t lock; /* guards the series and their numbers */
	struct series **series;
	size_t nseries, aseries;
};

struct vc_metrics {
	pthread_mutex_t lock;	    /* guards the metric list */
	struct vc_metric **metrics; /* sorted by name */
	size_t n, alloc;
};

struct vc_metrics *vc_metrics_new(void)
{
	struct vc_metrics *r = vc_calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (pthread_mutex_init(&r->lock, NULL)) {
		vc_free(r);
		return NULL;
	}
	return r;
}

static void metric_free(struct vc_metric *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nseries; i++)
		vc_free(m->series[i]);
	vc_free(m->series);
	for (i = 0; i < m->nlabels; i++)
		vc_free(m->labels[i]);
	vc_free(m->labels);
	vc_free(m->bounds);
	vc_free(m->help);
	vc_free(m->name);
	pthread_mutex_destroy(&m->lock);
	vc_free(m);
}

void vc_metrics_free(struct vc_metrics *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		metric_free(r->metrics[i]);
	vc_free(r->metrics);
	pthread_mutex_destroy(&r->lock);
	vc_free(r);
}

static bool name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (colon && c == ':')
		return true;
	return !first && c >= '0' && c <= '9';
}

static bool valid_name(const char *s, bool colon)
{
	size_t i;

	if (!s || !*s)
		return false;
	for (i = 0; s[i]; i++)
		if (!name_char(s[i], i == 0, colon))
			return false;
	return true;
}

int vc_metrics_format_value(double v, char *buf, size_t len)
{
	/* Go's strconv.FormatFloat(v, 'g', -1, 64), except that a negative zero prints "0". */
	return vc_strconv_format_float_buf(v == 0 ? 0 : v, 'g', buf, len);
}

int vc_metrics_exponential_buckets(double start, double factor, size_t count, double *out)
{
	size_t i;

	if (!out || count < 1 || !(start > 0) || !(factor > 1))
		return VC_EINVAL;
	for (i = 0; i < count; i++) {
		out[i] = start;
		start *= factor;
	}
	return 0;
}

int vc_metrics_exponential_buckets_range(double min, double max, size_t count, double *out)
{
	double factor;
	size_t i;

	if (!out || count < 2 || !(min > 0) || !(max > min) || !isfinite(max))
		return VC_EINVAL;
	factor = pow(max / min, 1.0 / (double)(count - 1));
	for (i = 0; i < count; i++)
		out[i] = min * pow(factor, (double)i);
	return 0;
}

static int check_labels(const char *name, const char *const *labels, bool histogram,
			size_t *nlabels, struct vc_error *err)
{
	size_t i, j;

	for (i = 0; labels && labels[i]; i++) {
		if (!valid_name(labels[i], false) || strncmp(labels[i], "__", 2) == 0)
			return vc_error_set(err, VC_EINVALID,
					    "invalid label name '%s' for metric '%s'", labels[i],
					    name);
		if (histogram && strcmp(labels[i], "le") == 0)
			return vc_error_set(err, VC_EINVALID,
					    "label name 'le' is reserved for histogram '%s'", name);
		for (j = 0; j < i; j++)
			if (strcmp(labels[i], labels[j]) == 0)
				return vc_error_set(err, VC_EINVALID,
						    "duplicate label name '%s' for metric '%s'",
						    labels[i], name);
	}
	*nlabels = i;
	return 0;
}

static int check_buckets(const char *name, const double *b, size_t *n, struct vc_error *err)
{
	char x[32], y[32];
	size_t i;

	if (*n > 0 && isinf(b[*n - 1]) && b[*n - 1] > 0)
		(*n)--;
	for (i = 0; i < *n; i++) {
		if (!isfinite(b[i]) || (i + 1 < *n && !(b[i] < b[i + 1]))) {
			if (vc_metrics_format_value(b[i], x, sizeof(x)) ||
			    vc_metrics_format_value(i + 1 < *n ? b[i + 1] : INFINITY, y, sizeof(y)))
				x[0] = y[0] = '\0';
			return vc_error_set(
				err, VC_EINVALID,
				"histogram buckets must be in increasing order: %s >= %s (for '%s')",
				x, y, name);
		}
	}
	return 0;
}

/* A series for `values` (already counted and checked), zeroed. */
static struct series *series_new(const struct vc_metric *m, const char *const *values)
{
	size_t ncounts = m->type == METRIC_HISTOGRAM ? m->nbounds + 1 : 0;
	size_t size =
		sizeof(struct series) + ncounts * sizeof(uint64_t) + m->nlabels * sizeof(char *);
	struct series *s;
	char *p;
	size_t i, l;

	for (i = 0; i < m->nlabels; i++)
		size += strlen(values[i]) + 1;
	s = vc_calloc(1, size);
	if (!s)
		return NULL;
	s->counts = (uint64_t *)(s + 1);
	s->values = (char **)(s->counts + ncounts);
	p = (char *)(s->values + m->nlabels);
	for (i = 0; i < m->nlabels; i++) {
		l = strlen(values[i]) + 1;
		memcpy(p, values[i], l);
		s->values[i] = p;
		p += l;
	}
	return s;
}

static int series_cmp(const struct vc_metric *m, const char *const *values, const struct series *s)
{
	size_t i;
	int c;

	for (i = 0; i < m->nlabels; i++) {
		/* check_values() guarantees nlabels values; the test keeps the analyzer sure. */
		if (!values[i])
			return -1;
		c = strcmp(values[i], s->values[i]);
		if (c)
			return c;
	}
	return 0;
}

/* Binary search: the index of the series, or where it would go (with *found false). */
static size_t series_find(const struct vc_metric *m, const char *const *values, bool *found)
{
	size_t lo = 0, hi = m->nseries;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = series_cmp(m, values, m->series[mid]);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Find or create a series. Called with the metric's lock held. */
static struct series *series_get(struct vc_metric *m, const char *const *values)
{
	struct series *s;
	bool found;
	size_t at = series_find(m, values, &found);

	if (found)
		return m->series[at];
	if (m->nseries == m->aseries) {
		size_t n = m->aseries ? m->aseries * 2 : 4;
		struct series **a = vc_realloc(m->series, n * sizeof(struct series *));

		if (!a)
			return NULL;
		m->series = a;
		m->aseries = n;
	}
	s = series_new(m, values);
	if (!s)
		return NULL;
	memmove(m->series + at + 1, m->series + at, (m->nseries - at) * sizeof(struct series *));
	m->series[at] = s;
	m->nseries++;
	return s;
}

static const char *const no_values[] = { NULL };

/* Check that values fits the metric: as many as labels, valid UTF-8. */
static int check_values(const struct vc_metric *m, const char *const **values)
{
	size_t i;

	if (!*values)
		*values = no_values;
	for (i = 0; i <= m->nlabels && (*values)[i]; i++)
		if (i < m->nlabels && !vc_utf8_valid((*values)[i], strlen((*values)[i])))
			return VC_EINVAL;
	return i == m->nlabels ? 0 : VC_EINVAL;
}

static int registry_add(struct vc_metrics *r, enum metric_type type, const char *name,
			const char *help, const char *const *labels, const double *buckets,
			size_t nbuckets, struct vc_metric **out, struct vc_error *err)
{
	struct vc_metric *m;
	size_t nlabels = 0, i, lo, hi;
	int rc;

	if (!r || !out)
		return vc_error_set(err, VC_EINVAL, "no registry or output given");
	if (!valid_name(name, true))
		return vc_error_set(err, VC_EINVALID, "invalid metric name '%s'", name ? name : "");
	rc = check_labels(name, labels, type == METRIC_HISTOGRAM, &nlabels, err);
	if (rc)
		return rc;
	if (type == METRIC_HISTOGRAM) {
		if (!buckets || nbuckets == 0) {
			buckets = vc_metrics_default_buckets;
			nbuckets = VC_METRICS_DEFAULT_NBUCKETS;
		}
		rc = check_buckets(name, buckets, &nbuckets, err);
		if (rc)
			return rc;
	}

	m = vc_calloc(1, sizeof(*m));
	if (!m)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (pthread_mutex_init(&m->lock, NULL)) {
		vc_free(m);
		return vc_error_set(err, VC_ENOMEM, "cannot create a lock");
	}
	m->type = type;
	m->name = vc_strdup(name);
	m->help = help ? vc_strdup(help) : NULL;
	m->labels = vc_calloc(nlabels + 1, sizeof(*m->labels));
	if (!m->name || (help && !m->help) || !m->labels)
		goto out_nomem;
	for (i = 0; i < nlabels; i++) {
		m->labels[i] = vc_strdup(labels[i]);
		if (!m->labels[i])
			goto out_nomem;
		m->nlabels++;
	}
	if (type == METRIC_HISTOGRAM && nbuckets > 0) {
		m->bounds = vc_malloc(nbuckets * sizeof(*m->bounds));
		if (!m->bounds)
			goto out_nomem;
		memcpy(m->bounds, buckets, nbuckets * sizeof(*m->bounds));
		m->nbounds = nbuckets;
	}
	/* A metric without labels has its one series from the start. */
	if (nlabels == 0 && !series_get(m, no_values))
		goto out_nomem;

	pthread_mutex_lock(&r->lock);
	lo = 0;
	hi = r->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, r->metrics[mid]->name);

		if (c == 0) {
			pthread_mutex_unlock(&r->lock);
			metric_free(m);
			return vc_error_set(err, VC_EEXIST, "metric '%s' is already registered",
					    name);
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (r->n == r->alloc) {
		size_t n = r->alloc ? r->alloc * 2 : 8;
		struct vc_metric **a = vc_realloc(r->metrics, n * sizeof(struct vc_metric *));

		if (!a) {
			pthread_mutex_unlock(&r->lock);
			goto out_nomem;
		}
		r->metrics = a;
		r->alloc = n;
	}
	memmove(r->metrics + lo + 1, r->metrics + lo, (r->n - lo) * sizeof(struct vc_metric *));
	r->metrics[lo] = m;
	r->n++;
	pthread_mutex_unlock(&r->lock);
	*out = m;
	return 0;

out_nomem:
	metric_free(m);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

int vc_metrics_counter(struct vc_metrics *r, const char *name, const char *help,
		       const char *const *labels, struct vc_metric **out, struct vc_error *err)
{
	return registry_add(r, METRIC_COUNTER, name, help, labels, NULL, 0, out, err);
}

int vc_metrics_gauge(struct vc_metrics *r, const char *name, const char *help,
		     const char *const *labels, struct vc_metric **out, struct vc_error *err)
{
	return registry_add(r, METRIC_GAUGE, name, help, labels, NULL, 0, out, err);
}

int vc_metrics_histogram(struct vc_metrics *r, const char *name, const char *help,
			 const char *const *labels, const double *buckets, size_t nbuckets,
			 struct vc_metric **out, struct vc_error *err)
{
	return registry_add(r, METRIC_HISTOGRAM, name, help, labels, buckets, nbuckets, out, err);
}

enum update_op {
	OP_ADD,
	OP_SET,
	OP_OBSERVE
};

static int metric_update(struct vc_metric *m, const char *const *values, enum update_op op,
			 double v)
{
	struct series *s;
	size_t i;
	int rc;

	if (!m)
		return VC_EINVAL;
	switch (op) {
	case OP_ADD:
		if (m->type == METRIC_HISTOGRAM || (m->type == METRIC_COUNTER && !(v >= 0)))
			return VC_EINVAL;
		break;
	case OP_SET:
		if (m->type != METRIC_GAUGE)
			return VC_EINVAL;
		break;
	case OP_OBSERVE:
		if (m->type != METRIC_HISTOGRAM)
			return VC_EINVAL;
		break;
	}
	rc = check_values(m, &values);
	if (rc)
		return rc;
	pthread_mutex_lock(&m->lock);
	s = series_get(m, values);
	if (!s) {
		pthread_mutex_unlock(&m->lock);
		return VC_ENOMEM;
	}
	switch (op) {
	case OP_ADD:
		s->value += v;
		break;
	case OP_SET:
		s->value = v;
		break;
	case OP_OBSERVE:
		for (i = 0; i < m->nbounds && !(v <= m->bounds[i]); i++)
			;
		s->counts[i]++;
		s->sum += v;
		s->count++;
		break;
	}
	pthread_mutex_unlock(&m->lock);
	return 0;
}

int vc_metric_inc(struct vc_metric *m, const char *const *values)
{
	return metric_update(m, values, OP_ADD, 1);
}

int vc_metric_add(struct vc_metric *m, const char *const *values, double v)
{
	return metric_update(m, values, OP_ADD, v);
}

int vc_metric_set(struct vc_metric *m, const char *const *values, double v)
{
	return metric_update(m, values, OP_SET, v);
}

int vc_metric_observe(struct vc_metric *m, const char *const *values, double v)
{
	return metric_update(m, values, OP_OBSERVE, v);
}

int vc_metric_value(struct vc_metric *m, const char *const *values, double *out)
{
	bool found;
	size_t at;
	int rc;

	if (!m || !out)
		return VC_EINVAL;
	rc = check_values(m, &values);
	if (rc)
		return rc;
	pthread_mutex_lock(&m->lock);
	at = series_find(m, values, &found);
	if (!found)
		*out = 0;
	else if (m->type == METRIC_HISTOGRAM)
		*out = (double)m->series[at]->count;
	else
		*out = m->series[at]->value;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/* Remove series at (its lock held). */
static void series_remove(struct vc_metric *m, size_t at)
{
	vc_free(m->series[at]);
	memmove(m->series + at, m->series + at + 1,
		(m->nseries - at - 1) * sizeof(struct series *));
	m->nseries--;
}

int vc_metric_delete(struct vc_metric *m, const char *const *values)
{
	bool found;
	size_t at;
	int rc;

	if (!m || m->nlabels == 0)
		return VC_EINVAL;
	rc = check_values(m, &values);
	if (rc)
		return rc;
	pthread_mutex_lock(&m->lock);
	at = series_find(m, values, &found);
	if (found)
		series_remove(m, at);
	pthread_mutex_unlock(&m->lock);
	return found ? 1 : 0;
}

int vc_metric_delete_matching(struct vc_metric *m, const char *label, const char *value)
{
	size_t l, i, out;
	int n = 0;

	if (!m || !label || !value || m->nlabels == 0)
		return VC_EINVAL;
	for (l = 0; l < m->nlabels && strcmp(m->labels[l], label) != 0; l++)
		;
	if (l == m->nlabels)
		return 0;
	pthread_mutex_lock(&m->lock);
	for (i = out = 0; i < m->nseries; i++) {
		if (strcmp(m->series[i]->values[l], value) == 0) {
			vc_free(m->series[i]);
			n++;
			continue;
		}
		m->series[out++] = m->series[i];
	}
	m->nseries = out;
	pthread_mutex_unlock(&m->lock);
	return n;
}

size_t vc_metric_series_count(struct vc_metric *m)
{
	size_t n;

	if (!m)
		return 0;
	pthread_mutex_lock(&m->lock);
	n = m->nseries;
	pthread_mutex_unlock(&m->lock);
	return n;
}

/* Append s with backslash and newline escaped, and the double quote too when quote is set. */
static int add_escaped(struct vc_buf *out, const char *s, bool quote)
{
	int rc = 0;

	for (; *s && !rc; s++) {
		if (*s == '\\')
			rc = vc_buf_adds(out, "\\\\");
		else if (*s == '\n')
			rc = vc_buf_adds(out, "\\n");
		else if (quote && *s == '"')
			rc = vc_buf_adds(out, "\\\"");
		else
			rc = vc_buf_addc(out, *s);
	}
	return rc;
}

static int add_value(struct vc_buf *out, double v)
{
	char num[32];

	/* 32 bytes hold any value, so this cannot fail. */
	if (vc_metrics_format_value(v, num, sizeof(num)))
		return VC_EINVAL;
	return vc_buf_adds(out, num);
}

/* One sample line: name+suffix{labels[,le="bound"]} value. le is NULL when not a bucket. */
static int add_sample(struct vc_buf *out, const struct vc_metric *m, const struct series *s,
		      const char *suffix, const double *le, double value)
{
	size_t i;
	int rc;

	if ((rc = vc_buf_adds(out, m->name)) || (rc = vc_buf_adds(out, suffix)))
		return rc;
	if (m->nlabels || le) {
		for (i = 0; i < m->nlabels; i++) {
			if ((rc = vc_buf_addc(out, i ? ',' : '{')) ||
			    (rc = vc_buf_adds(out, m->labels[i])) ||
			    (rc = vc_buf_adds(out, "=\"")) ||
			    (rc = add_escaped(out, s->values[i], true)) ||
			    (rc = vc_buf_addc(out, '"')))
				return rc;
		}
		if (le && ((rc = vc_buf_adds(out, m->nlabels ? ",le=\"" : "{le=\"")) ||
			   (rc = add_value(out, *le)) || (rc = vc_buf_addc(out, '"'))))
			return rc;
		if ((rc = vc_buf_addc(out, '}')))
			return rc;
	}
	if ((rc = vc_buf_addc(out, ' ')) || (rc = add_value(out, value)))
		return rc;
	return vc_buf_addc(out, '\n');
}

static int render_metric(struct vc_buf *out, const struct vc_metric *m)
{
	static const double inf = INFINITY;
	size_t i, j;
	uint64_t cum;
	int rc;

	if (m->nseries == 0)
		return 0;
	if (m->help && ((rc = vc_buf_addf(out, "# HELP %s ", m->name)) ||
			(rc = add_escaped(out, m->help, false)) || (rc = vc_buf_addc(out, '\n'))))
		return rc;
	if ((rc = vc_buf_addf(out, "# TYPE %s %s\n", m->name, type_names[m->type])))
		return rc;
	for (i = 0; i < m->nseries; i++) {
		const struct series *s = m->series[i];

		if (m->type != METRIC_HISTOGRAM) {
			if ((rc = add_sample(out, m, s, "", NULL, s->value)))
				return rc;
			continue;
		}
		cum = 0;
		for (j = 0; j < m->nbounds; j++) {
			cum += s->counts[j];
			if ((rc = add_sample(out, m, s, "_bucket", &m->bounds[j], (double)cum)))
				return rc;
		}
		if ((rc = add_sample(out, m, s, "_bucket", &inf, (double)s->count)) ||
		    (rc = add_sample(out, m, s, "_sum", NULL, s->sum)) ||
		    (rc = add_sample(out, m, s, "_count", NULL, (double)s->count)))
			return rc;
	}
	return 0;
}

int vc_metrics_render(struct vc_metrics *r, struct vc_buf *out)
{
	size_t start, i;
	int rc = 0;

	if (!r || !out)
		return VC_EINVAL;
	start = out->len;
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < r->n && !rc; i++) {
		pthread_mutex_lock(&r->metrics[i]->lock);
		rc = render_metric(out, r->metrics[i]);
		pthread_mutex_unlock(&r->metrics[i]->lock);
	}
	pthread_mutex_unlock(&r->lock);
	if (rc)
		vc_buf_truncate(out, start);
	return rc;
}
