/* Unit tests for vc_jsonpatch: RFC 6902 apply and diff, RFC 7386 merge patch apply and diff. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_json.h"
#include "vc_jsonpatch.h"

#include "support/json_test.h"

/* Apply patch to doc: the result must dump (sorted) as expected and doc must be unchanged. */
static void check_patch(const char *doc, const char *patch, const char *expected)
{
	json_t *d = parse(doc), *p = parse(patch), *r = NULL;
	char *before = vc_json_dumps_sorted(d);
	struct vc_error err;

	vc_error_clear(&err);
	if (vc_json_patch_apply(d, p, &r, &err) != 0)
		fail_msg("patch %s failed: %s", patch, err.text);
	assert_dump(r, expected);
	assert_dump(d, before);
	vc_free(before);
	json_decref(r);
	json_decref(p);
	json_decref(d);
}

/* Apply patch to doc: it must fail with code and text, leave no result and doc unchanged. */
static void check_patch_fails(const char *doc, const char *patch, int code, const char *text)
{
	json_t *d = parse(doc), *p = parse(patch), *r = (json_t *)1;
	char *before = vc_json_dumps_sorted(d);
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(vc_json_patch_apply(d, p, &r, &err), code);
	assert_null(r);
	assert_int_equal(err.code, code);
	assert_string_equal(err.text, text);
	assert_dump(d, before);
	vc_free(before);
	json_decref(p);
	json_decref(d);
}

/* RFC 6902 appendix A, in order. */

static void test_rfc6902_a1_add_object_member(void **state)
{
	(void)state;
	check_patch("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
		    "{\"baz\":\"qux\",\"foo\":\"bar\"}");
}

