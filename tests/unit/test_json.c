/* Unit tests for vc_json: bounded parsing, typed getters, paths, pointers, equality, dumps. */
#include "vc_prelude.h"

#include <math.h>
#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_json.h"

#include "support/json_test.h"

static const char k8s_job[] =
	"{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"metadata\":{\"name\":\"j1\",\"namespace\":\"ns\",\"labels\":{\"app\":\"web\"},"
	"\"annotations\":{\"volcano.sh/job-name\":\"j1\",\"x.y/z\":\"dots\","
	"\"say\\\"hi\":\"quoted\"}},"
	"\"spec\":{\"minAvailable\":2,\"ratio\":1.5,\"suspend\":false,\"tasks\":["
	"{\"name\":\"ps\",\"replicas\":1,\"template\":{\"spec\":{\"containers\":["
	"{\"name\":\"c0\"},{\"name\":\"c1\",\"image\":\"busybox\"}]}}},"
	"{\"name\":\"worker\",\"replicas\":3.0}]}}";

static void test_parse_object_and_array(void **state)
{
	struct vc_error err;
	json_t *v;

	(void)state;
	assert_int_equal(vc_json_parse("{\"a\":[1,2]}", 11, 100, &v, &err), 0);
	assert_dump(v, "{\"a\":[1,2]}");
	json_decref(v);
	/* Not NUL-terminated: only len bytes are read. */
	assert_int_equal(vc_json_parse("[true]xxxx", 6, 100, &v, &err), 0);
	assert_dump(v, "[true]");
	json_decref(v);
	/* Exactly at the cap is allowed. */
	assert_int_equal(vc_json_parse("[1]", 3, 3, &v, &err), 0);
	json_decref(v);
}

static void test_parse_rejects_scalar_top_level(void **state)
{
	struct vc_error err;
	json_t *v = (json_t *)1;

	(void)state;
	assert_int_equal(vc_json_parse("true", 4, 0, &v, &err), VC_EPARSE);
	assert_null(v);
	assert_int_equal(err.code, VC_EPARSE);
	assert_string_equal(err.text, "'[' or '{' expected near 'true'");
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 4);
	assert_int_equal(err.position, 4);
	assert_int_equal(vc_json_parse_flags("true", 4, 0, VC_JSON_PARSE_ANY, &v, &err), 0);
	assert_true(json_is_true(v));
	assert_int_equal(vc_json_parse_flags("\"s\"", 3, 0, VC_JSON_PARSE_ANY, &v, &err), 0);
	assert_string_equal(json_string_value(v), "s");
	json_decref(v);
	assert_int_equal(vc_json_parse("", 0, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "'[' or '{' expected near end of file");
}

static void test_parse_cap(void **state)
{
	struct vc_error err;
	json_t *v = (json_t *)1;

	(void)state;
	assert_int_equal(vc_json_parse("[1,2,3]", 7, 6, &v, &err), VC_E2BIG);
	assert_null(v);
	assert_int_equal(err.code, VC_E2BIG);
	assert_string_equal(err.text, "JSON body of 7 bytes exceeds the limit of 6 bytes");
	/* The cap is checked before the bytes are looked at. */
	assert_int_equal(vc_json_parse("not json at all", 15, 4, &v, &err), VC_E2BIG);
	/* cap 0: the 3 MiB default. */
	assert_int_equal(vc_json_parse("[]", VC_JSON_DEFAULT_CAP + 1, 0, &v, &err), VC_E2BIG);
	assert_string_equal(err.text,
			    "JSON body of 3145729 bytes exceeds the limit of 3145728 bytes");
}

static void test_parse_duplicate_keys(void **state)
{
	const char *in = "{\"a\":1,\"a\":2}";
	struct vc_error err;
	json_t *v;

	(void)state;
	assert_int_equal(vc_json_parse(in, strlen(in), 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "duplicate object key near '\"a\"'");
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, 10);
	assert_int_equal(err.position, 10);
}

static void test_parse_error_position(void **state)
{
	const char *in = "{\"a\":\n  tru}";
	struct vc_error err;
	json_t *v;

	(void)state;
	assert_int_equal(vc_json_parse(in, strlen(in), 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "invalid token near 'tru'");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 5);
	assert_int_equal(err.position, 11);
	/* Columns count characters, positions count bytes. */
	in = "{\"\xc3\xa9\xc3\xa9\": tru}";
	assert_int_equal(vc_json_parse(in, strlen(in), 0, &v, &err), VC_EPARSE);
	assert_int_equal(err.column, 10);
	assert_int_equal(err.position, 12);
}

