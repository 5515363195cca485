/*
 * vc_metrics.h - a registry of Prometheus counters, gauges and histograms, rendered in the text
 * exposition format 0.0.4 as client_golang's promhttp handler writes it.
 *
 * A metric (a family, in Prometheus' words) has a name, a help text, a type and optionally label
 * names. Each distinct tuple of label values is a child series, created on its first update; a
 * metric without labels has its single series from the start, so it renders (as 0) before any
 * update, while a labelled metric with no series renders nothing, as in client_golang.
 *
 * Rendering is deterministic: metrics sorted by name, series sorted by their label values
 * (compared byte-wise, first label first), labels written in the order they were declared, and
 * numbers written as Go's strconv.FormatFloat(v, 'g', -1, 64) ("1e+06", "0.25", "+Inf", "NaN"),
 * which is what client_golang writes for every sample, counts included.
 *
 * Every function is thread-safe; updates of one metric are serialized by that metric's lock, so
 * a render sees each histogram series consistent. Metrics live as long as their registry.
 *
 * Cost: an update of an existing series takes the metric's lock, a binary search over its series
 * (by label values) and, for a histogram, a walk over its fixed buckets; it never allocates.
 * Only the first update of a new tuple of label values allocates (one block for the series).
 */
#ifndef VC_METRICS_H
#define VC_METRICS_H

#include "vc_prelude.h"

#include "vc_buf.h"
#include "vc_err.h"

struct vc_metrics;
struct vc_metric;

/* The Content-Type of vc_metrics_render's output. */
#define VC_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* client_golang's DefBuckets: .005 .01 .025 .05 .1 .25 .5 1 2.5 5 10 (seconds). */
#define VC_METRICS_DEFAULT_NBUCKETS 11
extern const double vc_metrics_default_buckets[VC_METRICS_DEFAULT_NBUCKETS];

/* A new, empty registry; NULL when out of memory. */
struct vc_metrics *vc_metrics_new(void) VC_WARN_UNUSED;

/* Free the registry and every metric in it. No other thread may use them. NULL is allowed. */
void vc_metrics_free(struct vc_metrics *r);

/*
 * Register a counter, a gauge or a histogram in r and store it in *out (owned by r). name must
 * match [a-zA-Z_:][a-zA-Z0-9_:]*; help may be NULL (no "# HELP" line) and is copied. labels is
 * a NULL-terminated array of label names (NULL for none), each matching [a-zA-Z_][a-zA-Z0-9_]*,
 * not starting with "__", without duplicates, and for a histogram not "le"; they are copied.
 * A histogram's buckets are the finite upper bounds, strictly increasing; a last +Inf bound may
 * be given and is dropped (the +Inf bucket is always there); NULL or 0 buckets means
 * vc_metrics_default_buckets.
 * Errors: VC_EINVALID with err naming the bad name, label or bucket
 *   invalid metric name '<name>'
 *   invalid label name '<label>' for metric '<name>'
 *   duplicate label name '<label>' for metric '<name>'
 *   label name 'le' is reserved for histogram '<name>'
 *   histogram buckets must be in increasing order: <b> >= <next> (for '<name>')
 * VC_EEXIST ("metric '<name>' is already registered"), VC_EINVAL for NULL r or out, VC_ENOMEM.
 * On failure *out is untouched and the registry is unchanged.
 */
int vc_metrics_counter(struct vc_metrics *r, const char *name, const char *help,
		       const char *const *labels, struct vc_metric **out,
		       struct vc_error *err) VC_WARN_UNUSED;
int vc_metrics_gauge(struct vc_metrics *r, const char *name, const char *help,
		     const char *const *labels, struct vc_metric **out,
		     struct vc_error *err) VC_WARN_UNUSED;
int vc_metrics_histogram(struct vc_metrics *r, const char *name, const char *help,
			 const char *const *labels, const double *buckets, size_t nbuckets,
			 struct vc_metric **out, struct vc_error *err) VC_WARN_UNUSED;

/*
 * Fill out[0..count) with start, start*factor, start*factor^2, ... (client_golang's
 * ExponentialBuckets). VC_EINVAL unless count >= 1, start > 0 and factor > 1.
 */