static void test_rfc6902_a2_add_array_element(void **state)
{
	(void)state;
	check_patch("{\"foo\":[\"bar\",\"baz\"]}",
		    "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
		    "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
}

static void test_rfc6902_a3_remove_object_member(void **state)
{
	(void)state;
	check_patch("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/baz\"}]",
		    "{\"foo\":\"bar\"}");
}

static void test_rfc6902_a4_remove_array_element(void **state)
{
	(void)state;
	check_patch("{\"foo\":[\"bar\",\"qux\",\"baz\"]}",
		    "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]", "{\"foo\":[\"bar\",\"baz\"]}");
}

static void test_rfc6902_a5_replace(void **state)
{
	(void)state;
	check_patch("{\"baz\":\"qux\",\"foo\":\"bar\"}",
		    "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
		    "{\"baz\":\"boo\",\"foo\":\"bar\"}");
}

static void test_rfc6902_a6_move(void **state)
{
	(void)state;
	check_patch("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
		    "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
		    "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}");
}

static void test_rfc6902_a7_move_array_element(void **state)
{
	(void)state;
	check_patch("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
		    "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
		    "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
}

static void test_rfc6902_a8_test_success(void **state)
{
	(void)state;
	check_patch("{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
		    "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
		    "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
		    "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
}

static void test_rfc6902_a9_test_error(void **state)
{
	(void)state;
	check_patch_fails("{\"baz\":\"qux\"}",
			  "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]", VC_ETESTFAILED,
			  "operation 0 (test /baz): value differs");
}

static void test_rfc6902_a10_add_nested_object(void **state)
{
	(void)state;
	check_patch("{\"foo\":\"bar\"}",
		    "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
		    "{\"child\":{\"grandchild\":{}},\"foo\":\"bar\"}");
}

static void test_rfc6902_a11_ignore_unknown_members(void **state)
{
	(void)state;
	check_patch("{\"foo\":\"bar\"}",
		    "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]",
		    "{\"baz\":\"qux\",\"foo\":\"bar\"}");
}

static void test_rfc6902_a12_add_to_nonexistent_target(void **state)
{
	(void)state;
	check_patch_fails("{\"foo\":\"bar\"}",
			  "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]", VC_ENOENT,
			  "operation 0 (add /baz/bat): path not found");
}

static void test_rfc6902_a13_invalid_patch_document(void **state)
{
	const char *patch =
		"[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"op\":\"remove\"}]";
	struct vc_error err;
	json_t *p;

	(void)state;
	/* Duplicate members never reach the applier: the parser refuses them. */
	assert_int_equal(vc_json_parse(patch, strlen(patch), 0, &p, &err), VC_EPARSE);
	assert_null(p);
	assert_string_equal(err.text, "duplicate object key near '\"op\"'");
	assert_int_equal(err.column, 45);
}

static void test_rfc6902_a14_escape_ordering(void **state)
{
	(void)state;
	check_patch("{\"/\":9,\"~1\":10}", "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]",
		    "{\"/\":9,\"~1\":10}");
}

static void test_rfc6902_a15_string_vs_number(void **state)
{
	(void)state;
	check_patch_fails("{\"/\":9,\"~1\":10}",
			  "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]", VC_ETESTFAILED,
			  "operation 0 (test /~01): value differs");
}

static void test_rfc6902_a16_add_array_value(void **state)
{
	(void)state;
	check_patch("{\"foo\":[\"bar\"]}",
		    "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
		    "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}");
}

/* Semantics beyond the appendix. */

static void test_patch_root_operations(void **state)
{
	(void)state;
	check_patch("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"\",\"value\":[1]}]", "[1]");
	check_patch("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":\"s\"}]", "\"s\"");
	check_patch("{\"a\":{\"b\":2}}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"\"}]",
		    "{\"b\":2}");
	check_patch("{\"a\":{\"b\":2}}", "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"\"}]",
		    "{\"b\":2}");
	check_patch("{\"a\":1}", "[{\"op\":\"test\",\"path\":\"\",\"value\":{\"a\":1.0}}]",
		    "{\"a\":1}");
	check_patch("[1,2]", "[{\"op\":\"copy\",\"from\":\"\",\"path\":\"/-\"}]", "[1,2,[1,2]]");
	/* A scalar document. */
	check_patch("3", "[{\"op\":\"replace\",\"path\":\"\",\"value\":4}]", "4");
	check_patch_fails("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"\"}]", VC_EINVALID,
			  "operation 0 (remove \"\"): cannot remove the whole document");
}

static void test_patch_array_indexes(void **state)
{
	(void)state;
	/* Index == size appends, "-" appends, add to an object replaces. */
	check_patch("{\"a\":[1,2],\"o\":{\"k\":1}}",
		    "[{\"op\":\"add\",\"path\":\"/a/2\",\"value\":3},"
		    "{\"op\":\"add\",\"path\":\"/a/-\",\"value\":4},"
		    "{\"op\":\"add\",\"path\":\"/a/0\",\"value\":0},"
		    "{\"op\":\"add\",\"path\":\"/o/k\",\"value\":2},"
		    "{\"op\":\"replace\",\"path\":\"/a/4\",\"value\":40}]",
		    "{\"a\":[0,1,2,3,40],\"o\":{\"k\":2}}");
	/* Object members that look like indexes are just keys. */
	check_patch("{\"01\":1,\"-\":2}",
		    "[{\"op\":\"remove\",\"path\":\"/01\"},{\"op\":\"replace\",\"path\":\"/-\","
		    "\"value\":3}]",
		    "{\"-\":3}");
}

static void test_patch_leading_zeros_rejected(void **state)
{
	(void)state;
	check_patch_fails("{\"foo\":[1,2]}", "[{\"op\":\"add\",\"path\":\"/foo/01\",\"value\":0}]",
			  VC_EINVALID, "operation 0 (add /foo/01): invalid array index '01'");
	check_patch_fails("{\"foo\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/foo/00\"}]",
			  VC_EINVALID, "operation 0 (remove /foo/00): invalid array index '00'");
	check_patch_fails("{\"foo\":[1,2]}",
			  "[{\"op\":\"replace\",\"path\":\"/foo/x\",\"value\":0}]", VC_EINVALID,
			  "operation 0 (replace /foo/x): invalid array index 'x'");
	check_patch_fails("{\"foo\":[[1]]}",
			  "[{\"op\":\"test\",\"path\":\"/foo/+0/0\",\"value\":1}]", VC_EINVALID,
			  "operation 0 (test /foo/+0/0): invalid array index '+0'");
}

static void test_patch_index_out_of_range(void **state)
{
	(void)state;
	check_patch_fails("{\"foo\":[1,2]}", "[{\"op\":\"add\",\"path\":\"/foo/3\",\"value\":0}]",
			  VC_ENOENT,
			  "operation 0 (add /foo/3): array index 3 out of range (size 2)");
	check_patch_fails("{\"foo\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/foo/2\"}]", VC_ENOENT,
			  "operation 0 (remove /foo/2): array index 2 out of range (size 2)");
	check_patch_fails("{\"foo\":[1,2]}",
			  "[{\"op\":\"replace\",\"path\":\"/foo/99999999999999999999999\","
			  "\"value\":0}]",
			  VC_ENOENT,
			  "operation 0 (replace /foo/99999999999999999999999): array index "
			  "99999999999999999999999 out of range (size 2)");
	/* "-" names the element after the last: only add may use it. */
	check_patch_fails("{\"foo\":[1,2]}", "[{\"op\":\"remove\",\"path\":\"/foo/-\"}]", VC_ENOENT,
			  "operation 0 (remove /foo/-): path not found");
	check_patch_fails("{\"foo\":[1,2]}", "[{\"op\":\"add\",\"path\":\"/foo/-/x\",\"value\":0}]",
			  VC_ENOENT, "operation 0 (add /foo/-/x): path not found");
}

static void test_patch_missing_targets(void **state)
{
	static const char doc[] = "{\"spec\":{\"a\":\"s\"},\"list\":[]}";

	(void)state;
	/* The failing operation is named by its index; earlier ones are undone. */
	check_patch_fails(doc,
			  "[{\"op\":\"test\",\"path\":\"/spec/a\",\"value\":\"s\"},"
			  "{\"op\":\"add\",\"path\":\"/spec/y\",\"value\":1},"
			  "{\"op\":\"replace\",\"path\":\"/spec/x\",\"value\":2}]",
			  VC_ENOENT, "operation 2 (replace /spec/x): path not found");
	check_patch_fails(doc, "[{\"op\":\"remove\",\"path\":\"/spec/x\"}]", VC_ENOENT,
			  "operation 0 (remove /spec/x): path not found");
	check_patch_fails(doc, "[{\"op\":\"test\",\"path\":\"/nope\",\"value\":null}]", VC_ENOENT,
			  "operation 0 (test /nope): path not found");
	/* Below a scalar. */
	check_patch_fails(doc, "[{\"op\":\"add\",\"path\":\"/spec/a/b\",\"value\":1}]", VC_ENOENT,
			  "operation 0 (add /spec/a/b): path not found");
	check_patch_fails(doc, "[{\"op\":\"remove\",\"path\":\"/spec/a/b\"}]", VC_ENOENT,
			  "operation 0 (remove /spec/a/b): path not found");
	check_patch_fails(doc, "[{\"op\":\"replace\",\"path\":\"/spec/a/b\",\"value\":1}]",
			  VC_ENOENT, "operation 0 (replace /spec/a/b): path not found");
	check_patch_fails(doc, "[{\"op\":\"remove\",\"path\":\"/list/0\"}]", VC_ENOENT,
			  "operation 0 (remove /list/0): array index 0 out of range (size 0)");
}

static void test_patch_move_rules(void **state)
{
	static const char doc[] = "{\"a\":{\"b\":1},\"ab\":2,\"l\":[1,2,3]}";

	(void)state;
	check_patch_fails(doc, "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b\"}]", VC_EINVALID,
			  "operation 0 (move /a/b): cannot move a value into one of its own "
			  "children");
	check_patch_fails(
		doc, "[{\"op\":\"move\",\"from\":\"\",\"path\":\"/x\"}]", VC_EINVALID,
		"operation 0 (move /x): cannot move a value into one of its own children");
	/* "/a" is a string prefix of "/ab" but not a token prefix. */
	check_patch(doc, "[{\"op\":\"move\",\"from\":\"/ab\",\"path\":\"/a/ab\"}]",
		    "{\"a\":{\"ab\":2,\"b\":1},\"l\":[1,2,3]}");
	/* To the same location: nothing happens, but the location must exist. */
	check_patch(doc, "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a\"}]", doc);
	check_patch_fails(doc, "[{\"op\":\"move\",\"from\":\"/x\",\"path\":\"/x\"}]", VC_ENOENT,
			  "operation 0 (move /x): from '/x' not found");
	check_patch(doc, "[{\"op\":\"move\",\"from\":\"/l/0\",\"path\":\"/l/-\"}]",
		    "{\"a\":{\"b\":1},\"ab\":2,\"l\":[2,3,1]}");
	check_patch_fails(doc, "[{\"op\":\"move\",\"from\":\"/l/3\",\"path\":\"/x\"}]", VC_ENOENT,
			  "operation 0 (move /x): from array index 3 out of range (size 3)");
	check_patch_fails(doc, "[{\"op\":\"copy\",\"from\":\"/l/03\",\"path\":\"/x\"}]",
			  VC_EINVALID, "operation 0 (copy /x): invalid from array index '03'");
}

static void test_patch_copy_is_deep(void **state)
{
	(void)state;
	/* Changing the copy must not change the original. */
	check_patch("{\"a\":{\"b\":[1]}}",
		    "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"},"
		    "{\"op\":\"add\",\"path\":\"/c/b/-\",\"value\":2},"
		    "{\"op\":\"replace\",\"path\":\"/a/b/0\",\"value\":0}]",
		    "{\"a\":{\"b\":[0]},\"c\":{\"b\":[1,2]}}");
}

static void test_patch_test_numeric_equality(void **state)
{
	(void)state;
	check_patch("{\"n\":1,\"r\":2.0,\"o\":{\"x\":[1,2.5]}}",
		    "[{\"op\":\"test\",\"path\":\"/n\",\"value\":1.0},"
		    "{\"op\":\"test\",\"path\":\"/r\",\"value\":2},"
		    "{\"op\":\"test\",\"path\":\"/o\",\"value\":{\"x\":[1.0,2.5]}}]",
		    "{\"n\":1,\"o\":{\"x\":[1,2.5]},\"r\":2.0}");
	check_patch_fails("{\"n\":1}", "[{\"op\":\"test\",\"path\":\"/n\",\"value\":1.5}]",
			  VC_ETESTFAILED, "operation 0 (test /n): value differs");
	check_patch_fails("{\"n\":null}", "[{\"op\":\"test\",\"path\":\"/n\",\"value\":false}]",
			  VC_ETESTFAILED, "operation 0 (test /n): value differs");
}

static void test_patch_malformed_operations(void **state)
{
	static const char doc[] = "{\"a\":1}";

	(void)state;
	check_patch_fails(doc, "{\"op\":\"add\"}", VC_EINVALID,
			  "patch is not an array of operations");
	check_patch_fails(doc, "[[]]", VC_EINVALID, "operation 0: not an object");
	check_patch_fails(doc, "[{\"op\":\"test\",\"path\":\"/a\",\"value\":1},{\"path\":\"/a\"}]",
			  VC_EINVALID, "operation 1: missing or non-string 'op'");
	check_patch_fails(doc, "[{\"op\":7,\"path\":\"/a\"}]", VC_EINVALID,
			  "operation 0: missing or non-string 'op'");
	check_patch_fails(doc, "[{\"op\":\"frob\",\"path\":\"/a\"}]", VC_EINVALID,
			  "operation 0: unknown op 'frob'");
	check_patch_fails(doc, "[{\"op\":\"ADD\",\"path\":\"/a\",\"value\":1}]", VC_EINVALID,
			  "operation 0: unknown op 'ADD'");
	check_patch_fails(doc, "[{\"op\":\"add\",\"value\":1}]", VC_EINVALID,
			  "operation 0 (add): missing or non-string 'path'");
	check_patch_fails(doc, "[{\"op\":\"remove\",\"path\":[\"a\"]}]", VC_EINVALID,
			  "operation 0 (remove): missing or non-string 'path'");
	check_patch_fails(doc, "[{\"op\":\"add\",\"path\":\"/b\"}]", VC_EINVALID,
			  "operation 0 (add /b): missing 'value'");
	check_patch_fails(doc, "[{\"op\":\"replace\",\"path\":\"/a\"}]", VC_EINVALID,
			  "operation 0 (replace /a): missing 'value'");
	check_patch_fails(doc, "[{\"op\":\"test\",\"path\":\"/a\"}]", VC_EINVALID,
			  "operation 0 (test /a): missing 'value'");
	check_patch_fails(doc, "[{\"op\":\"move\",\"path\":\"/b\"}]", VC_EINVALID,
			  "operation 0 (move /b): missing or non-string 'from'");
	check_patch_fails(doc, "[{\"op\":\"copy\",\"path\":\"/b\",\"from\":null}]", VC_EINVALID,
			  "operation 0 (copy /b): missing or non-string 'from'");
	/* An explicit null value is a value. */
	check_patch(doc, "[{\"op\":\"add\",\"path\":\"/b\",\"value\":null}]",
		    "{\"a\":1,\"b\":null}");
}

static void test_patch_malformed_pointers(void **state)
{
	static const char doc[] = "{\"a\":1}";

	(void)state;
	check_patch_fails(doc, "[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]", VC_EINVALID,
			  "operation 0 (add a): invalid JSON pointer 'a': must be empty or start "
			  "with '/'");
	check_patch_fails(doc, "[{\"op\":\"remove\",\"path\":\"/a~2\"}]", VC_EINVALID,
			  "operation 0 (remove /a~2): invalid JSON pointer '/a~2': '~' must be "
			  "followed by '0' or '1'");
	check_patch_fails(doc, "[{\"op\":\"copy\",\"from\":\"a\",\"path\":\"/b\"}]", VC_EINVALID,
			  "operation 0 (copy /b): from: invalid JSON pointer 'a': must be empty or "
			  "start with '/'");
}

static void test_patch_nul_in_path(void **state)
{
	json_t *doc = parse("{\"a\":1}"), *r = (json_t *)1;
	json_t *patch = json_pack("[{s:s, s:s%, s:i}]", "op", "add", "path", "/a\0b", (size_t)4,
				  "value", 1);
	struct vc_error err;

	(void)state;
	assert_non_null(patch);
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), VC_EINVALID);
	assert_null(r);
	assert_string_equal(err.text, "operation 0 (add): 'path' contains a NUL byte");
	json_decref(patch);
	json_decref(doc);
}