static void test_parse_trailing_bytes_and_nul(void **state)
{
	static const char with_nul[] = "{\"a\":1}\0";
	static const char nul_in_string[] = "{\"a\":\"x\0y\"}";
	struct vc_error err;
	json_t *v;

	(void)state;
	assert_int_equal(vc_json_parse("{\"a\":1}x", 8, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "end of file expected near 'x'");
	assert_int_equal(err.column, 8);
	assert_int_equal(vc_json_parse(with_nul, 8, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "end of file expected near end of file");
	assert_int_equal(vc_json_parse(nul_in_string, 11, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "control character 0x0 near '\"x'");
	assert_int_equal(vc_json_parse("{\"a\":\"\\u0000\"}", 14, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text,
			    "\\u0000 is not allowed without JSON_ALLOW_NUL near '\"\\u0000\"'");
	assert_int_equal(vc_json_parse("[99999999999999999999]", 22, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "too big integer near '99999999999999999999'");
}

static void test_parse_depth_limit(void **state)
{
	size_t n = 3000;
	char *deep = vc_malloc(2 * n);
	struct vc_error err;
	json_t *v;

	(void)state;
	assert_non_null(deep);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	/* 2048 levels parse; 2049 fail cleanly at the 2049th bracket. */
	assert_int_equal(vc_json_parse(deep + n - 2048, (size_t)2 * 2048, 0, &v, &err), 0);
	json_decref(v);
	assert_int_equal(vc_json_parse(deep + n - 2049, (size_t)2 * 2049, 0, &v, &err), VC_EPARSE);
	assert_string_equal(err.text, "maximum parsing depth reached near '['");
	assert_int_equal(err.column, 2049);
	assert_int_equal(vc_json_parse(deep, 2 * n, 0, &v, &err), VC_EPARSE);
	assert_int_equal(err.position, 2049);
	vc_free(deep);
}

static void test_parse_bad_arguments(void **state)
{
	struct vc_error err;
	json_t *v = (json_t *)1;

	(void)state;
	assert_int_equal(vc_json_parse(NULL, 3, 0, &v, &err), VC_EINVAL);
	assert_null(v);
	assert_string_equal(err.text, "no JSON input to parse");
	assert_int_equal(vc_json_parse("[]", 2, 0, NULL, NULL), VC_EINVAL);
	/* A NULL buffer of length 0 is an empty body. */
	assert_int_equal(vc_json_parse(NULL, 0, 0, &v, &err), VC_EPARSE);
}

static void test_parse_alloc_failures(void **state)
{
	struct vc_error err;
	long n, failures, nomem = 0;
	json_t *v;
	int rc;

	(void)state;
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_json_parse(k8s_job, strlen(k8s_job), 0, &v, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_string_equal(vc_json_get_str(v, "kind"), "Job");
			json_decref(v);
			if (failures == 0)
				break;
			continue;
		}
		assert_null(v);
		/* jansson folds a failed string allocation into a syntax error. */
		if (rc == VC_ENOMEM) {
			assert_string_equal(err.text, "out of memory");
			nomem++;
		} else {
			assert_int_equal(rc, VC_EPARSE);
		}
	}
	assert_true(n > 10);
	assert_true(nomem > n / 2);
}

static void test_getters(void **state)
{
	json_t *job = parse(k8s_job), *spec = vc_json_get_obj(job, "spec");

	(void)state;
	assert_string_equal(vc_json_get_str(job, "kind"), "Job");
	assert_null(vc_json_get_str(job, "spec"));
	assert_null(vc_json_get_str(job, "missing"));
	assert_null(vc_json_get_str(NULL, "kind"));
	assert_null(vc_json_get_str(job, NULL));
	assert_non_null(spec);
	assert_int_equal(vc_json_get_int(spec, "minAvailable", -1), 2);
	assert_int_equal(vc_json_get_int(spec, "ratio", -1), -1);
	assert_int_equal(vc_json_get_int(spec, "suspend", -1), -1);
	assert_int_equal(vc_json_get_int(NULL, "minAvailable", 7), 7);
	assert_false(vc_json_get_bool(spec, "suspend", true));
	assert_true(vc_json_get_bool(spec, "minAvailable", true));
	assert_true(vc_json_get_bool(spec, "missing", true));
	assert_true(vc_json_get_number(spec, "ratio", 0) == 1.5);
	assert_true(vc_json_get_number(spec, "minAvailable", 0) == 2.0);
	assert_true(vc_json_get_number(spec, "suspend", -3.0) == -3.0);
	assert_non_null(vc_json_get_arr(spec, "tasks"));
	assert_null(vc_json_get_arr(job, "metadata"));
	assert_null(vc_json_get_obj(spec, "tasks"));
	assert_null(vc_json_get_obj(vc_json_get_arr(spec, "tasks"), "name"));
	/* A getter on a scalar or an array behaves as if the member were absent. */
	assert_int_equal(vc_json_get_int(vc_json_get_arr(spec, "tasks"), "replicas", 9), 9);
	json_decref(job);
}

static void test_get_int_from_real(void **state)
{
	json_t *o = parse("{\"a\":3.0,\"b\":3.5,\"c\":1e300,\"d\":-9223372036854775808.0,"
			  "\"e\":9223372036854775808.0,\"f\":-0.0,\"g\":9223372036854775807}");

	(void)state;
	assert_int_equal(vc_json_get_int(o, "a", -1), 3);
	assert_int_equal(vc_json_get_int(o, "b", -1), -1);
	assert_int_equal(vc_json_get_int(o, "c", -1), -1);
	assert_true(vc_json_get_int(o, "d", -1) == INT64_MIN);
	/* 2^63 does not fit. */
	assert_int_equal(vc_json_get_int(o, "e", -1), -1);
	assert_int_equal(vc_json_get_int(o, "f", -1), 0);
	assert_true(vc_json_get_int(o, "g", -1) == INT64_MAX);
	json_decref(o);
}

static void test_path_dotted(void **state)
{
	json_t *job = parse(k8s_job);

	(void)state;
	assert_ptr_equal(vc_json_path(job, ""), job);
	assert_string_equal(json_string_value(vc_json_path(job, "metadata.labels.app")), "web");
	assert_true(json_is_object(vc_json_path(job, "metadata.labels")));
	assert_string_equal(json_string_value(vc_json_path(
				    job, "spec.tasks[0].template.spec.containers[1].name")),
			    "c1");
	assert_string_equal(json_string_value(vc_json_path(job, "spec.tasks[1].name")), "worker");
	assert_null(vc_json_path(job, "spec.tasks[2].name"));
	assert_null(vc_json_path(job, "spec.tasks.name"));
	assert_null(vc_json_path(job, "spec[0]"));
	assert_null(vc_json_path(job, "kind.x"));
	assert_null(vc_json_path(job, "kind[0]"));
	assert_null(vc_json_path(NULL, "kind"));
	assert_null(vc_json_path(job, NULL));
	json_decref(job);
}

static void test_path_bracketed_keys(void **state)
{
	json_t *job = parse(k8s_job), *arr = parse("[[1,{\"a.b\":[5]}]]");

	(void)state;
	assert_string_equal(json_string_value(vc_json_path(
				    job, "metadata.annotations[\"volcano.sh/job-name\"]")),
			    "j1");
	assert_string_equal(json_string_value(vc_json_path(job, "metadata.annotations['x.y/z']")),
			    "dots");
	assert_string_equal(json_string_value(vc_json_path(job, "metadata.annotations['say\"hi']")),
			    "quoted");
	assert_string_equal(json_string_value(vc_json_path(job, "[\"kind\"]")), "Job");
	assert_string_equal(json_string_value(vc_json_path(job, "['metadata'][\"name\"]")), "j1");
	assert_null(vc_json_path(job, "metadata.annotations[\"x.y\"]"));
	/* A leading index on an array root, and a quoted key after an index. */
	assert_int_equal(json_integer_value(vc_json_path(arr, "[0][1][\"a.b\"][0]")), 5);
	assert_int_equal(json_integer_value(vc_json_path(arr, "[0][0]")), 1);
	json_decref(arr);
	json_decref(job);
}

static void test_path_malformed(void **state)
{
	static const char *const bad[] = {
		"metadata.",
		".metadata",
		"metadata..name",
		"metadata[",
		"spec.tasks[x]",
		"spec.tasks[0",
		"spec.tasks[-1]",
		"metadata[\"name]",
		"metadata[\"name\"",
		"spec.tasks[0]name",
		"spec.[0]",
		"metadata['name\"]",
		"spec.tasks[99999999999999999999999]",
		"metadata[]",
		"[",
	};
	json_t *job = parse(k8s_job);
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(bad); i++) {
		if (vc_json_path(job, bad[i]))
			fail_msg("path '%s' resolved", bad[i]);
	}
	json_decref(job);
}

static void test_set_path_new(void **state)
{
	json_t *root =
		parse("{\"metadata\":{\"name\":\"j\"},\"spec\":{\"tasks\":[{\"name\":\"a\"}]}}");

	(void)state;
	assert_int_equal(vc_json_set_path_new(root, "metadata.labels.app", json_string("web")), 0);
	assert_int_equal(vc_json_set_path_new(root, "metadata.annotations[\"volcano.sh/queue\"]",
					      json_string("q")),
			 0);
	assert_int_equal(vc_json_set_path_new(root, "metadata.name", json_string("k")), 0);
	assert_int_equal(vc_json_set_path_new(root, "spec.tasks[0].replicas", json_integer(2)), 0);
	assert_int_equal(
		vc_json_set_path_new(root, "spec.tasks[1]", json_pack("{s:s}", "name", "b")), 0);
	assert_int_equal(vc_json_set_path_new(root, "spec.tasks[0].name", json_string("a0")), 0);
	assert_int_equal(vc_json_set_path_new(root, "a.b.c.d", json_true()), 0);
	assert_dump(root,
		    "{\"a\":{\"b\":{\"c\":{\"d\":true}}},"
		    "\"metadata\":{\"annotations\":{\"volcano.sh/queue\":\"q\"},"
		    "\"labels\":{\"app\":\"web\"},\"name\":\"k\"},"
		    "\"spec\":{\"tasks\":[{\"name\":\"a0\",\"replicas\":2},{\"name\":\"b\"}]}}");
	json_decref(root);
}

static void test_set_path_new_errors_leave_root_unchanged(void **state)
{
	static const char orig[] = "{\"a\":{\"s\":\"x\",\"arr\":[1,2]}}";
	json_t *root = parse(orig);
	char *s;

	(void)state;
	/* Crossing a scalar, or the wrong kind of container. */
	assert_int_equal(vc_json_set_path_new(root, "a.s.t", json_true()), VC_EINVALID);
	assert_int_equal(vc_json_set_path_new(root, "a[0]", json_true()), VC_EINVALID);
	assert_int_equal(vc_json_set_path_new(root, "a.arr.x", json_true()), VC_EINVALID);
	assert_int_equal(vc_json_set_path_new(root, "a.s[0]", json_true()), VC_EINVALID);
	/* Past the end of an array (== size appends, see above), or an array to be created. */
	assert_int_equal(vc_json_set_path_new(root, "a.arr[3]", json_true()), VC_ENOENT);
	assert_int_equal(vc_json_set_path_new(root, "a.arr[5].x", json_true()), VC_ENOENT);
	assert_int_equal(vc_json_set_path_new(root, "new.list[0]", json_true()), VC_ENOENT);
	assert_int_equal(vc_json_set_path_new(root, "new.x.list[0].y", json_true()), VC_ENOENT);
	/* Malformed: nothing is created even when the head of the path is fine. */
	assert_int_equal(vc_json_set_path_new(root, "new.x..y", json_true()), VC_EINVAL);
	assert_int_equal(vc_json_set_path_new(root, "", json_true()), VC_EINVAL);
	assert_int_equal(vc_json_set_path_new(root, NULL, json_true()), VC_EINVAL);
	assert_int_equal(vc_json_set_path_new(NULL, "a", json_true()), VC_EINVAL);
	assert_int_equal(vc_json_set_path_new(root, "a", NULL), VC_EINVAL);
	assert_int_equal(vc_json_set_path_new(root, "new[\"\xff\"]", json_true()), VC_EINVAL);
	s = vc_json_dumps_sorted(root);
	assert_string_equal(s, "{\"a\":{\"arr\":[1,2],\"s\":\"x\"}}");
	vc_free(s);
	json_decref(root);
}

static void test_set_path_new_alloc_failures(void **state)
{
	json_t *root, *value;
	long n, failures;
	int rc;

	(void)state;
	for (n = 0;; n++) {
		root = parse("{\"metadata\":{\"name\":\"j\"}}");
		value = json_string("v");
		vc_alloc_fail_after(n);
		rc = vc_json_set_path_new(root, "metadata.annotations.x.y.z", value);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_dump(root,
				    "{\"metadata\":{\"annotations\":{\"x\":{\"y\":{\"z\":\"v\"}}},"
				    "\"name\":\"j\"}}");
		} else {
			assert_int_equal(rc, VC_ENOMEM);
			assert_dump(root, "{\"metadata\":{\"name\":\"j\"}}");
		}
		json_decref(root);
		if (rc == 0 && failures == 0)
			break;
	}
	assert_true(n > 3);
}

static void test_pointer_rfc6901_examples(void **state)
{
	json_t *doc = parse("{\"foo\":[\"bar\",\"baz\"],\"\":0,\"a/b\":1,\"c%d\":2,\"e^f\":3,"
			    "\"g|h\":4,\"i\\\\j\":5,\"k\\\"l\":6,\" \":7,\"m~n\":8}");

	(void)state;
	assert_ptr_equal(vc_json_pointer_get(doc, ""), doc);
	assert_dump(vc_json_pointer_get(doc, "/foo"), "[\"bar\",\"baz\"]");
	assert_string_equal(json_string_value(vc_json_pointer_get(doc, "/foo/0")), "bar");
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/")), 0);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/a~1b")), 1);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/c%d")), 2);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/e^f")), 3);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/g|h")), 4);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/i\\j")), 5);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/k\"l")), 6);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/ ")), 7);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/m~0n")), 8);
	json_decref(doc);
}

