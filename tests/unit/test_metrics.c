/* Unit tests for vc_metrics: registration, updates and the exact Prometheus text output. */
#include "vc_prelude.h"

#include <math.h>
#include <pthread.h>

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_metrics.h"

static void expect_format(double v, const char *want)
{
	char buf[32];

	assert_int_equal(vc_metrics_format_value(v, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void test_format_value(void **state)
{
	char small[4] = "xyz";

	(void)state;
	expect_format(0, "0");
	expect_format(-0.0, "0");
	expect_format(1, "1");
	expect_format(-1, "-1");
	expect_format(3, "3");
	expect_format(0.1, "0.1");
	expect_format(-0.5, "-0.5");
	expect_format(2.5, "2.5");
	expect_format(100, "100");
	expect_format(12345.678, "12345.678");
	expect_format(123456, "123456");
	expect_format(999999, "999999");
	expect_format(1000000, "1e+06");
	expect_format(1234567, "1.234567e+06");
	expect_format(0.0001, "0.0001");
	expect_format(0.00001, "1e-05");
	expect_format(1.5e-7, "1.5e-07");
	expect_format(1e21, "1e+21");
	expect_format(1e100, "1e+100");
	expect_format(0.1 + 0.2, "0.30000000000000004");
	expect_format(5e-324, "5e-324");
	expect_format(1.7976931348623157e308, "1.7976931348623157e+308");
	expect_format(NAN, "NaN");
	expect_format(INFINITY, "+Inf");
	expect_format(-INFINITY, "-Inf");
	assert_int_equal(vc_metrics_format_value(1234567, small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	assert_int_equal(vc_metrics_format_value(12, small, sizeof(small)), 0);
	assert_string_equal(small, "12");
}

/* Render r and compare with want exactly. */
static void expect_render(struct vc_metrics *r, const char *want)
{
	struct vc_buf b;

	vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
	assert_int_equal(vc_metrics_render(r, &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
}

static void test_counter_and_gauge(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *c, *g, *syncs;
	static const char *const labels[] = { "queue", "phase", NULL };
	static const char *const v1[] = { "default", "Running", NULL };
	static const char *const v2[] = { "batch", "Pending", NULL };
	double d;

	(void)state;
	assert_non_null(r);
	/* An empty registry renders nothing. */
	expect_render(r, "");
	assert_int_equal(
		vc_metrics_counter(r, "vc_job_syncs_total", "Job syncs.", NULL, &syncs, NULL), 0);
	assert_int_equal(
		vc_metrics_gauge(r, "vc_queue_jobs", "Jobs per queue and phase.", labels, &g, NULL),
		0);
	assert_int_equal(vc_metrics_counter(r, "a_first_total", NULL, NULL, &c, NULL), 0);
	/* Label-less metrics render their 0 at once; a labelled one with no series not at all. */
	expect_render(r, "# TYPE a_first_total counter\n"
			 "a_first_total 0\n"
			 "# HELP vc_job_syncs_total Job syncs.\n"
			 "# TYPE vc_job_syncs_total counter\n"
			 "vc_job_syncs_total 0\n");
	assert_int_equal(vc_metric_inc(syncs, NULL), 0);
	assert_int_equal(vc_metric_add(syncs, NULL, 2.5), 0);
	assert_int_equal(vc_metric_add(syncs, NULL, 0), 0);
	assert_int_equal(vc_metric_set(g, v1, 3), 0);
	assert_int_equal(vc_metric_inc(g, v1), 0);
	assert_int_equal(vc_metric_add(g, v2, -2), 0);
	assert_int_equal(vc_metric_add(c, NULL, 1e6), 0);
	expect_render(r, "# TYPE a_first_total counter\n"
			 "a_first_total 1e+06\n"
			 "# HELP vc_job_syncs_total Job syncs.\n"
			 "# TYPE vc_job_syncs_total counter\n"
			 "vc_job_syncs_total 3.5\n"
			 "# HELP vc_queue_jobs Jobs per queue and phase.\n"
			 "# TYPE vc_queue_jobs gauge\n"
			 "vc_queue_jobs{queue=\"batch\",phase=\"Pending\"} -2\n"
			 "vc_queue_jobs{queue=\"default\",phase=\"Running\"} 4\n");
	assert_int_equal(vc_metric_value(g, v1, &d), 0);
	assert_true(d == 4);
	assert_int_equal(vc_metric_value(syncs, NULL, &d), 0);
	assert_true(d == 3.5);
	/* Reading a series that does not exist does not create it. */
	{
		static const char *const v3[] = { "none", "x", NULL };

		assert_int_equal(vc_metric_value(g, v3, &d), 0);
		assert_true(d == 0);
	}
	expect_render(r, "# TYPE a_first_total counter\n"
			 "a_first_total 1e+06\n"
			 "# HELP vc_job_syncs_total Job syncs.\n"
			 "# TYPE vc_job_syncs_total counter\n"
			 "vc_job_syncs_total 3.5\n"
			 "# HELP vc_queue_jobs Jobs per queue and phase.\n"
			 "# TYPE vc_queue_jobs gauge\n"
			 "vc_queue_jobs{queue=\"batch\",phase=\"Pending\"} -2\n"
			 "vc_queue_jobs{queue=\"default\",phase=\"Running\"} 4\n");
	vc_metrics_free(r);
}

static void test_histogram(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *h, *lat;
	static const double b[] = { 0.1, 1, 10, INFINITY };
	static const char *const labels[] = { "action", NULL };
	static const char *const alloc[] = { "allocate", NULL };
	static const char *const enq[] = { "enqueue", NULL };
	double d;

	(void)state;
	/* A trailing +Inf bound is accepted and not doubled. */
	assert_int_equal(vc_metrics_histogram(r, "vc_action_seconds", "Action latency.", labels, b,
					      4, &h, NULL),
			 0);
	assert_int_equal(vc_metric_observe(h, alloc, 0.05), 0);
	assert_int_equal(vc_metric_observe(h, alloc, 0.1), 0); /* le is inclusive */
	assert_int_equal(vc_metric_observe(h, alloc, 5), 0);
	assert_int_equal(vc_metric_observe(h, alloc, 1000), 0);
	assert_int_equal(vc_metric_observe(h, enq, 0.5), 0);
	assert_int_equal(vc_metric_value(h, alloc, &d), 0);
	assert_true(d == 4);
	/* Default buckets, no labels. */
	assert_int_equal(vc_metrics_histogram(r, "e2e_seconds", NULL, NULL, NULL, 0, &lat, NULL),
			 0);
	assert_int_equal(vc_metric_observe(lat, NULL, 0.3), 0);
	expect_render(r, "# TYPE e2e_seconds histogram\n"
			 "e2e_seconds_bucket{le=\"0.005\"} 0\n"
			 "e2e_seconds_bucket{le=\"0.01\"} 0\n"
			 "e2e_seconds_bucket{le=\"0.025\"} 0\n"
			 "e2e_seconds_bucket{le=\"0.05\"} 0\n"
			 "e2e_seconds_bucket{le=\"0.1\"} 0\n"
			 "e2e_seconds_bucket{le=\"0.25\"} 0\n"
			 "e2e_seconds_bucket{le=\"0.5\"} 1\n"
			 "e2e_seconds_bucket{le=\"1\"} 1\n"
			 "e2e_seconds_bucket{le=\"2.5\"} 1\n"
			 "e2e_seconds_bucket{le=\"5\"} 1\n"
			 "e2e_seconds_bucket{le=\"10\"} 1\n"
			 "e2e_seconds_bucket{le=\"+Inf\"} 1\n"
			 "e2e_seconds_sum 0.3\n"
			 "e2e_seconds_count 1\n"
			 "# HELP vc_action_seconds Action latency.\n"
			 "# TYPE vc_action_seconds histogram\n"
			 "vc_action_seconds_bucket{action=\"allocate\",le=\"0.1\"} 2\n"
			 "vc_action_seconds_bucket{action=\"allocate\",le=\"1\"} 2\n"
			 "vc_action_seconds_bucket{action=\"allocate\",le=\"10\"} 3\n"
			 "vc_action_seconds_bucket{action=\"allocate\",le=\"+Inf\"} 4\n"
			 "vc_action_seconds_sum{action=\"allocate\"} 1005.15\n"
			 "vc_action_seconds_count{action=\"allocate\"} 4\n"
			 "vc_action_seconds_bucket{action=\"enqueue\",le=\"0.1\"} 0\n"
			 "vc_action_seconds_bucket{action=\"enqueue\",le=\"1\"} 1\n"
			 "vc_action_seconds_bucket{action=\"enqueue\",le=\"10\"} 1\n"
			 "vc_action_seconds_bucket{action=\"enqueue\",le=\"+Inf\"} 1\n"
			 "vc_action_seconds_sum{action=\"enqueue\"} 0.5\n"
			 "vc_action_seconds_count{action=\"enqueue\"} 1\n");
	vc_metrics_free(r);
}

static void test_escaping(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *g;
	static const char *const labels[] = { "path", NULL };
	static const char *const v[] = { "C:\\dir \"quoted\"\nnext ü", NULL };

	(void)state;
	assert_int_equal(vc_metrics_gauge(r, "odd:name_1",
					  "Help with \\ and \"quotes\"\nand a line.", labels, &g,
					  NULL),
			 0);
	assert_int_equal(vc_metric_set(g, v, 1), 0);
	/* HELP escapes backslash and newline only; label values also the double quote. */
	expect_render(r, "# HELP odd:name_1 Help with \\\\ and \"quotes\"\\nand a line.\n"
			 "# TYPE odd:name_1 gauge\n"
			 "odd:name_1{path=\"C:\\\\dir \\\"quoted\\\"\\nnext ü\"} 1\n");
	vc_metrics_free(r);
}

static void test_series_order(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *c, *z;
	static const char *const labels[] = { "a", "b", NULL };
	static const char *const v[][3] = {
		{ "y", "1", NULL }, { "x", "2", NULL },	 { "y", "0", NULL },
		{ "", "9", NULL },  { "x", "10", NULL },
	};
	size_t i;

	(void)state;
	assert_int_equal(vc_metrics_counter(r, "zz_total", "", NULL, &z, NULL), 0);
	assert_int_equal(vc_metrics_counter(r, "m_total", "h", labels, &c, NULL), 0);
	for (i = 0; i < VC_ARRAY_SIZE(v); i++)
		assert_int_equal(vc_metric_add(c, v[i], (double)i), 0);
	/* An empty help still writes a HELP line, as client_golang does. */
	expect_render(r, "# HELP m_total h\n"
			 "# TYPE m_total counter\n"
			 "m_total{a=\"\",b=\"9\"} 3\n"
			 "m_total{a=\"x\",b=\"10\"} 4\n"
			 "m_total{a=\"x\",b=\"2\"} 1\n"
			 "m_total{a=\"y\",b=\"0\"} 2\n"
			 "m_total{a=\"y\",b=\"1\"} 0\n"
			 "# HELP zz_total \n"
			 "# TYPE zz_total counter\n"
			 "zz_total 0\n");
	vc_metrics_free(r);
}

/* Deleting series: exact tuples, partial matches by one label, and re-creation from zero. */
static void test_delete(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *g, *h, *plain;
	static const char *const labels[] = { "queue_name", "resource", NULL };
	static const char *const one[] = { "job", NULL };
	static const char *const qa_gpu[] = { "a", "nvidia.com/gpu", NULL };
	static const char *const qa_x[] = { "a", "x", NULL };
	static const char *const qb_gpu[] = { "b", "nvidia.com/gpu", NULL };
	static const char *const j1[] = { "j1", NULL };
	static const char *const short_values[] = { "a", NULL };
	double b[] = { 1, 10 }, d;

	(void)state;
	assert_int_equal(vc_metrics_gauge(r, "q_scalar", "Scalar.", labels, &g, NULL), 0);
	assert_int_equal(vc_metrics_histogram(r, "lat", "Lat.", one, b, 2, &h, NULL), 0);
	assert_int_equal(vc_metrics_counter(r, "plain_total", "P.", NULL, &plain, NULL), 0);
	assert_int_equal(vc_metric_set(g, qa_gpu, 2000), 0);
	assert_int_equal(vc_metric_set(g, qa_x, 1), 0);
	assert_int_equal(vc_metric_set(g, qb_gpu, 3000), 0);
	assert_int_equal(vc_metric_observe(h, j1, 5), 0);
	assert_int_equal(vc_metric_series_count(g), 3);

	/* Exact delete: 1 when present, 0 when absent, errors for bad input. */
	assert_int_equal(vc_metric_delete(g, qa_x), 1);
	assert_int_equal(vc_metric_delete(g, qa_x), 0);
	assert_int_equal(vc_metric_delete(g, short_values), VC_EINVAL);
	assert_int_equal(vc_metric_delete(plain, NULL), VC_EINVAL);
	assert_int_equal(vc_metric_delete(NULL, qa_x), VC_EINVAL);
	assert_int_equal(vc_metric_delete(h, j1), 1);
	assert_int_equal(vc_metric_series_count(h), 0);

	/* Partial: every series of queue "a", none of an unknown label. */
	assert_int_equal(vc_metric_set(g, qa_x, 1), 0);
	assert_int_equal(vc_metric_delete_matching(g, "nope", "a"), 0);
	assert_int_equal(vc_metric_delete_matching(g, "queue_name", "a"), 2);
	assert_int_equal(vc_metric_delete_matching(g, "queue_name", "a"), 0);
	assert_int_equal(vc_metric_delete_matching(plain, "x", "y"), VC_EINVAL);
	assert_int_equal(vc_metric_series_count(g), 1);
	assert_int_equal(vc_metric_value(g, qa_gpu, &d), 0);
	assert_true(d == 0);
	expect_render(r, "# HELP plain_total P.\n"
			 "# TYPE plain_total counter\n"
			 "plain_total 0\n"
			 "# HELP q_scalar Scalar.\n"
			 "# TYPE q_scalar gauge\n"
			 "q_scalar{queue_name=\"b\",resource=\"nvidia.com/gpu\"} 3000\n");

	/* A deleted histogram series comes back from zero. */
	assert_int_equal(vc_metric_observe(h, j1, 20), 0);
	assert_int_equal(vc_metric_delete_matching(g, "resource", "nvidia.com/gpu"), 1);
	expect_render(r, "# HELP lat Lat.\n"
			 "# TYPE lat histogram\n"
			 "lat_bucket{job=\"j1\",le=\"1\"} 0\n"
			 "lat_bucket{job=\"j1\",le=\"10\"} 0\n"
			 "lat_bucket{job=\"j1\",le=\"+Inf\"} 1\n"
			 "lat_sum{job=\"j1\"} 20\n"
			 "lat_count{job=\"j1\"} 1\n"
			 "# HELP plain_total P.\n"
			 "# TYPE plain_total counter\n"
			 "plain_total 0\n");
	vc_metrics_free(r);
}

/* client_golang's ExponentialBucketsRange, and Volcano's scheduler buckets built with it. */
static void test_exponential_buckets_range(void **state)
{
	double b[30];
	char x[32];

	(void)state;
	assert_int_equal(vc_metrics_exponential_buckets_range(1, 8, 4, b), 0);
	assert_true(fabs(b[0] - 1) < 1e-12 && fabs(b[1] - 2) < 1e-12 && fabs(b[2] - 4) < 1e-12 &&
		    fabs(b[3] - 8) < 1e-12);
	/* ExponentialBucketsRange(1, 5000, 20): the first and last bounds are min and max. */
	assert_int_equal(vc_metrics_exponential_buckets_range(1, 5000, 20, b), 0);
	assert_true(b[0] == 1);
	assert_true(fabs(b[19] - 5000) < 1e-9);
	for (size_t i = 1; i < 20; i++)
		assert_true(b[i] > b[i - 1]);
	assert_int_equal(vc_metrics_format_value(b[1], x, sizeof(x)), 0);
	assert_string_equal(x, "1.5656065579430964");
	assert_int_equal(vc_metrics_exponential_buckets_range(1, 5000, 1, b), VC_EINVAL);
	assert_int_equal(vc_metrics_exponential_buckets_range(0, 5000, 3, b), VC_EINVAL);
	assert_int_equal(vc_metrics_exponential_buckets_range(10, 10, 3, b), VC_EINVAL);
	assert_int_equal(vc_metrics_exponential_buckets_range(1, 10, 3, NULL), VC_EINVAL);
}

static void expect_register_error(struct vc_metrics *r, int kind, const char *name,
				  const char *const *labels, const double *b, size_t nb, int code,
				  const char *msg)
{
	struct vc_metric *m = (struct vc_metric *)r; /* must stay untouched */
	struct vc_error err;
	int rc;

	vc_error_clear(&err);
	if (kind == 0)
		rc = vc_metrics_counter(r, name, "h", labels, &m, &err);
	else if (kind == 1)
		rc = vc_metrics_gauge(r, name, "h", labels, &m, &err);
	else
		rc = vc_metrics_histogram(r, name, "h", labels, b, nb, &m, &err);
	assert_int_equal(rc, code);
	assert_int_equal(err.code, code);
	assert_string_equal(err.text, msg);
	assert_ptr_equal(m, (struct vc_metric *)r);
}

static void test_registration_errors(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *m;
	static const char *const bad1[] = { "ok", "1st", NULL };
	static const char *const bad2[] = { "__reserved", NULL };
	static const char *const bad3[] = { "a:b", NULL };
	static const char *const dup[] = { "x", "y", "x", NULL };
	static const char *const le[] = { "le", NULL };
	static const double unordered[] = { 1, 2, 2 };
	static const double nan_bound[] = { 1, NAN };
	static const double neg_inf[] = { -INFINITY, 1 };

	(void)state;
	expect_register_error(r, 0, "1abc", NULL, NULL, 0, VC_EINVALID,
			      "invalid metric name '1abc'");
	expect_register_error(r, 1, "with-dash", NULL, NULL, 0, VC_EINVALID,
			      "invalid metric name 'with-dash'");
	expect_register_error(r, 0, "", NULL, NULL, 0, VC_EINVALID, "invalid metric name ''");
	expect_register_error(r, 0, NULL, NULL, NULL, 0, VC_EINVALID, "invalid metric name ''");
	expect_register_error(r, 0, "m", bad1, NULL, 0, VC_EINVALID,
			      "invalid label name '1st' for metric 'm'");
	expect_register_error(r, 1, "m", bad2, NULL, 0, VC_EINVALID,
			      "invalid label name '__reserved' for metric 'm'");
	expect_register_error(r, 1, "m", bad3, NULL, 0, VC_EINVALID,
			      "invalid label name 'a:b' for metric 'm'");
	expect_register_error(r, 0, "m", dup, NULL, 0, VC_EINVALID,
			      "duplicate label name 'x' for metric 'm'");
	expect_register_error(r, 2, "h", le, NULL, 0, VC_EINVALID,
			      "label name 'le' is reserved for histogram 'h'");
	expect_register_error(r, 2, "h", NULL, unordered, 3, VC_EINVALID,
			      "histogram buckets must be in increasing order: 2 >= 2 (for 'h')");
	expect_register_error(r, 2, "h", NULL, nan_bound, 2, VC_EINVALID,
			      "histogram buckets must be in increasing order: 1 >= NaN (for 'h')");
	expect_register_error(r, 2, "h", NULL, neg_inf, 2, VC_EINVALID,
			      "histogram buckets must be in increasing order: -Inf >= 1 (for 'h')");
	/* "le" is an ordinary label on a gauge. */
	assert_int_equal(vc_metrics_gauge(r, "m", NULL, le, &m, NULL), 0);
	expect_register_error(r, 0, "m", NULL, NULL, 0, VC_EEXIST,
			      "metric 'm' is already registered");
	expect_register_error(r, 2, "m", NULL, NULL, 0, VC_EEXIST,
			      "metric 'm' is already registered");
	assert_int_equal(vc_metrics_counter(NULL, "x", NULL, NULL, &m, NULL), VC_EINVAL);
	assert_int_equal(vc_metrics_counter(r, "x", NULL, NULL, NULL, NULL), VC_EINVAL);
	/* Only the one good registration is in the registry (it has no series yet). */
	expect_render(r, "");
	vc_metrics_free(r);
}

static void test_update_errors(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *c, *g, *h;
	static const char *const labels[] = { "a", "b", NULL };
	static const char *const one[] = { "x", NULL };
	static const char *const two[] = { "x", "y", NULL };
	static const char *const three[] = { "x", "y", "z", NULL };
	static const char *const bad_utf8[] = { "x", "\xc3\x28", NULL };
	static const char *const overlong[] = { "x", "\xc0\xaf", NULL };
	static const char *const surrogate[] = { "x", "\xed\xa0\x80", NULL };
	static const char *const empty[] = { NULL };
	double d;

	(void)state;
	assert_int_equal(vc_metrics_counter(r, "c", NULL, labels, &c, NULL), 0);
	assert_int_equal(vc_metrics_gauge(r, "g", NULL, NULL, &g, NULL), 0);
	assert_int_equal(vc_metrics_histogram(r, "h", NULL, NULL, NULL, 0, &h, NULL), 0);
	assert_int_equal(vc_metric_inc(c, one), VC_EINVAL);
	assert_int_equal(vc_metric_inc(c, three), VC_EINVAL);
	assert_int_equal(vc_metric_inc(c, NULL), VC_EINVAL);
	assert_int_equal(vc_metric_inc(c, bad_utf8), VC_EINVAL);
	assert_int_equal(vc_metric_inc(c, overlong), VC_EINVAL);
	assert_int_equal(vc_metric_inc(c, surrogate), VC_EINVAL);
	assert_int_equal(vc_metric_add(c, two, -1), VC_EINVAL);
	assert_int_equal(vc_metric_add(c, two, NAN), VC_EINVAL);
	assert_int_equal(vc_metric_set(c, two, 1), VC_EINVAL);
	assert_int_equal(vc_metric_observe(c, two, 1), VC_EINVAL);
	assert_int_equal(vc_metric_observe(g, NULL, 1), VC_EINVAL);
	assert_int_equal(vc_metric_inc(g, one), VC_EINVAL);
	assert_int_equal(vc_metric_inc(h, NULL), VC_EINVAL);
	assert_int_equal(vc_metric_set(h, NULL, 1), VC_EINVAL);
	assert_int_equal(vc_metric_inc(NULL, NULL), VC_EINVAL);
	assert_int_equal(vc_metric_value(c, one, &d), VC_EINVAL);
	assert_int_equal(vc_metric_value(c, two, NULL), VC_EINVAL);
	/* NULL and an empty array both mean "no labels". */
	assert_int_equal(vc_metric_add(g, empty, -7), 0);
	assert_int_equal(vc_metric_add(c, two, 2), 0);
	expect_render(r, "# TYPE c counter\n"
			 "c{a=\"x\",b=\"y\"} 2\n"
			 "# TYPE g gauge\n"
			 "g -7\n"
			 "# TYPE h histogram\n"
			 "h_bucket{le=\"0.005\"} 0\n"
			 "h_bucket{le=\"0.01\"} 0\n"
			 "h_bucket{le=\"0.025\"} 0\n"
			 "h_bucket{le=\"0.05\"} 0\n"
			 "h_bucket{le=\"0.1\"} 0\n"
			 "h_bucket{le=\"0.25\"} 0\n"
			 "h_bucket{le=\"0.5\"} 0\n"
			 "h_bucket{le=\"1\"} 0\n"
			 "h_bucket{le=\"2.5\"} 0\n"
			 "h_bucket{le=\"5\"} 0\n"
			 "h_bucket{le=\"10\"} 0\n"
			 "h_bucket{le=\"+Inf\"} 0\n"
			 "h_sum 0\n"
			 "h_count 0\n");
	vc_metrics_free(r);
}

static void test_exponential_buckets(void **state)
{
	double b[10];
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *h;

	(void)state;
	/* Volcano's scheduler latency buckets: ExponentialBuckets(5, 2, 10) milliseconds. */
	assert_int_equal(vc_metrics_exponential_buckets(5, 2, 10, b), 0);
	assert_true(b[0] == 5 && b[1] == 10 && b[9] == 2560);
	assert_int_equal(vc_metrics_exponential_buckets(0, 2, 10, b), VC_EINVAL);
	assert_int_equal(vc_metrics_exponential_buckets(1, 1, 10, b), VC_EINVAL);
	assert_int_equal(vc_metrics_exponential_buckets(1, 2, 0, b), VC_EINVAL);
	assert_int_equal(vc_metrics_exponential_buckets(1, NAN, 3, b), VC_EINVAL);
	assert_int_equal(vc_metrics_histogram(r, "ms", NULL, NULL, b, 3, &h, NULL), 0);
	assert_int_equal(vc_metric_observe(h, NULL, 7), 0);
	assert_int_equal(vc_metric_observe(h, NULL, NAN), 0);
	expect_render(r, "# TYPE ms histogram\n"
			 "ms_bucket{le=\"5\"} 0\n"
			 "ms_bucket{le=\"10\"} 1\n"
			 "ms_bucket{le=\"20\"} 1\n"
			 "ms_bucket{le=\"+Inf\"} 2\n"
			 "ms_sum NaN\n"
			 "ms_count 2\n");
	vc_metrics_free(r);
}

static void test_render_cap(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	struct vc_metric *c;
	struct vc_buf b;

	(void)state;
	assert_int_equal(vc_metrics_counter(r, "requests_total", "Requests.", NULL, &c, NULL), 0);
	vc_buf_init(&b, 40);
	assert_int_equal(vc_buf_adds(&b, "keep"), 0);
	assert_int_equal(vc_metrics_render(r, &b), VC_E2BIG);
	assert_string_equal(vc_buf_str(&b), "keep");
	vc_buf_release(&b);
	assert_int_equal(vc_metrics_render(r, NULL), VC_EINVAL);
	vc_metrics_free(r);
}

/* Registration, updates and rendering each survive any allocation failing. */
static void test_alloc_failure(void **state)
{
	static const char *const labels[] = { "code", NULL };
	static const char *const v200[] = { "200", NULL };
	static const char *const v500[] = { "500", NULL };
	static const double bounds[] = { 1, 2 };
	static const char *const want = "# HELP req_seconds Latency.\n"
					"# TYPE req_seconds histogram\n"
					"req_seconds_bucket{code=\"200\",le=\"1\"} 0\n"
					"req_seconds_bucket{code=\"200\",le=\"2\"} 1\n"
					"req_seconds_bucket{code=\"200\",le=\"+Inf\"} 1\n"
					"req_seconds_sum{code=\"200\"} 1.5\n"
					"req_seconds_count{code=\"200\"} 1\n"
					"# HELP req_total Requests.\n"
					"# TYPE req_total counter\n"
					"req_total{code=\"200\"} 1\n"
					"req_total{code=\"500\"} 1\n";
	bool clean = false;
	long n;

	(void)state;
	for (n = 0; !clean; n++) {
		struct vc_metrics *r;
		struct vc_metric *c = NULL, *h = NULL;
		struct vc_buf b;
		int rc;

		vc_alloc_fail_after(n);
		r = vc_metrics_new();
		if (!r) {
			vc_alloc_fail_reset();
			continue;
		}
		rc = vc_metrics_counter(r, "req_total", "Requests.", labels, &c, NULL);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		rc = vc_metrics_histogram(r, "req_seconds", "Latency.", labels, bounds, 2, &h,
					  NULL);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		if (c) {
			rc = vc_metric_inc(c, v200);
			assert_true(rc == 0 || rc == VC_ENOMEM);
			rc = vc_metric_inc(c, v500);
			assert_true(rc == 0 || rc == VC_ENOMEM);
		}
		if (h) {
			rc = vc_metric_observe(h, v200, 1.5);
			assert_true(rc == 0 || rc == VC_ENOMEM);
		}
		vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
		rc = vc_metrics_render(r, &b);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		if (rc)
			assert_int_equal(b.len, 0);
		clean = vc_alloc_failures() == 0;
		vc_alloc_fail_reset();
		if (clean)
			assert_string_equal(vc_buf_str(&b), want);
		vc_buf_release(&b);
		vc_metrics_free(r);
	}
	assert_true(n > 10);
}

#define THREADS 4
#define ROUNDS	20000

struct hammer {
	struct vc_metric *c, *h;
	int id;
};

static void *hammer_main(void *arg)
{
	struct hammer *hm = arg;
	static const char *const even[] = { "even", NULL };
	static const char *const odd[] = { "odd", NULL };
	int i;

	for (i = 0; i < ROUNDS; i++) {
		if (vc_metric_inc(hm->c, (i + hm->id) % 2 ? odd : even))
			return hm;
		if (vc_metric_observe(hm->h, NULL, (double)(i % 4)))
			return hm;
	}
	return NULL;
}

static void test_concurrent_updates(void **state)
{
	struct vc_metrics *r = vc_metrics_new();
	static const char *const labels[] = { "parity", NULL };
	static const char *const even[] = { "even", NULL };
	static const double bounds[] = { 0, 1, 2 };
	struct hammer hm[THREADS];
	pthread_t t[THREADS];
	struct vc_buf b;
	void *res;
	double d;
	int i;

	(void)state;
	assert_int_equal(vc_metrics_counter(r, "ops_total", NULL, labels, &hm[0].c, NULL), 0);
	assert_int_equal(vc_metrics_histogram(r, "v", NULL, NULL, bounds, 3, &hm[0].h, NULL), 0);
	for (i = 0; i < THREADS; i++) {
		hm[i] = (struct hammer){ .c = hm[0].c, .h = hm[0].h, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, hammer_main, &hm[i]), 0);
	}
	/* Render while the updates run: it must not disturb them. */
	vc_buf_init(&b, VC_BUF_DEFAULT_MAX);
	for (i = 0; i < 50; i++) {
		assert_int_equal(vc_metrics_render(r, &b), 0);
		vc_buf_reset(&b);
	}
	for (i = 0; i < THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &res), 0);
		assert_null(res);
	}
	assert_int_equal(vc_metric_value(hm[0].c, even, &d), 0);
	assert_true(d == THREADS * ROUNDS / 2);
	assert_int_equal(vc_metrics_render(r, &b), 0);
	assert_string_equal(vc_buf_str(&b), "# TYPE ops_total counter\n"
					    "ops_total{parity=\"even\"} 40000\n"
					    "ops_total{parity=\"odd\"} 40000\n"
					    "# TYPE v histogram\n"
					    "v_bucket{le=\"0\"} 20000\n"
					    "v_bucket{le=\"1\"} 40000\n"
					    "v_bucket{le=\"2\"} 60000\n"
					    "v_bucket{le=\"+Inf\"} 80000\n"
					    "v_sum 120000\n"
					    "v_count 80000\n");
	vc_buf_release(&b);
	vc_metrics_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_value),
		cmocka_unit_test(test_counter_and_gauge),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_series_order),
		cmocka_unit_test(test_registration_errors),
		cmocka_unit_test(test_update_errors),
		cmocka_unit_test(test_exponential_buckets),
		cmocka_unit_test(test_render_cap),
		cmocka_unit_test(test_alloc_failure),
		cmocka_unit_test(test_concurrent_updates),
		cmocka_unit_test(test_delete),
		cmocka_unit_test(test_exponential_buckets_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