static void test_patch_bad_arguments(void **state)
{
	json_t *doc = parse("{}"), *patch = parse("[]"), *r = (json_t *)1;
	struct vc_error err;

	(void)state;
	assert_int_equal(vc_json_patch_apply(NULL, patch, &r, &err), VC_EINVAL);
	assert_null(r);
	assert_string_equal(err.text, "no document or patch to apply");
	assert_int_equal(vc_json_patch_apply(doc, NULL, &r, NULL), VC_EINVAL);
	assert_int_equal(vc_json_patch_apply(doc, patch, NULL, NULL), VC_EINVAL);
	/* The empty patch gives an equal document. */
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, NULL), 0);
	assert_dump(r, "{}");
	assert_ptr_not_equal(r, doc);
	json_decref(r);
	json_decref(patch);
	json_decref(doc);
}

static void test_patch_copy_limit(void **state)
{
	size_t big = 1000000, i;
	char *s = vc_malloc(big + 1);
	json_t *doc, *patch, *r = (json_t *)1;
	struct vc_error err;
	char to[4] = "/b";

	(void)state;
	assert_non_null(s);
	memset(s, 'x', big);
	s[big] = '\0';
	doc = json_pack("{s:s}", "a", s);
	patch = json_array();
	/* Each copy adds 1000002 bytes (the string and its quotes): three fit in 3 MiB. */
	for (i = 0; i < 4; i++) {
		to[1] = (char)('b' + i);
		assert_int_equal(
			json_array_append_new(patch, json_pack("{s:s,s:s,s:s}", "op", "copy",
							       "from", "/a", "path", to)),
			0);
	}
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), VC_E2BIG);
	assert_null(r);
	assert_string_equal(
		err.text, "operation 3 (copy /e): copied values exceed the limit of 3145728 bytes");
	assert_int_equal(json_array_remove(patch, 3), 0);
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), 0);
	assert_int_equal(json_object_size(r), 4);
	json_decref(r);
	json_decref(patch);
	json_decref(doc);
	vc_free(s);
}