static void test_pointer_get_misses(void **state)
{
	json_t *doc = parse("{\"foo\":[\"bar\",\"baz\"],\"~1\":10,\"/\":9,\"m~n\":8}");

	(void)state;
	/* "~01" is "~1", never "/": escapes are undone left to right in one pass. */
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/~01")), 10);
	assert_int_equal(json_integer_value(vc_json_pointer_get(doc, "/~1")), 9);
	assert_null(vc_json_pointer_get(doc, "foo"));
	assert_null(vc_json_pointer_get(doc, "/m~2n"));
	assert_null(vc_json_pointer_get(doc, "/m~"));
	assert_null(vc_json_pointer_get(doc, "/foo/01"));
	assert_null(vc_json_pointer_get(doc, "/foo/-"));
	assert_null(vc_json_pointer_get(doc, "/foo/2"));
	assert_null(vc_json_pointer_get(doc, "/foo/0/x"));
	assert_null(vc_json_pointer_get(doc, "/foo/ 1"));
	assert_null(vc_json_pointer_get(doc, "/missing"));
	assert_null(vc_json_pointer_get(doc, "/m~0n/"));
	assert_null(vc_json_pointer_get(NULL, ""));
	assert_null(vc_json_pointer_get(doc, NULL));
	json_decref(doc);
}