int vc_metrics_exponential_buckets(double start, double factor, size_t count,
				   double *out) VC_WARN_UNUSED;

/*
 * Fill out[0..count) with count bounds growing by a constant factor from min to max, both
 * included (client_golang's ExponentialBucketsRange: min * (max/min)^(i/(count-1))). VC_EINVAL
 * unless count >= 2, min > 0 and max > min.
 */
int vc_metrics_exponential_buckets_range(double min, double max, size_t count,
					 double *out) VC_WARN_UNUSED;

/*
 * Updates. `values` is a NULL-terminated array of label values, one per label name in declared
 * order (NULL or an empty array for a metric without labels); the values are copied when the
 * series is created and must be valid UTF-8. Each returns 0, or:
 *   VC_EINVAL: wrong number of values, invalid UTF-8, the operation does not fit the type, or a
 *              negative or NaN amount added to a counter;
 *   VC_ENOMEM: the series did not exist and could not be created (nothing changed).
 * vc_metric_inc: counter or gauge + 1.
 * vc_metric_add: counter (v >= 0) or gauge (any v) + v.
 * vc_metric_set: gauge = v.
 * vc_metric_observe: histogram: count the observation in the first bucket whose bound >= v
 *                    (+Inf otherwise), add it to the sum, and count it.
 */
int vc_metric_inc(struct vc_metric *m, const char *const *values) VC_WARN_UNUSED;
int vc_metric_add(struct vc_metric *m, const char *const *values, double v) VC_WARN_UNUSED;
int vc_metric_set(struct vc_metric *m, const char *const *values, double v) VC_WARN_UNUSED;
int vc_metric_observe(struct vc_metric *m, const char *const *values, double v) VC_WARN_UNUSED;

/*
 * Read a series without creating it: a counter's or gauge's value, a histogram's count of
 * observations. A series that does not exist reads as 0. VC_EINVAL for a wrong number of
 * values or a NULL out.
 */
int vc_metric_value(struct vc_metric *m, const char *const *values, double *out) VC_WARN_UNUSED;

/*
 * Forget series, so that they no longer render (client_golang's DeleteLabelValues and
 * DeletePartialMatch). vc_metric_delete removes the series of exactly `values` and returns 1,
 * or 0 when there was none. vc_metric_delete_matching removes every series whose label `label`
 * has the value `value` and returns how many it removed (0 when the metric has no such label).
 * A later update creates the series again, from zero. Both return VC_EINVAL for a NULL metric,
 * a metric without labels (its one series always renders), or, for vc_metric_delete, a wrong
 * number of values. Neither allocates.
 */
int vc_metric_delete(struct vc_metric *m, const char *const *values) VC_WARN_UNUSED;
int vc_metric_delete_matching(struct vc_metric *m, const char *label,
			      const char *value) VC_WARN_UNUSED;

/* How many series m has (1 for a metric without labels); 0 for NULL. */
size_t vc_metric_series_count(struct vc_metric *m);

/*
 * Append every metric of r to out in the text format 0.0.4 (see the top of this file):
 *   # HELP <name> <help, with \ and newline escaped>
 *   # TYPE <name> counter|gauge|histogram
 *   <name>{<label>="<value, with \ " and newline escaped>",...} <value>
 *   <name>_bucket{...,le="<bound>"} <cumulative count>   (each bound, then le="+Inf")
 *   <name>_sum{...} <sum>
 *   <name>_count{...} <count>
 * Returns 0, or VC_E2BIG / VC_ENOMEM from the buffer, in which case out is as it was.
 */
int vc_metrics_render(struct vc_metrics *r, struct vc_buf *out) VC_WARN_UNUSED;

/*
 * Write v as Go's strconv.FormatFloat(v, 'g', -1, 64) with client_golang's spellings of the
 * special values ("+Inf", "-Inf", "NaN", and "0" for -0). 32 bytes always suffice; returns 0,
 * or VC_E2BIG when len is too small (buf then holds "" if len > 0).
 */
int vc_metrics_format_value(double v, char *buf, size_t len);

#endif /* VC_METRICS_H */