static void test_patch_depth_limit(void **state)
{
	size_t n = VC_JSON_MAX_DEPTH, i;
	char *deep = vc_malloc(2 * n), *path = vc_malloc(2 * n + 3);
	json_t *doc, *patch, *r = (json_t *)1;
	struct vc_error err;

	(void)state;
	assert_non_null(deep);
	assert_non_null(path);
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	assert_int_equal(vc_json_parse(deep, 2 * n, 0, &doc, &err), 0);
	/* Path of the innermost array (2047 tokens) plus "/-". */
	for (i = 0; i < n; i++) {
		path[2 * i] = '/';
		path[2 * i + 1] = i < n - 1 ? '0' : '-';
	}
	path[2 * n] = '\0';

	/* A scalar fits at depth 2048; an empty array would be the 2049th level. */
	patch = json_pack("[{s:s,s:s,s:i}]", "op", "add", "path", path, "value", 1);
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), 0);
	json_decref(r);
	json_decref(patch);
	patch = json_pack("[{s:s,s:s,s:[]}]", "op", "add", "path", path, "value");
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), VC_E2BIG);
	assert_null(r);
	json_decref(patch);
	/* Copying the root into itself would add a level. */
	patch = parse("[{\"op\":\"copy\",\"from\":\"\",\"path\":\"/-\"}]");
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), VC_E2BIG);
	assert_string_equal(err.text,
			    "operation 0 (copy /-): result would nest deeper than 2048 levels");
	json_decref(patch);
	/* A move keeps the nesting: the deepest chain becomes the root's only element again. */
	patch = parse("[{\"op\":\"move\",\"from\":\"/0\",\"path\":\"/-\"}]");
	assert_int_equal(vc_json_patch_apply(doc, patch, &r, &err), 0);
	json_decref(r);
	json_decref(patch);
	json_decref(doc);
	vc_free(path);
	vc_free(deep);
}