static void test_pointer_escape(void **state)
{
	struct vc_buf b;

	(void)state;
	vc_buf_init(&b, 0);
	assert_int_equal(vc_buf_addc(&b, '/'), 0);
	assert_int_equal(vc_json_pointer_escape("volcano.sh/job~name", &b), 0);
	assert_int_equal(vc_buf_addc(&b, '/'), 0);
	assert_int_equal(vc_json_pointer_escape("", &b), 0);
	assert_int_equal(vc_buf_addc(&b, '/'), 0);
	assert_int_equal(vc_json_pointer_escape("~/", &b), 0);
	assert_string_equal(vc_buf_str(&b), "/volcano.sh~1job~0name//~0~1");
	vc_buf_release(&b);
	vc_buf_init(&b, 4);
	assert_int_equal(vc_json_pointer_escape("a/b", &b), VC_E2BIG);
	vc_buf_release(&b);
	assert_int_equal(vc_json_pointer_escape(NULL, &b), VC_EINVAL);
}

static void test_pointer_split(void **state)
{
	struct vc_error err;
	char **tok;
	size_t n;

	(void)state;
	assert_int_equal(vc_json_pointer_split("/spec/tasks/0/a~1b~0c", &tok, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(tok[0], "spec");
	assert_string_equal(tok[1], "tasks");
	assert_string_equal(tok[2], "0");
	assert_string_equal(tok[3], "a/b~c");
	vc_free(tok);
	assert_int_equal(vc_json_pointer_split("", &tok, &n, &err), 0);
	assert_int_equal(n, 0);
	vc_free(tok);
	assert_int_equal(vc_json_pointer_split("//", &tok, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(tok[0], "");
	assert_string_equal(tok[1], "");
	vc_free(tok);

	assert_int_equal(vc_json_pointer_split("a/b", &tok, &n, &err), VC_EINVAL);
	assert_null(tok);
	assert_string_equal(err.text,
			    "invalid JSON pointer 'a/b': must be empty or start with '/'");
	assert_int_equal(err.position, 0);
	assert_int_equal(err.column, 1);
	assert_int_equal(vc_json_pointer_split("/ab/c~2", &tok, &n, &err), VC_EINVAL);
	assert_string_equal(err.text,
			    "invalid JSON pointer '/ab/c~2': '~' must be followed by '0' or '1'");
	assert_int_equal(err.position, 5);
	assert_int_equal(err.column, 6);
	assert_int_equal(vc_json_pointer_split("/x~", &tok, &n, &err), VC_EINVAL);
	assert_int_equal(err.position, 2);

	vc_alloc_fail_after(0);
	assert_int_equal(vc_json_pointer_split("/a", &tok, &n, &err), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_null(tok);
	assert_string_equal(err.text, "out of memory");
}

static void test_pointer_index(void **state)
{
	size_t v = 99;

	(void)state;
	assert_int_equal(vc_json_pointer_index("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(vc_json_pointer_index("105", &v), 0);
	assert_int_equal(v, 105);
	assert_int_equal(vc_json_pointer_index("18446744073709551615", &v), 0);
	assert_true(v == SIZE_MAX);
	assert_int_equal(vc_json_pointer_index("18446744073709551616", &v), VC_ERANGE);
	assert_int_equal(vc_json_pointer_index("01", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index("00", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index("-", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index("", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index("+1", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index(" 1", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index("1e2", &v), VC_EINVAL);
	assert_int_equal(vc_json_pointer_index(NULL, &v), VC_EINVAL);
}

static void test_equal_numbers(void **state)
{
	static const struct {
		const char *a, *b;
		bool equal;
	} cases[] = {
		{ "1", "1.0", true },
		{ "1.0", "1", true },
		{ "1", "1.5", false },
		{ "0", "-0.0", true },
		{ "2", "2", true },
		{ "2.5", "2.5", true },
		{ "2", "3", false },
		/* 2^53 + 1 has no double: the real below it is a different number. */
		{ "9007199254740993", "9007199254740992.0", false },
		{ "9007199254740992", "9007199254740992.0", true },
		{ "9223372036854775807", "9223372036854775808.0", false },
		{ "1", "true", false },
		{ "0", "false", false },
		{ "0", "null", false },
		{ "\"1\"", "1", false },
		{ "{\"a\":[1,{\"b\":2.0}]}", "{\"a\":[1.0,{\"b\":2}]}", true },
	};
	json_t *a, *b;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		a = parse(cases[i].a);
		b = parse(cases[i].b);
		if (vc_json_equal(a, b) != cases[i].equal)
			fail_msg("vc_json_equal(%s, %s) != %d", cases[i].a, cases[i].b,
				 cases[i].equal);
		json_decref(a);
		json_decref(b);
	}
}

static void test_equal_structures(void **state)
{
	static const struct {
		const char *a, *b;
		bool equal;
	} cases[] = {
		{ "{\"a\":1,\"b\":2}", "{\"b\":2,\"a\":1}", true },
		{ "{\"a\":1,\"b\":2}", "{\"a\":1}", false },
		{ "{\"a\":1}", "{\"b\":1}", false },
		{ "[1,2]", "[2,1]", false },
		{ "[1,2]", "[1,2,3]", false },
		{ "[]", "{}", false },
		{ "\"ab\"", "\"abc\"", false },
		{ "\"ab\"", "\"ab\"", true },
		{ "null", "null", true },
		{ "true", "false", false },
		{ "[[[]]]", "[[[]]]", true },
	};
	json_t *a, *b, *s1, *s2;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		a = parse(cases[i].a);
		b = parse(cases[i].b);
		if (vc_json_equal(a, b) != cases[i].equal)
			fail_msg("vc_json_equal(%s, %s) != %d", cases[i].a, cases[i].b,
				 cases[i].equal);
		json_decref(a);
		json_decref(b);
	}
	/* Strings compare by length and bytes, so embedded NULs count. */
	s1 = json_stringn("a\0b", 3);
	s2 = json_stringn("a\0c", 3);
	assert_false(vc_json_equal(s1, s2));
	assert_true(vc_json_equal(s1, s1));
	assert_false(vc_json_equal(s1, NULL));
	assert_false(vc_json_equal(NULL, NULL));
	json_decref(s1);
	json_decref(s2);
}

static void test_dumps_sorted(void **state)
{
	json_t *v = parse("{\"b\":[true,null,{\"z\":1,\"y\":\"\xc3\xa9\"}],\"a\":1.5,\"c\":\"/\"}");
	json_t *s = parse("\"x\"");

	(void)state;
	assert_dump(v, "{\"a\":1.5,\"b\":[true,null,{\"y\":\"\xc3\xa9\",\"z\":1}],\"c\":\"/\"}");
	assert_dump(s, "\"x\"");
	assert_null(vc_json_dumps_sorted(NULL));
	json_decref(v);
	json_decref(s);
}

static void test_dumps_sorted_alloc_failures(void **state)
{
	json_t *job = parse(k8s_job);
	char *s, *want = vc_json_dumps_sorted(job);
	long n, failures;

	(void)state;
	assert_non_null(want);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		s = vc_json_dumps_sorted(job);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (s) {
			assert_string_equal(s, want);
			vc_free(s);
			if (failures == 0)
				break;
		}
	}
	assert_true(n > 0);
	vc_free(want);
	json_decref(job);
}

/* ---- vc_json_dump: differential against jansson's json_dump_callback ---------------------- */

#define DUMP_ANY    (JSON_COMPACT | JSON_ENCODE_ANY)
#define DUMP_SORTED (JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS)

static int jansson_sink(const char *buffer, size_t size, void *data)
{
	return vc_buf_add(data, buffer, size) ? -1 : 0;
}

/*
 * vc_json_dump(v, flags) appended after a prefix must give the prefix and jansson's bytes, or,
 * where jansson fails, VC_EINVAL and the prefix alone. Returns vc_json_dump's result.
 */
static int check_dump(const json_t *v, size_t flags)
{
	static const char prefix[] = "pre:";
	struct vc_buf want, got;
	int jrc, rc;

	vc_buf_init(&want, 0);
	vc_buf_init(&got, 0);
	jrc = json_dump_callback(v, jansson_sink, &want, flags);
	assert_int_equal(vc_buf_add(&got, prefix, 4), 0);
	rc = vc_json_dump(v, flags, &got);
	if (jrc) {
		assert_int_equal(rc, VC_EINVAL);
		assert_int_equal(got.len, 4);
		assert_string_equal(vc_buf_str(&got), prefix);
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(got.len, 4 + want.len);
		assert_memory_equal(got.data + 4, want.data, want.len);
		assert_int_equal(got.data[got.len], '\0');
	}
	vc_buf_release(&want);
	vc_buf_release(&got);
	return rc;
}

/* check_dump for both flag sets, and the output of the sorted one is expected (NULL: fails). */
static void check_dump_is(const json_t *v, const char *expected)
{
	struct vc_buf got;
	int rc;

	rc = check_dump(v, DUMP_ANY);
	assert_int_equal(check_dump(v, DUMP_SORTED), rc);
	vc_buf_init(&got, 0);
	rc = vc_json_dump(v, DUMP_SORTED, &got);
	if (!expected) {
		assert_int_equal(rc, VC_EINVAL);
	} else {
		assert_int_equal(rc, 0);
		assert_string_equal(vc_buf_str(&got), expected);
	}
	vc_buf_release(&got);
}

/* The string s[0..n) as a value, as a key, and as a key among others (both orders). */
static void check_string_everywhere(const char *s, size_t n)
{
	json_t *str = json_stringn_nocheck(s, n), *obj = json_object(), *arr = json_array();

	assert_non_null(str);
	assert_non_null(obj);
	assert_non_null(arr);
	check_dump(str, DUMP_ANY);
	assert_int_equal(json_object_set_new_nocheck(obj, "m", json_integer(1)), 0);
	assert_int_equal(json_object_setn_nocheck(obj, s, n, json_true()), 0);
	assert_int_equal(json_object_set_new_nocheck(obj, "a", json_null()), 0);
	check_dump(obj, DUMP_ANY);
	check_dump(obj, DUMP_SORTED);
	assert_int_equal(json_array_append(arr, str), 0);
	assert_int_equal(json_array_append(arr, obj), 0);
	check_dump(arr, DUMP_ANY);
	check_dump(arr, DUMP_SORTED);
	json_decref(arr);
	json_decref(obj);
	json_decref(str);
}

static void test_dump_escapes(void **state)
{
	static const char *const texts[] = {
		"",
		"plain",
		"q\"uote",
		"back\\slash",
		"sl/ash",
		"</script>",
		"\b\f\n\r\t",
		"del\x7f",
		"mix \"a\\b\"\n\x01\x1f end",
		"\xc3\xa9t\xc3\xa9",
		"\xe2\x82\xac 3-byte",
		"\xf0\x9f\x98\x80 4-byte",
		"\xef\xbf\xbf\xf4\x8f\xbf\xbf",
		"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xf0\x90\x80\x80",
	};
	json_t *v;
	char c[4];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(texts); i++)
		check_string_everywhere(texts[i], strlen(texts[i]));
	/* every control character alone, after text and before text */
	for (i = 0; i < 0x20; i++) {
		c[0] = 'x';
		c[1] = (char)i;
		c[2] = 'y';
		check_string_everywhere(c + 1, 1);
		check_string_everywhere(c, 3);
	}
	/* what jansson writes, spelled out: upper-case \u00XX, '/' and DEL as they are */
	v = json_stringn("\x01\x1f\x7f/\"\\\b\f\n\r\t\xc3\xa9", 13);
	check_dump_is(v, "\"\\u0001\\u001F\x7f/\\\"\\\\\\b\\f\\n\\r\\t\xc3\xa9\"");
	json_decref(v);
}

static void test_dump_invalid_utf8(void **state)
{
	static const char *const bad[] = {
		"\x80",		    /* a continuation byte first */
		"ok\xc0\x80",	    /* overlong NUL */
		"\xc1\xbf",	    /* overlong */
		"\xe0\x9f\xbf",	    /* overlong 3-byte */
		"\xed\xa0\x80",	    /* a surrogate */
		"\xf4\x90\x80\x80", /* past U+10FFFF */
		"\xf5\x80\x80\x80", /* a lead byte that never starts UTF-8 */
		"abc\xe2\x82",	    /* truncated */
		"\xff",
		"a\nb\x80", /* after an escape: the key keeps "a\n */
		"x\"y\xc3", /* truncated after an escape */
	};
	json_t *v, *obj;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(bad); i++) {
		/* a value fails; a key is written in part and the dump goes on, as jansson does */
		v = json_stringn_nocheck(bad[i], strlen(bad[i]));
		check_dump_is(v, NULL);
		json_decref(v);
		check_string_everywhere(bad[i], strlen(bad[i]));
	}
	obj = json_object();
	assert_int_equal(json_object_setn_new_nocheck(obj, "a\nb\x80", 4, json_integer(7)), 0);
	check_dump_is(obj, "{\"a\\n:7}");
	json_decref(obj);
}

static void test_dump_embedded_nul(void **state)
{
	json_t *v = json_stringn("a\0b", 3), *obj = json_object();

	(void)state;
	check_dump_is(v, "\"a\\u0000b\"");
	assert_int_equal(json_object_setn_new(obj, "k\0ey", 4, json_incref(v)), 0);
	assert_int_equal(json_object_setn(obj, "k", 1, json_false()), 0);
	check_dump_is(obj, "{\"k\":false,\"k\\u0000ey\":\"a\\u0000b\"}");
	check_dump(obj, DUMP_ANY);
	check_string_everywhere("\0", 1);
	json_decref(obj);
	json_decref(v);
}

static void test_dump_containers(void **state)
{
	json_t *job = parse(k8s_job);
	json_t *v = parse("[{},[],{\"a\":{\"b\":{\"c\":[[[]],{}]}}},[1,[2,[3]]],\"\",0]");

	(void)state;
	check_dump_is(v, "[{},[],{\"a\":{\"b\":{\"c\":[[[]],{}]}}},[1,[2,[3]]],\"\",0]");
	check_dump(job, DUMP_ANY);
	check_dump(job, DUMP_SORTED);
	check_dump(job, JSON_COMPACT);
	check_dump(job, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(job);
	json_decref(v);
}

static void test_dump_sort_order(void **state)
{
	static const struct {
		const char *key;
		size_t len;
	} keys[] = {
		{ "b", 1 },	   { "ab", 2 }, { "a\0b", 3 }, { "a", 1 },  { "", 0 },	{ "\0", 1 },
		{ "\xc3\xa9", 2 }, { "B", 1 },	{ "a\0", 2 },  { "aa", 2 }, { "~", 1 },
	};
	json_t *obj = json_object();
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(keys); i++)
		assert_int_equal(json_object_setn_new(obj, keys[i].key, keys[i].len,
						      json_integer((json_int_t)i)),
				 0);
	/* by bytes, a prefix first: "a" < "a\0" < "a\0b" < "aa" < "ab" */
	check_dump_is(obj, "{\"\":4,\"\\u0000\":5,\"B\":7,\"a\":3,\"a\\u0000\":8,\"a\\u0000b\":2,"
			   "\"aa\":9,\"ab\":1,\"b\":0,\"~\":10,\"\xc3\xa9\":6}");
	/* without JSON_SORT_KEYS: insertion order */
	check_dump(obj, DUMP_ANY);
	json_decref(obj);
}

static void test_dump_numbers(void **state)
{
	static const double reals[] = { 1.0,	1e300,	       -0.0,	  0.1,
					1e-7,	123456789.125, -2.5e-300, 1.7976931348623157e308,
					5e-324, 100.0,	       1e21 };
	static const json_int_t ints[] = {
		0, 1, -1, 9, 10, -10, 1234567890123LL, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1
	};
	char want[64];
	json_t *v;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(reals); i++) {
		v = json_real(reals[i]);
		check_dump(v, DUMP_ANY);
		json_decref(v);
	}
	for (i = 0; i < VC_ARRAY_SIZE(ints); i++) {
		v = json_integer(ints[i]);
		snprintf(want, sizeof(want), "%lld", (long long)ints[i]);
		check_dump_is(v, want);
		json_decref(v);
	}
	v = json_real(1.0);
	check_dump_is(v, "1.0");
	json_decref(v);
	v = json_real(-0.0);
	check_dump_is(v, "-0.0");
	json_decref(v);
	v = json_real(1e-7);
	check_dump_is(v, "9.9999999999999995e-8");
	json_decref(v);
	/* jansson makes no real of NaN or infinity, so no tree holds one */
	assert_null(json_real(NAN));
	assert_null(json_real(INFINITY));
	v = json_real(2.0);
	assert_int_equal(json_real_set(v, -INFINITY), -1);
	check_dump_is(v, "2.0");
	json_decref(v);
}

static void test_dump_scalars_and_flags(void **state)
{
	json_t *s = json_string("x"), *t = json_true(),
	       *obj = parse("{\"b\":[1,\"/\xc3\xa9\"],\"a\":{}}");
	struct vc_buf b;

	(void)state;
	/* a scalar needs JSON_ENCODE_ANY, as with jansson */
	assert_int_equal(check_dump(s, JSON_COMPACT), VC_EINVAL);
	assert_int_equal(check_dump(t, JSON_COMPACT | JSON_SORT_KEYS), VC_EINVAL);
	check_dump_is(s, "\"x\"");
	check_dump_is(t, "true");
	check_dump_is(json_false(), "false");
	check_dump_is(json_null(), "null");
	check_dump_is(NULL, NULL);
	assert_int_equal(check_dump(NULL, JSON_COMPACT), VC_EINVAL);
	/* flags jansson handles: the same bytes */
	check_dump(obj, 0);
	check_dump(obj, JSON_INDENT(2) | JSON_SORT_KEYS);
	check_dump(obj, JSON_COMPACT | JSON_ESCAPE_SLASH);
	check_dump(obj, JSON_COMPACT | JSON_ENSURE_ASCII);
	check_dump(obj, JSON_COMPACT | JSON_REAL_PRECISION(3));
	check_dump(obj, JSON_COMPACT | JSON_EMBED);
	check_dump(s, JSON_ENCODE_ANY);
	/* a capped buffer: E2BIG, the contents as they were */
	vc_buf_init(&b, 8);
	assert_int_equal(vc_buf_add(&b, "ab", 2), 0);
	assert_int_equal(vc_json_dump(obj, DUMP_ANY, &b), VC_E2BIG);
	assert_string_equal(vc_buf_str(&b), "ab");
	assert_int_equal(vc_json_dump(obj, JSON_INDENT(1), &b), VC_E2BIG);
	assert_string_equal(vc_buf_str(&b), "ab");
	assert_int_equal(vc_json_dump(s, DUMP_ANY, &b), 0);
	assert_string_equal(vc_buf_str(&b), "ab\"x\"");
	vc_buf_release(&b);
	json_decref(obj);
	json_decref(s);
}

static void test_dump_cycles(void **state)
{
	json_t *a = json_object(), *b = json_array(), *root = json_array(),
	       *shared = parse("{\"k\":[1]}");

	(void)state;
	/* a container met twice but not inside itself is written twice */
	assert_int_equal(json_array_append(root, shared), 0);
	assert_int_equal(json_array_append(root, shared), 0);
	assert_int_equal(json_object_set(a, "s", shared), 0);
	assert_int_equal(json_array_append(root, a), 0);
	check_dump_is(root, "[{\"k\":[1]},{\"k\":[1]},{\"s\":{\"k\":[1]}}]");
	/* below the root: root -> a -> b -> a */
	assert_int_equal(json_object_set(a, "b", b), 0);
	assert_int_equal(json_array_append(b, a), 0);
	assert_int_equal(check_dump(root, DUMP_ANY), VC_EINVAL);
	assert_int_equal(check_dump(root, DUMP_SORTED), VC_EINVAL);
	assert_int_equal(check_dump(b, DUMP_SORTED), VC_EINVAL);
	json_array_clear(b);
	check_dump(root, DUMP_ANY);
	/* a root held only by its own cycle, through a borrowed pointer: a -> b -> a, one reference
	 * each */
	json_decref(root);
	json_decref(b);
	assert_int_equal(a->refcount, 1);
	b = json_array();
	assert_int_equal(json_object_set_new(a, "b", b), 0);
	assert_int_equal(json_array_append_new(b, a), 0); /* a's one reference is b's now */
	assert_int_equal(a->refcount, 1);
	assert_int_equal(b->refcount, 1);
	assert_int_equal(check_dump(a, DUMP_ANY), VC_EINVAL);
	assert_int_equal(check_dump(b, DUMP_SORTED), VC_EINVAL);
	json_incref(a);
	json_object_clear(a);
	json_decref(a);
	json_decref(shared);
}

static void test_dump_alloc_failures(void **state)
{
	json_t *job = parse(k8s_job);
	struct vc_buf want, got;
	long n, failures;
	int rc;

	(void)state;
	vc_buf_init(&want, 0);
	assert_int_equal(vc_json_dump(job, DUMP_SORTED, &want), 0);
	for (n = 0;; n++) {
		vc_buf_init(&got, 0);
		assert_int_equal(vc_buf_add(&got, "x", 1), 0);
		vc_alloc_fail_after(n);
		rc = vc_json_dump(job, DUMP_SORTED, &got);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (rc) {
			assert_int_equal(rc, VC_ENOMEM);
			assert_string_equal(vc_buf_str(&got), "x");
		} else {
			assert_string_equal(vc_buf_str(&got) + 1, vc_buf_str(&want));
		}
		vc_buf_release(&got);
		if (!rc && failures == 0)
			break;
	}
	assert_true(n > 0);
	vc_buf_release(&want);
	json_decref(job);
}

static int setup(void **state)
{
	(void)state;
	vc_alloc_install_json();
	return 0;
}

/* ---- vc_json_loadb: jansson's verdicts and trees from its own parser ----------------------- */

struct load_case {
	const char *text;
	size_t len;
};

/* Inputs with a NUL byte inside, so with their length. */
static const struct load_case load_nul_cases[] = {
	{ "0\0", 2 },	  { "[1\0]", 4 },      { "[true\0,null\0]", 13 },
	{ "[1\0\0]", 5 }, { "[\"a\"\0]", 6 },  { "{\"a\":1.5e3\0}", 12 },
	{ "[-\0]", 4 },	  { "[\"a\0b\"]", 7 }, { "[1]\0", 4 },
};

static const char *const load_cases[] = {
	"{}",
	"[]",
	" \t\r\n{ \"a\" : [ 1 , 2 ] } \n",
	k8s_job,
	"{\"a\":1,\"a\":2}",
	"{\"a\":{\"b\":1},\"c\":{\"b\":2}}",
	"[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
	"[\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\"]",
	"[\"\\ud83d\"]",
	"[\"\\ude00\"]",
	"[\"\\ud83d\\u0041\"]",
	"[\"\\ud83dx\"]",
	"[\"\\u00\"]",
	"[\"\\u00g0\"]",
	"[\"\\x\"]",
	"[\"\\\"]",
	"[\"\\u0000\"]",
	"{\"\\u0000\":1}",
	"{\"a\\u0000b\":1}",
	"[\"a\\u0000b\"]",
	"[\"a\nb\"]",
	"[\"a\tb\"]",
	"[\"\x1f\"]",
	"[\"\x7f\"]",
	"[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]",
	"[\"\xc0\x80\"]",
	"[\"\xc3\"]",
	"[\"\xed\xa0\x80\"]",
	"[\"\xf4\x90\x80\x80\"]",
	"[\"\xf5\x80\x80\x80\"]",
	"[\"\x80\"]",
	"{\"\xc3\xa9\":\"\xe2\x82\"}",
	"[\xc3\xa9]",
	"[0,-0,1,-1,123456789]",
	"[9223372036854775807]",
	"[-9223372036854775808]",
	"[9223372036854775808]",
	"[-9223372036854775809]",
	"[99999999999999999999999]",
	"[-92233720368457758093e4,18446744073709551616.5,99999999999999999999999e-3]",
	"[0.5,-0.0,1e3,1E-3,2.5e+10,1e308]",
	"[1e309]",
	"[-1e309]",
	"[1e-400]",
	"[01]",
	"[1.]",
	"[.5]",
	"[1e]",
	"[1e+]",
	"[-]",
	"[-a]",
	"[+1]",
	"[0x10]",
	"[1.5.2]",
	"[0.1000000000000000000000000000000000000000000000000000000000000000000000000001]",
	"[true,false,null]",
	"[tru]",
	"[truex]",
	"[nul]",
	"[True]",
	"[truefalse]",
	"[1,]",
	"[,1]",
	"{\"a\":1,}",
	"{\"a\" 1}",
	"{a:1}",
	"{\"a\":}",
	"{\"a\"}",
	"[1 2]",
	"{\"a\":1,",
	"[1,",
	"{\"a\":1, ",
	"[1",
	"{\"a\":1",
	"[\"abc",
	"[]]",
	"[] x",
	"",
	"   ",
	"1",
	"\"s\"",
	"true",
	" null ",
	"-1.5",
	"[\"\\u00e9\",\"\\u00E9\"]",
	"{\"k\\\"ey\":\"v\",\"k\\u00e9\":[{}]}",
};

static const size_t load_flags[] = {
	0,
	JSON_REJECT_DUPLICATES,
	JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	JSON_ALLOW_NUL,
	JSON_DECODE_ANY | JSON_ALLOW_NUL,
};

/* Both NULL, or the same tree: equal, same member order, same number types. Releases both. */
static void assert_same_tree(json_t *want, json_t *got, const char *text)
{
	char *dw, *dg;

	if (!want || !got) {
		if (!want != !got)
			fail_msg("%s: jansson %s, vc_json %s", text, want ? "parses" : "refuses",
				 got ? "parses" : "refuses");
		json_decref(want);
		json_decref(got);
		return;
	}
	assert_true(json_equal(want, got));
	dw = json_dumps(want, JSON_COMPACT | JSON_ENCODE_ANY);
	dg = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
	assert_non_null(dw);
	assert_non_null(dg);
	assert_string_equal(dg, dw);
	free(dw);
	free(dg);
	json_decref(want);
	json_decref(got);
}

static void test_loadb_same_as_jansson(void **state)
{
	size_t taken = 0, refused = 0;

	(void)state;
	size_t nplain = sizeof(load_cases) / sizeof(load_cases[0]);
	size_t nnul = sizeof(load_nul_cases) / sizeof(load_nul_cases[0]);

	for (size_t i = 0; i < nplain + nnul; i++) {
		const char *text = i < nplain ? load_cases[i] : load_nul_cases[i - nplain].text;
		size_t len = i < nplain ? strlen(text) : load_nul_cases[i - nplain].len;
		/* Exactly len bytes on the heap: a read past the end is ASan's (make asan). */
		char *t = vc_malloc(len ? len : 1);

		assert_non_null(t);
		memcpy(t, text, len);
		for (size_t f = 0; f < sizeof(load_flags) / sizeof(load_flags[0]); f++) {
			json_error_t ej, ev;
			json_t *j = json_loadb(t, len, load_flags[f], &ej);
			json_t *v = vc_json_loadb(t, len, load_flags[f], &ev);
			json_t *fast = vc_json_loadb_fast(t, len, load_flags[f]);

			if (!j) {
				refused++;
				assert_null(v);
				assert_string_equal(ev.text, ej.text);
				assert_int_equal(ev.position, ej.position);
				assert_int_equal(ev.line, ej.line);
				assert_int_equal(ev.column, ej.column);
			} else {
				taken++;
			}
			/* The fast path itself takes exactly what jansson takes. */
			assert_same_tree(j ? json_deep_copy(j) : NULL, fast, t);
			assert_same_tree(j, v, t);
		}
		vc_free(t);
	}
	/* Both kinds are exercised. */
	assert_true(taken > 100);
	assert_true(refused > 200);
}

/* jansson's depth limit counts every value: 2048 nested arrays parse, 2049 do not. */
static void test_loadb_depth(void **state)
{
	char buf[2 * 2049 + 1];

	(void)state;
	for (size_t depth = 2047; depth <= 2049; depth++) {
		json_t *j, *fast;

		memset(buf, '[', depth);
		memset(buf + depth, ']', depth);
		j = json_loadb(buf, 2 * depth, 0, NULL);
		fast = vc_json_loadb_fast(buf, 2 * depth, 0);
		assert_int_equal(!!j, depth <= 2048);
		assert_same_tree(j, fast, "deep");
	}
	/* A scalar counts as one more level. */
	memset(buf, '[', 2048);
	buf[2048] = '1';
	memset(buf + 2049, ']', 2048);
	assert_null(json_loadb(buf, 4097, 0, NULL));
	assert_null(vc_json_loadb_fast(buf, 4097, 0));
}

/* Strings with escapes are unescaped in a scratch buffer: keys stay right across values. */
static void test_loadb_escaped_keys_and_values(void **state)
{
	const char *t = "{\"k\\u00e91\":{\"k\\n2\":\"v\\t2\",\"x\":[\"\\\"\",\"\\\\\"]},"
			"\"k\\/3\":\"v\\r3\"}";
	json_t *v = vc_json_loadb_fast(t, strlen(t), JSON_REJECT_DUPLICATES);

	(void)state;
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(json_object_get(v, "k\xc3\xa9"
										 "1"),
							      "k\n2")),
			    "v\t2");
	assert_string_equal(json_string_value(json_object_get(v, "k/3")), "v\r3");
	assert_string_equal(
		json_string_value(json_array_get(json_object_get(json_object_get(v, "k\xc3\xa9"
										    "1"),
								 "x"),
						 1)),
		"\\");
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_object_and_array),
		cmocka_unit_test(test_loadb_same_as_jansson),
		cmocka_unit_test(test_loadb_depth),
		cmocka_unit_test(test_loadb_escaped_keys_and_values),
		cmocka_unit_test(test_parse_rejects_scalar_top_level),
		cmocka_unit_test(test_parse_cap),
		cmocka_unit_test(test_parse_duplicate_keys),
		cmocka_unit_test(test_parse_error_position),
		cmocka_unit_test(test_parse_trailing_bytes_and_nul),
		cmocka_unit_test(test_parse_depth_limit),
		cmocka_unit_test(test_parse_bad_arguments),
		cmocka_unit_test(test_parse_alloc_failures),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_get_int_from_real),
		cmocka_unit_test(test_path_dotted),
		cmocka_unit_test(test_path_bracketed_keys),
		cmocka_unit_test(test_path_malformed),
		cmocka_unit_test(test_set_path_new),
		cmocka_unit_test(test_set_path_new_errors_leave_root_unchanged),
		cmocka_unit_test(test_set_path_new_alloc_failures),
		cmocka_unit_test(test_pointer_rfc6901_examples),
		cmocka_unit_test(test_pointer_get_misses),
		cmocka_unit_test(test_pointer_escape),
		cmocka_unit_test(test_pointer_split),
		cmocka_unit_test(test_pointer_index),
		cmocka_unit_test(test_equal_numbers),
		cmocka_unit_test(test_equal_structures),
		cmocka_unit_test(test_dumps_sorted),
		cmocka_unit_test(test_dumps_sorted_alloc_failures),
		cmocka_unit_test(test_dump_escapes),
		cmocka_unit_test(test_dump_invalid_utf8),
		cmocka_unit_test(test_dump_embedded_nul),
		cmocka_unit_test(test_dump_containers),
		cmocka_unit_test(test_dump_sort_order),
		cmocka_unit_test(test_dump_numbers),
		cmocka_unit_test(test_dump_scalars_and_flags),
		cmocka_unit_test(test_dump_cycles),
		cmocka_unit_test(test_dump_alloc_failures),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
