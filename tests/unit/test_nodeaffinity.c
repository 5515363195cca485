/*
 * Unit tests for the preferred node affinity terms of vc_nodeaffinity.c (vc_node_prefs): which
 * terms count, how a term matches (the required terms' matcher), and the failures.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_selector.h"

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &jerr);

	if (!j)
		fail_msg("json: %s: %s", jerr.text, text);
	return j;
}

/* The score of terms (JSON text) for a node with labels (JSON text) and name. */
static int64_t score(const char *terms, const char *labels, const char *name)
{
	json_t *t = load(terms), *l = load(labels);
	struct vc_node_prefs *p = NULL;
	struct vc_error err;
	int64_t s;

	vc_error_clear(&err);
	if (vc_node_prefs_new(t, &p, &err) != 0)
		fail_msg("prefs: %s", err.text);
	s = vc_node_prefs_score(p, l, name);
	vc_node_prefs_free(p);
	json_decref(t);
	json_decref(l);
	return s;
}

#define ZONE_A_80                                                                              \
	"{\"weight\":80,\"preference\":{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":" \
	"\"In\",\"values\":[\"a\"]}]}}"
#define GPU_20                                                                                \
	"{\"weight\":20,\"preference\":{\"matchExpressions\":[{\"key\":\"gpu\",\"operator\":" \
	"\"Exists\"}]}}"

static void test_prefs_sum_of_matching_weights(void **state)
{
	static const char terms[] = "[" ZONE_A_80 "," GPU_20 "]";

	(void)state;
	assert_int_equal(score(terms, "{\"zone\":\"a\",\"gpu\":\"t4\"}", "n1"), 100);
	assert_int_equal(score(terms, "{\"zone\":\"a\"}", "n1"), 80);
	assert_int_equal(score(terms, "{\"zone\":\"b\",\"gpu\":\"\"}", "n1"), 20);
	assert_int_equal(score(terms, "{}", "n1"), 0);
	assert_int_equal(score(terms, "null", "n1"), 0);
	/* Every expression of a term must hold (the required terms' AND). */
	assert_int_equal(score("[{\"weight\":7,\"preference\":{\"matchExpressions\":["
			       "{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\"]},"
			       "{\"key\":\"rack\",\"operator\":\"Gt\",\"values\":[\"3\"]}]}}]",
			       "{\"zone\":\"a\",\"rack\":\"3\"}", "n1"),
			 0);
	assert_int_equal(score("[{\"weight\":7,\"preference\":{\"matchExpressions\":["
			       "{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\"]},"
			       "{\"key\":\"rack\",\"operator\":\"Gt\",\"values\":[\"3\"]}]}}]",
			       "{\"zone\":\"a\",\"rack\":\"4\"}", "n1"),
			 7);
}

static void test_prefs_terms_left_out(void **state)
{
	struct vc_node_prefs *p = NULL;
	json_t *t;

	(void)state;
	/* Weight 0, an empty preference and a missing one count for nothing. */
	t = load("[{\"weight\":0,\"preference\":{\"matchExpressions\":[{\"key\":\"zone\","
		 "\"operator\":\"Exists\"}]}},{\"weight\":5,\"preference\":{}},{\"weight\":6}]");
	assert_int_equal(vc_node_prefs_new(t, &p, NULL), 0);
	assert_true(vc_node_prefs_empty(p));
	assert_int_equal(vc_node_prefs_score(p, NULL, "n1"), 0);
	vc_node_prefs_free(p);
	json_decref(t);
	assert_int_equal(vc_node_prefs_new(NULL, &p, NULL), 0);
	assert_true(vc_node_prefs_empty(p));
	vc_node_prefs_free(p);
	assert_true(vc_node_prefs_empty(NULL));
	assert_int_equal(vc_node_prefs_score(NULL, NULL, "n1"), 0);
	vc_node_prefs_free(NULL);
}

static void test_prefs_match_fields(void **state)
{
	static const char terms[] =
		"[{\"weight\":5,\"preference\":{\"matchFields\":[{\"key\":\"metadata.name\","
		"\"operator\":\"In\",\"values\":[\"n1\"]}]}}]";

	(void)state;
	assert_int_equal(score(terms, "{}", "n1"), 5);
	assert_int_equal(score(terms, "{}", "n2"), 0);
	/* Without a node name the fields are not looked at, as for the required terms. */
	assert_int_equal(score(terms, "{}", NULL), 5);
	assert_int_equal(score(terms, "{}", ""), 5);
}

static void test_prefs_invalid(void **state)
{
	struct vc_node_prefs *p = (struct vc_node_prefs *)1;
	struct vc_error err;
	json_t *t;

	(void)state;
	vc_error_clear(&err);
	t = load("[" ZONE_A_80 ",{\"weight\":3,\"preference\":{\"matchExpressions\":[{\"key\":"
		 "\"zone\",\"operator\":\"Foo\",\"values\":[\"a\"]}]}}]");
	assert_int_equal(vc_node_prefs_new(t, &p, &err), VC_EINVALID);
	assert_null(p);
	assert_string_equal(err.text, "[1].preference.matchExpressions[0].operator: Unsupported "
				      "value: \"Foo\": supported values: \"In\", \"NotIn\", "
				      "\"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
	json_decref(t);
}

static void test_prefs_alloc_failures(void **state)
{
	json_t *t = load("[" ZONE_A_80 "," GPU_20
			 ",{\"weight\":5,\"preference\":{\"matchFields\":[{\"key\":"
			 "\"metadata.name\",\"operator\":\"In\",\"values\":[\"n1\"]}]}}]");
	json_t *l = load("{\"zone\":\"a\"}");
	long n, failures;
	int rc;

	(void)state;
	for (n = 0;; n++) {
		struct vc_node_prefs *p = NULL;

		vc_alloc_fail_after(n);
		rc = vc_node_prefs_new(t, &p, NULL);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			assert_int_equal(vc_node_prefs_score(p, l, "n1"), 85);
			vc_node_prefs_free(p);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(p);
	}
	assert_true(n > 2);
	json_decref(t);
	json_decref(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefs_sum_of_matching_weights),
		cmocka_unit_test(test_prefs_terms_left_out),
		cmocka_unit_test(test_prefs_match_fields),
		cmocka_unit_test(test_prefs_invalid),
		cmocka_unit_test(test_prefs_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