/* Allocation failures: apply fails with VC_ENOMEM or succeeds with the right result. */
static void test_patch_apply_alloc_failures(void **state)
{
	json_t *doc = parse("{\"metadata\":{\"name\":\"j\",\"labels\":{\"a\":\"b\"}},"
			    "\"spec\":{\"tasks\":[{\"name\":\"t0\",\"replicas\":1}]}}");
	json_t *patch =
		parse("[{\"op\":\"add\",\"path\":\"/metadata/labels/volcano.sh~1queue\","
		      "\"value\":\"default\"},"
		      "{\"op\":\"copy\",\"from\":\"/spec/tasks/0\",\"path\":\"/spec/tasks/-\"},"
		      "{\"op\":\"replace\",\"path\":\"/spec/tasks/1/name\",\"value\":\"t1\"},"
		      "{\"op\":\"move\",\"from\":\"/metadata/labels/a\",\"path\":\"/x\"},"
		      "{\"op\":\"remove\",\"path\":\"/metadata/name\"},"
		      "{\"op\":\"test\",\"path\":\"/x\",\"value\":\"b\"}]");
	struct vc_error err;
	long n, failures;
	json_t *r;
	int rc;

	(void)state;
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_json_patch_apply(doc, patch, &r, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_dump(r,
				    "{\"metadata\":{\"labels\":{\"volcano.sh/queue\":\"default\"}},"
				    "\"spec\":{\"tasks\":[{\"name\":\"t0\",\"replicas\":1},"
				    "{\"name\":\"t1\",\"replicas\":1}]},\"x\":\"b\"}");
			json_decref(r);
			if (failures == 0)
				break;
			continue;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(r);
		assert_non_null(strstr(err.text, "out of memory"));
	}
	assert_true(n > 10);
	json_decref(patch);
	json_decref(doc);
}

/* Diff. */

static void check_diff(const char *from, const char *to, const char *expected)
{
	json_t *a = parse(from), *b = parse(to), *ops, *r = NULL;
	struct vc_error err;

	ops = vc_json_patch_diff(a, b);
	assert_non_null(ops);
	assert_dump(ops, expected);
	if (vc_json_patch_apply(a, ops, &r, &err) != 0)
		fail_msg("diff does not apply: %s", err.text);
	assert_true(vc_json_equal(r, b));
	json_decref(r);
	json_decref(ops);
	json_decref(b);
	json_decref(a);
}

static void test_diff_equal_is_empty(void **state)
{
	(void)state;
	check_diff("{\"a\":[1,{\"b\":null}]}", "{\"a\":[1,{\"b\":null}]}", "[]");
	/* 1 and 1.0 are the same number. */
	check_diff("{\"a\":1,\"b\":[2.0]}", "{\"a\":1.0,\"b\":[2]}", "[]");
	check_diff("\"x\"", "\"x\"", "[]");
	assert_null(vc_json_patch_diff(NULL, json_true()));
	assert_null(vc_json_patch_diff(json_true(), NULL));
}

static void test_diff_objects(void **state)
{
	(void)state;
	/* Removes first (sorted), then adds and changes in sorted key order. */
	check_diff("{\"z\":0,\"b\":{\"d\":3,\"c\":2},\"a\":1,\"y\":0}",
		   "{\"c\":[1],\"b\":{\"e\":5,\"d\":4,\"c\":2},\"a\":1}",
		   "[{\"op\":\"remove\",\"path\":\"/y\"},{\"op\":\"remove\",\"path\":\"/z\"},"
		   "{\"op\":\"replace\",\"path\":\"/b/d\",\"value\":4},"
		   "{\"op\":\"add\",\"path\":\"/b/e\",\"value\":5},"
		   "{\"op\":\"add\",\"path\":\"/c\",\"value\":[1]}]");
	/* Keys are escaped in paths. */
	check_diff(
		"{\"a/b\":1,\"m~n\":2}", "{\"a/b\":2,\"\":0}",
		"[{\"op\":\"remove\",\"path\":\"/m~0n\"},{\"op\":\"add\",\"path\":\"/\",\"value\":0},"
		"{\"op\":\"replace\",\"path\":\"/a~1b\",\"value\":2}]");
}

static void test_diff_arrays(void **state)
{
	(void)state;
	check_diff("[1,2]", "[1,3,4,5]",
		   "[{\"op\":\"replace\",\"path\":\"/1\",\"value\":3},"
		   "{\"op\":\"add\",\"path\":\"/2\",\"value\":4},"
		   "{\"op\":\"add\",\"path\":\"/3\",\"value\":5}]");
	check_diff("{\"l\":[1,2,3,4]}", "{\"l\":[0]}",
		   "[{\"op\":\"replace\",\"path\":\"/l/0\",\"value\":0},"
		   "{\"op\":\"remove\",\"path\":\"/l/3\"},{\"op\":\"remove\",\"path\":\"/l/2\"},"
		   "{\"op\":\"remove\",\"path\":\"/l/1\"}]");
	check_diff("[{\"a\":1},[1]]", "[{\"a\":2},[1,2]]",
		   "[{\"op\":\"replace\",\"path\":\"/0/a\",\"value\":2},"
		   "{\"op\":\"add\",\"path\":\"/1/1\",\"value\":2}]");
}

static void test_diff_type_changes(void **state)
{
	(void)state;
	check_diff("{\"a\":[1]}", "{\"a\":{\"x\":1}}",
		   "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":{\"x\":1}}]");
	check_diff("1", "\"x\"", "[{\"op\":\"replace\",\"path\":\"\",\"value\":\"x\"}]");
	check_diff("{}", "[]", "[{\"op\":\"replace\",\"path\":\"\",\"value\":[]}]");
	check_diff("{\"a\":null}", "{\"a\":false}",
		   "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":false}]");
	check_diff("{\"a\":1}", "{\"a\":1.5}",
		   "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":1.5}]");
}

static void test_diff_webhook_shape(void **state)
{
	json_t *a = parse("{\"spec\":{\"queue\":\"q\",\"tasks\":[{\"name\":\"t\"}]}}");
	json_t *b = parse("{\"spec\":{\"queue\":\"q\",\"schedulerName\":\"volcano\","
			  "\"tasks\":[{\"name\":\"t\",\"maxRetry\":3}],\"minAvailable\":1}}");
	json_t *ops = vc_json_patch_diff(a, b);
	char *s;

	(void)state;
	/* Member order in each operation is op, path, value, as the webhook sends them. */
	s = json_dumps(ops, JSON_COMPACT);
	assert_string_equal(
		s, "[{\"op\":\"add\",\"path\":\"/spec/minAvailable\",\"value\":1},"
		   "{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"volcano\"},"
		   "{\"op\":\"add\",\"path\":\"/spec/tasks/0/maxRetry\",\"value\":3}]");
	vc_free(s);
	/* The values are copies, not shared with `to`. */
	assert_ptr_not_equal(json_object_get(json_array_get(ops, 1), "value"),
			     vc_json_path(b, "spec.schedulerName"));
	json_decref(ops);
	json_decref(b);
	json_decref(a);
}

/* A small seeded generator (xorshift64*) for property tests. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dULL) >> 32) % n;
}

static const char *const gen_keys[] = { "a", "b", "c", "x/y", "m~n", "", "~1", "0" };

static json_t *gen(int depth);

/* A value of the given kind: 0-5 scalars, 6-7 an array, 8 an object. */
static json_t *gen_kind(int depth, uint32_t kind)
{
	json_t *v;
	uint32_t i, n;

	switch (kind) {
	case 0:
		return json_null();
	case 1:
		return json_true();
	case 2:
		return json_false();
	case 3:
		return json_integer((json_int_t)rnd(5) - 2);
	case 4:
		/* Integral reals too, so that 1 versus 1.0 comes up. */
		return json_real(rnd(2) ? (double)rnd(3) : rnd(3) + 0.5);
	case 5:
		return json_string(gen_keys[rnd(VC_ARRAY_SIZE(gen_keys))]);
	case 6:
	case 7:
		v = json_array();
		n = rnd(6);
		for (i = 0; i < n; i++)
			assert_int_equal(json_array_append_new(v, gen(depth - 1)), 0);
		return v;
	default:
		v = json_object();
		n = rnd(6);
		for (i = 0; i < n; i++)
			assert_int_equal(json_object_set_new(v,
							     gen_keys[rnd(VC_ARRAY_SIZE(gen_keys))],
							     gen(depth - 1)),
					 0);
		return v;
	}
}

static json_t *gen(int depth)
{
	return gen_kind(depth, rnd(depth > 0 ? 9 : 6));
}

/* A variant of v that shares most of its structure, so that diffs recurse. */
static json_t *mutate(const json_t *v, int depth)
{
	const char *key;
	json_t *out, *m;
	size_t i;

	/* Replacing a whole top-level document would make for dull diffs. */
	if (depth < 5 && rnd(6) == 0)
		return gen(depth);
	if (json_is_object(v)) {
		out = json_object();
		json_object_foreach ((json_t *)v, key, m) {
			switch (rnd(4)) {
			case 0:
				break;
			case 1:
				assert_int_equal(
					json_object_set_new(out, key, mutate(m, depth - 1)), 0);
				break;
			default:
				assert_int_equal(json_object_set_new(out, key, json_deep_copy(m)),
						 0);
			}
		}
		if (rnd(2))
			assert_int_equal(json_object_set_new(out,
							     gen_keys[rnd(VC_ARRAY_SIZE(gen_keys))],
							     gen(depth - 1)),
					 0);
		return out;
	}
	if (json_is_array(v)) {
		out = json_array();
		for (i = 0; i < json_array_size(v); i++) {
			m = json_array_get(v, i);
			switch (rnd(5)) {
			case 0:
				break;
			case 1:
				assert_int_equal(json_array_append_new(out, mutate(m, depth - 1)),
						 0);
				break;
			default:
				assert_int_equal(json_array_append_new(out, json_deep_copy(m)), 0);
			}
		}
		if (rnd(2))
			assert_int_equal(json_array_append_new(out, gen(depth - 1)), 0);
		return out;
	}
	return rnd(2) ? json_deep_copy(v) : gen(depth);
}

static void test_diff_apply_round_trip_random(void **state)
{
	json_t *a, *b, *ops, *r, *mp;
	struct vc_error err;
	int i, nonempty = 0, merged = 0;
	size_t total_ops = 0;
	char *sa, *sb;

	(void)state;
	rng = 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < 400; i++) {
		a = gen_kind(5, 6 + rnd(3));
		b = i % 4 == 3 ? gen(5) : mutate(a, 5);
		ops = vc_json_patch_diff(a, b);
		assert_non_null(ops);
		nonempty += json_array_size(ops) > 0;
		total_ops += json_array_size(ops);
		if (vc_json_patch_apply(a, ops, &r, &err) != 0 || !vc_json_equal(r, b)) {
			sa = vc_json_dumps_sorted(a);
			sb = vc_json_dumps_sorted(b);
			fail_msg("case %d: diff of %s -> %s does not round-trip: %s", i, sa, sb,
				 err.text);
		}
		json_decref(r);
		json_decref(ops);
		/* diff(b, b) is empty. */
		ops = vc_json_patch_diff(b, b);
		assert_int_equal(json_array_size(ops), 0);
		json_decref(ops);
		/* The merge patch round-trips whenever `to` has no null members. */
		if (!json_has_null_member(b)) {
			mp = vc_json_merge_patch_diff(a, b);
			assert_non_null(mp);
			assert_int_equal(vc_json_merge_patch_apply(a, mp, &r, &err), 0);
			assert_true(vc_json_equal(r, b));
			merged++;
			json_decref(r);
			json_decref(mp);
		}
		json_decref(b);
		json_decref(a);
	}
	/* The generator must produce real work. */
	assert_true(nonempty > 300);
	assert_true(total_ops > 600);
	assert_true(merged > 250);
}

static void test_diff_alloc_failures(void **state)
{
	json_t *a = parse("{\"a\":[1,2,3],\"b\":{\"c\":\"d\",\"e\":1},\"x/y\":0,\"gone\":1}");
	json_t *b = parse("{\"a\":[1,5],\"b\":{\"c\":\"D\",\"f\":[true]},\"x/y\":0,\"new\":{}}");
	json_t *ops, *want = vc_json_patch_diff(a, b);
	long n, failures;

	(void)state;
	assert_non_null(want);
	assert_int_equal(json_array_size(want), 7);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		ops = vc_json_patch_diff(a, b);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (ops) {
			assert_true(json_equal(ops, want));
			json_decref(ops);
			if (failures == 0)
				break;
		}
	}
	assert_true(n > 20);
	json_decref(want);
	json_decref(b);
	json_decref(a);
}

/* Merge patch. */

struct merge_case {
	const char *target, *patch, *result;
};

/* RFC 7386 appendix A, all rows in order. */
static const struct merge_case rfc7386[] = {
	{ "{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}" },
	{ "{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}" },
	{ "{\"a\":\"b\"}", "{\"a\":null}", "{}" },
	{ "{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}" },
	{ "{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}" },
	{ "{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}" },
	{ "{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}", "{\"a\":{\"b\":\"d\"}}" },
	{ "{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}" },
	{ "[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]" },
	{ "{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]" },
	{ "{\"a\":\"foo\"}", "null", "null" },
	{ "{\"a\":\"foo\"}", "\"bar\"", "\"bar\"" },
	{ "{\"e\":null}", "{\"a\":1}", "{\"a\":1,\"e\":null}" },
	{ "[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}" },
	{ "{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}" },
	/* Section 3's example. */
	{ "{\"title\":\"Goodbye!\",\"author\":{\"givenName\":\"John\",\"familyName\":\"Doe\"},"
	  "\"tags\":[\"example\",\"sample\"],\"content\":\"This will be unchanged\"}",
	  "{\"title\":\"Hello!\",\"phoneNumber\":\"+01-123-456-7890\","
	  "\"author\":{\"familyName\":null},\"tags\":[\"example\"]}",
	  "{\"author\":{\"givenName\":\"John\"},\"content\":\"This will be unchanged\","
	  "\"phoneNumber\":\"+01-123-456-7890\",\"tags\":[\"example\"],\"title\":\"Hello!\"}" },
};

static void test_merge_rfc7386_case(void **state)
{
	const struct merge_case *mc = *state;
	json_t *t = parse(mc->target), *p = parse(mc->patch), *r = NULL;
	char *before = vc_json_dumps_sorted(t);
	struct vc_error err;

	assert_int_equal(vc_json_merge_patch_apply(t, p, &r, &err), 0);
	assert_dump(r, mc->result);
	assert_dump(t, before);
	vc_free(before);
	json_decref(r);
	json_decref(p);
	json_decref(t);
}

static void test_merge_apply_edges(void **state)
{
	json_t *p = parse("{\"a\":{\"b\":null,\"c\":1}}"), *r = (json_t *)1;
	struct vc_error err;

	(void)state;
	/* No target yet: treated as absent. */
	assert_int_equal(vc_json_merge_patch_apply(NULL, p, &r, &err), 0);
	assert_dump(r, "{\"a\":{\"c\":1}}");
	json_decref(r);
	assert_int_equal(vc_json_merge_patch_apply(p, NULL, &r, &err), VC_EINVAL);
	assert_null(r);
	assert_string_equal(err.text, "no merge patch to apply");
	assert_int_equal(vc_json_merge_patch_apply(p, p, NULL, &err), VC_EINVAL);
	json_decref(p);
}

static void check_merge_diff(const char *from, const char *to, const char *expected)
{
	json_t *a = parse(from), *b = parse(to), *mp, *r;
	struct vc_error err;

	mp = vc_json_merge_patch_diff(a, b);
	assert_non_null(mp);
	assert_dump(mp, expected);
	assert_int_equal(vc_json_merge_patch_apply(a, mp, &r, &err), 0);
	if (!json_has_null_member(b))
		assert_true(vc_json_equal(r, b));
	json_decref(r);
	json_decref(mp);
	json_decref(b);
	json_decref(a);
}

static void test_merge_diff(void **state)
{
	(void)state;
	check_merge_diff("{\"a\":1,\"b\":{\"c\":1,\"d\":2},\"e\":[1],\"g\":{\"h\":1}}",
			 "{\"a\":1.0,\"b\":{\"c\":3},\"e\":[2],\"f\":null,\"g\":[]}",
			 "{\"b\":{\"c\":3,\"d\":null},\"e\":[2],\"g\":[]}");
	check_merge_diff("{\"a\":1}", "{\"a\":1}", "{}");
	check_merge_diff("[1]", "{\"a\":1}", "{\"a\":1}");
	check_merge_diff("{\"a\":1}", "[1]", "[1]");
	check_merge_diff("{\"a\":{\"b\":1}}", "{\"a\":{\"b\":1,\"c\":{\"d\":[]}}}",
			 "{\"a\":{\"c\":{\"d\":[]}}}");
	/* A member set to null can only be expressed as a deletion. */
	check_merge_diff("{\"a\":1}", "{\"a\":null}", "{\"a\":null}");
	assert_null(vc_json_merge_patch_diff(NULL, json_true()));
	assert_null(vc_json_merge_patch_diff(json_true(), NULL));
}

static void test_merge_alloc_failures(void **state)
{
	json_t *t = parse("{\"metadata\":{\"labels\":{\"a\":\"b\",\"c\":\"d\"}},\"spec\":[1,2]}");
	json_t *p = parse("{\"metadata\":{\"labels\":{\"a\":null,\"e\":{\"f\":null,\"g\":1}}},"
			  "\"spec\":{\"x\":[1]},\"status\":\"s\"}");
	json_t *want_r = NULL, *want_d, *r, *d;
	struct vc_error err;
	long n, failures;
	int rc;

	(void)state;
	assert_int_equal(vc_json_merge_patch_apply(t, p, &want_r, &err), 0);
	assert_dump(want_r, "{\"metadata\":{\"labels\":{\"c\":\"d\",\"e\":{\"g\":1}}},"
			    "\"spec\":{\"x\":[1]},\"status\":\"s\"}");
	want_d = vc_json_merge_patch_diff(t, want_r);
	assert_non_null(want_d);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_json_merge_patch_apply(t, p, &r, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(json_equal(r, want_r));
			json_decref(r);
			if (failures == 0)
				break;
		} else {
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(r);
			assert_string_equal(err.text, "out of memory");
		}
	}
	assert_true(n > 5);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		d = vc_json_merge_patch_diff(t, want_r);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (d) {
			assert_true(json_equal(d, want_d));
			json_decref(d);
			if (failures == 0)
				break;
		}
	}
	assert_true(n > 5);
	json_decref(want_d);
	json_decref(want_r);
	json_decref(p);
	json_decref(t);
}

static int setup(void **state)
{
	(void)state;
	vc_alloc_install_json();
	return 0;
}

#define MERGE_CASE(i) cmocka_unit_test_prestate(test_merge_rfc7386_case, (void *)&rfc7386[i])

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc6902_a1_add_object_member),
		cmocka_unit_test(test_rfc6902_a2_add_array_element),
		cmocka_unit_test(test_rfc6902_a3_remove_object_member),
		cmocka_unit_test(test_rfc6902_a4_remove_array_element),
		cmocka_unit_test(test_rfc6902_a5_replace),
		cmocka_unit_test(test_rfc6902_a6_move),
		cmocka_unit_test(test_rfc6902_a7_move_array_element),
		cmocka_unit_test(test_rfc6902_a8_test_success),
		cmocka_unit_test(test_rfc6902_a9_test_error),
		cmocka_unit_test(test_rfc6902_a10_add_nested_object),
		cmocka_unit_test(test_rfc6902_a11_ignore_unknown_members),
		cmocka_unit_test(test_rfc6902_a12_add_to_nonexistent_target),
		cmocka_unit_test(test_rfc6902_a13_invalid_patch_document),
		cmocka_unit_test(test_rfc6902_a14_escape_ordering),
		cmocka_unit_test(test_rfc6902_a15_string_vs_number),
		cmocka_unit_test(test_rfc6902_a16_add_array_value),
		cmocka_unit_test(test_patch_root_operations),
		cmocka_unit_test(test_patch_array_indexes),
		cmocka_unit_test(test_patch_leading_zeros_rejected),
		cmocka_unit_test(test_patch_index_out_of_range),
		cmocka_unit_test(test_patch_missing_targets),
		cmocka_unit_test(test_patch_move_rules),
		cmocka_unit_test(test_patch_copy_is_deep),
		cmocka_unit_test(test_patch_test_numeric_equality),
		cmocka_unit_test(test_patch_malformed_operations),
		cmocka_unit_test(test_patch_malformed_pointers),
		cmocka_unit_test(test_patch_nul_in_path),
		cmocka_unit_test(test_patch_bad_arguments),
		cmocka_unit_test(test_patch_copy_limit),
		cmocka_unit_test(test_patch_depth_limit),
		cmocka_unit_test(test_patch_apply_alloc_failures),
		cmocka_unit_test(test_diff_equal_is_empty),
		cmocka_unit_test(test_diff_objects),
		cmocka_unit_test(test_diff_arrays),
		cmocka_unit_test(test_diff_type_changes),
		cmocka_unit_test(test_diff_webhook_shape),
		cmocka_unit_test(test_diff_apply_round_trip_random),
		cmocka_unit_test(test_diff_alloc_failures),
		MERGE_CASE(0),
		MERGE_CASE(1),
		MERGE_CASE(2),
		MERGE_CASE(3),
		MERGE_CASE(4),
		MERGE_CASE(5),
		MERGE_CASE(6),
		MERGE_CASE(7),
		MERGE_CASE(8),
		MERGE_CASE(9),
		MERGE_CASE(10),
		MERGE_CASE(11),
		MERGE_CASE(12),
		MERGE_CASE(13),
		MERGE_CASE(14),
		MERGE_CASE(15),
		cmocka_unit_test(test_merge_apply_edges),
		cmocka_unit_test(test_merge_diff),
		cmocka_unit_test(test_merge_alloc_failures),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
