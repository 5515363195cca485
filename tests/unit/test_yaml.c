/* Unit tests for vc_yaml: scalar typing, structure, anchors and merges, errors, limits. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include <unistd.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_yaml.h"

/* ---- helpers -------------------------------------------------------------------------------- */

/* Parse json (any value) or fail the test. New reference. */
static json_t *json_or_die(const char *json, const char *file, int line)
{
	json_error_t jerr;
	json_t *v = json_loads(json, JSON_DECODE_ANY, &jerr);

	if (!v)
		print_error("bad expected JSON at %s:%d: %s\n", file, line, jerr.text);
	_assert_true(cast_ptr_to_largest_integral_type(v), "expected JSON parses", file, line);
	return v;
}

/* The single document of yaml must equal the JSON text json (types included). */
static void expect_json_n(const char *yaml, size_t len, const char *json, const char *file,
			  int line)
{
	struct vc_error err;
	json_t *doc = NULL, *want = json_or_die(json, file, line);
	int rc = vc_yaml_load_one(yaml, len, &doc, &err);

	if (rc)
		print_error("vc_yaml_load_one: %s\n", err.text);
	_assert_int_equal(rc, 0, file, line);
	if (!json_equal(doc, want)) {
		char *got = json_dumps(doc, JSON_ENCODE_ANY);

		print_error("got  %s\nwant %s\n", got, json);
		free(got);
	}
	_assert_true(json_equal(doc, want), "json_equal", file, line);
	json_decref(doc);
	json_decref(want);
}

#define EXPECT_JSON(yaml, json) expect_json_n(yaml, strlen(yaml), json, __FILE__, __LINE__)

/* The whole stream must equal the JSON array text json. */
static void expect_docs(const char *yaml, const char *json, const char *file, int line)
{
	struct vc_error err;
	json_t *docs = NULL, *want = json_or_die(json, file, line);
	int rc = vc_yaml_load(yaml, strlen(yaml), &docs, &err);

	if (rc)
		print_error("vc_yaml_load: %s\n", err.text);
	_assert_int_equal(rc, 0, file, line);
	if (!json_equal(docs, want)) {
		char *got = json_dumps(docs, 0);

		print_error("got  %s\nwant %s\n", got, json);
		free(got);
	}
	_assert_true(json_equal(docs, want), "json_equal", file, line);
	json_decref(docs);
	json_decref(want);
}

#define EXPECT_DOCS(yaml, json) expect_docs(yaml, json, __FILE__, __LINE__)

/* Loading must fail with exactly this code, position and text, and leave *docs NULL. */
static void expect_error_n(const char *yaml, size_t len, const struct vc_yaml_limits *limits,
			   int code, int eline, int ecolumn, size_t eposition, const char *text,
			   const char *file, int line)
{
	struct vc_error err;
	json_t *docs = (json_t *)&err; /* must be overwritten with NULL */
	int rc = vc_yaml_load_ex(yaml, len, limits, &docs, &err);

	_assert_int_equal(rc, code, file, line);
	_assert_int_equal(err.code, code, file, line);
	_assert_true(docs == NULL, "docs == NULL", file, line);
	_assert_string_equal(err.text, text, file, line);
	_assert_int_equal(err.line, eline, file, line);
	_assert_int_equal(err.column, ecolumn, file, line);
	_assert_int_equal(err.position, eposition, file, line);
}

#define EXPECT_ERROR(yaml, line, col, pos, text)                                            \
	expect_error_n(yaml, strlen(yaml), NULL, VC_EPARSE, line, col, pos, text, __FILE__, \
		       __LINE__)
#define EXPECT_ERROR_N(yaml, len, line, col, pos, text) \
	expect_error_n(yaml, len, NULL, VC_EPARSE, line, col, pos, text, __FILE__, __LINE__)
#define EXPECT_LIMIT(yaml, limits, line, col, pos, text)                                     \
	expect_error_n(yaml, strlen(yaml), limits, VC_E2BIG, line, col, pos, text, __FILE__, \
		       __LINE__)

/* ---- scalar typing ----------------------------------------------------------------------------
 */

static void test_null_forms(void **state)
{
	(void)state;
	EXPECT_JSON("[~, null, Null, NULL]", "[null, null, null, null]");
	EXPECT_JSON("a:\nb: ~\nc: !!null\nd: !!null ''\n",
		    "{\"a\":null,\"b\":null,\"c\":null,\"d\":null}");
	/* Not null: other spellings and quoted forms. */
	EXPECT_JSON("[nULL, NUll, 'null', \"~\", '']",
		    "[\"nULL\", \"NUll\", \"null\", \"~\", \"\"]");
}

static void test_bool_true_forms(void **state)
{
	(void)state;
	EXPECT_JSON("[true, True, TRUE, y, Y, yes, Yes, YES, on, On, ON]",
		    "[true, true, true, true, true, true, true, true, true, true, true]");
}

static void test_bool_false_forms(void **state)
{
	(void)state;
	EXPECT_JSON(
		"[false, False, FALSE, n, N, no, No, NO, off, Off, OFF]",
		"[false, false, false, false, false, false, false, false, false, false, false]");
}

static void test_bool_lookalikes_are_strings(void **state)
{
	(void)state;
	EXPECT_JSON(
		"[tRUE, yES, oN, nO, 'true', \"yes\", truex, t, f, o, 0n]",
		"[\"tRUE\", \"yES\", \"oN\", \"nO\", \"true\", \"yes\", \"truex\", \"t\", \"f\", "
		"\"o\", \"0n\"]");
}

static void test_decimal_integers(void **state)
{
	(void)state;
	EXPECT_JSON("[0, -0, +5, -17, 1_000, 1__0_, 123456789012, 007]",
		    "[0, 0, 5, -17, 1000, 10, 123456789012, 7]");
	EXPECT_JSON("[9223372036854775807, -9223372036854775808]",
		    "[9223372036854775807, -9223372036854775808]");
}

static void test_prefixed_integers(void **state)
{
	(void)state;
	EXPECT_JSON("[0x1F, 0X1f, -0x10, +0x_ff, 0o17, 0O17, 017, +0o7, 0b101, 0B11, -0b11]",
		    "[31, 31, -16, 255, 15, 15, 15, 7, 5, 3, -3]");
	/* go-yaml retries "0b" with base 2, which accepts a sign after the prefix. */
	EXPECT_JSON("[0b-101, 0b+1]", "[-5, 1]");
	/* Invalid digits: strings, except where the float rule applies ("08" is 8.0 there). */
	EXPECT_JSON("[0x, 0b2, 0o8, 0xg, 08, 09.5, 1_000x]",
		    "[\"0x\", \"0b2\", \"0o8\", \"0xg\", 8, 9.5, \"1_000x\"]");
}

static void test_integers_beyond_int64(void **state)
{
	(void)state;
	/* Unsigned values are JSON reals; beyond uint64 they are floats by the float rule. */
	EXPECT_JSON("[9223372036854775808, 18446744073709551615, 0xFFFFFFFFFFFFFFFF, "
		    "18446744073709551616]",
		    "[9.2233720368547758e18, 1.8446744073709552e19, 1.8446744073709552e19, "
		    "1.8446744073709552e19]");
	/* -2^63-1 is a float that rounds to -2^63, integral, so a JSON integer like Go's bytes. */
	EXPECT_JSON("[-9223372036854775809, 0x1_0000_0000_0000_0000]",
		    "[-9223372036854775808, \"0x1_0000_0000_0000_0000\"]");
}

static void test_floats(void **state)
{
	(void)state;
	EXPECT_JSON("[1.5, -1.5, .5, +.5, -.5e1, 1.5e-3, 6.02e+23, 1_000.5, 0.5_0, 3.25E2]",
		    "[1.5, -1.5, 0.5, 0.5, -5, 0.0015, 6.02e23, 1000.5, 0.5, 325]");
	/* Integral floats become JSON integers, as encoding/json writes them without fraction. */
	EXPECT_JSON("[1e3, 1., 1.0, .5e1, -0.0, 1e-400, !!float 1, 1e19]",
		    "[1000, 1, 1, 5, 0, 0, 1, 1e19]");
}

static void test_float_lookalikes_are_strings(void **state)
{
	(void)state;
	/* Overflow stays a string (Go's ParseFloat fails with ErrRange); "." and "_" rules. */
	EXPECT_JSON(
		"[1.2.3, 1e, ., 1e400, ._5, .5_0, -.nan, +.nan, .Nan, 1.5.e3, 0x1p3, '1.5']",
		"[\"1.2.3\", \"1e\", \".\", \"1e400\", \"._5\", \".5_0\", \"-.nan\", \"+.nan\", "
		"\".Nan\", \"1.5.e3\", \"0x1p3\", \"1.5\"]");
}

static void test_inf_nan_are_errors(void **state)
{
	const char *suffix = "infinity and NaN are not JSON numbers";
	static const char *const cases[] = { ".inf",  ".Inf", ".INF", "+.inf", "-.inf",
					     "-.INF", ".nan", ".NaN", ".NAN",  "!!float .inf" };
	char yaml[64], text[160];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		const char *shown = strncmp(cases[i], "!!float ", 8) ? cases[i] : cases[i] + 8;

		snprintf(yaml, sizeof(yaml), "a: 1\nb: %s\n", cases[i]);
		snprintf(text, sizeof(text), "yaml: line 2: cannot convert '%s' to JSON: %s", shown,
			 suffix);
		expect_error_n(yaml, strlen(yaml), NULL, VC_EPARSE, 2, 4, 8, text, __FILE__,
			       __LINE__);
	}
}

static void test_quoted_and_block_scalars_are_strings(void **state)
{
	(void)state;
	EXPECT_JSON("[\"1\", '2.5', \"true\", 'null', \"\", '~', \"0x10\"]",
		    "[\"1\", \"2.5\", \"true\", \"null\", \"\", \"~\", \"0x10\"]");
	EXPECT_JSON("lit: |\n  line1\n  line2\n\n"
		    "fold: >\n  a\n  b\n\n  c\n"
		    "strip: |-\n  42\n\n"
		    "keep: |+\n  y\n\n"
		    "ind: |2\n    z\n"
		    "num: |\n  123\n",
		    "{\"lit\": \"line1\\nline2\\n\", \"fold\": \"a b\\nc\\n\", \"strip\": \"42\","
		    " \"keep\": \"y\\n\\n\", \"ind\": \"  z\\n\", \"num\": \"123\\n\"}");
	EXPECT_JSON(
		"q1: 'it''s'\nq2: \"tab\\there\\u00e9\\U0001F600\\x41\"\nq3: \"a\n  b\"\n",
		"{\"q1\": \"it's\", \"q2\": \"tab\\there\\u00e9\\ud83d\\ude00A\", \"q3\": \"a b\"}");
}

static void test_explicit_tags(void **state)
{
	(void)state;
	EXPECT_JSON("[!!str 123, !!str ~, !!str true, !!int \"42\", !!int 0x10, !!float 1.5,"
		    " !!float '2', !!bool \"yes\", !!bool 'off', !!null \"\", !!null '~',"
		    " !<tag:yaml.org,2002:int> \"7\"]",
		    "[\"123\", \"~\", \"true\", 42, 16, 1.5, 2, true, false, null, null, 7]");
	EXPECT_JSON("a: !!str\nb: !!str 0\n", "{\"a\": \"\", \"b\": \"0\"}");
}

static void test_explicit_tag_mismatch(void **state)
{
	(void)state;
	EXPECT_ERROR("a: !!int abc\n", 1, 4, 3,
		     "yaml: line 1: cannot decode !!str `abc` as a !!int");
	EXPECT_ERROR("a: !!bool 1\n", 1, 4, 3, "yaml: line 1: cannot decode !!int `1` as a !!bool");
	EXPECT_ERROR("a: !!null x\n", 1, 4, 3, "yaml: line 1: cannot decode !!str `x` as a !!null");
	EXPECT_ERROR("a: !!int\n", 1, 4, 3, "yaml: line 1: cannot decode !!null `` as a !!int");
	EXPECT_ERROR("x: 1\na: !!float 18446744073709551615\n", 2, 4, 8,
		     "yaml: line 2: cannot decode !!int `18446744073709551615` as a !!float");
	EXPECT_ERROR("- !!int 1.5\n", 1, 3, 2,
		     "yaml: line 1: cannot decode !!float `1.5` as a !!int");
}

static void test_other_tags_give_strings(void **state)
{
	(void)state;
	/* Local tags, "!", !!binary and !!timestamp keep the text; collection tags are ignored. */
	EXPECT_JSON("[!foo 123, ! 123, ! true, !!binary aGk=, !!timestamp 2001-12-14, 2001-12-14,"
		    " !foo {a: 1}, !!set [1], !!merge <<, <<]",
		    "[\"123\", \"123\", \"true\", \"aGk=\", \"2001-12-14\", \"2001-12-14\","
		    " {\"a\": 1}, [1], \"<<\", \"<<\"]");
}

/* ---- keys ----------------------------------------------------------------------------------- */

static void test_scalar_keys_become_strings(void **state)
{
	(void)state;
	EXPECT_JSON(
		"{2: a, 0x10: b, -7: c, yes: d, off: e, \"2.0\": f, 'x y': g}",
		"{\"2\": \"a\", \"16\": \"b\", \"-7\": \"c\", \"true\": \"d\", \"false\": \"e\","
		" \"2.0\": \"f\", \"x y\": \"g\"}");
	/* GitHub-Actions style "on:" is the boolean key true, as kubectl sees it. */
	EXPECT_JSON("on: push\n", "{\"true\": \"push\"}");
}

static void test_float_keys_use_go_float32_format(void **state)
{
	(void)state;
	EXPECT_JSON("{1.5: a, 1.0: b, 1e10: c, 0.1: d, 3.14159265358979: e, 1234567.0: f,"
		    " 0.0001: g, 0.00001: h, -0.0: i, 100000.0: j, 123456.7: k, 3.4028235e38: l,"
		    " 1e-45: m, 16777217.0: p, -1.5e-7: o}",
		    "{\"1.5\": \"a\", \"1\": \"b\", \"1e+10\": \"c\", \"0.1\": \"d\","
		    " \"3.1415927\": \"e\", \"1.234567e+06\": \"f\", \"0.0001\": \"g\","
		    " \"1e-05\": \"h\", \"-0\": \"i\", \"100000\": \"j\", \"123456.7\": \"k\","
		    " \"3.4028235e+38\": \"l\", \"1e-45\": \"m\", \"1.6777216e+07\": \"p\","
		    " \"-1.5e-07\": \"o\"}");
	/* Infinite keys are fine (only values cannot be infinite); float32 overflow is infinite. */
	EXPECT_JSON("{.inf: a, -.Inf: b, .NaN: c}",
		    "{\".inf\": \"a\", \"-.inf\": \"b\", \".nan\": \"c\"}");
	EXPECT_JSON("{1e39: a, 5e-324: b}", "{\".inf\": \"a\", \"0\": \"b\"}");
}

static void test_invalid_keys(void **state)
{
	(void)state;
	EXPECT_ERROR("a: 1\n~: 2\n", 2, 1, 5, "yaml: line 2: invalid map key: null");
	EXPECT_ERROR("? \n: x\n", 1, 2, 1, "yaml: line 1: invalid map key: null");
	EXPECT_ERROR("18446744073709551615: a\n", 1, 1, 0,
		     "yaml: line 1: invalid map key: 18446744073709551615 (beyond int64)");
	EXPECT_ERROR("x: 1\n{a: 1}: b\n", 2, 1, 5, "yaml: line 2: invalid map key: a mapping");
	EXPECT_ERROR("x: {[1, 2]: b}\n", 1, 5, 4, "yaml: line 1: invalid map key: a sequence");
	EXPECT_ERROR("? - 1\n: b\n", 1, 3, 2, "yaml: line 1: invalid map key: a sequence");
	EXPECT_ERROR("a: &m [1]\n*m : 2\n", 2, 1, 10, "yaml: line 2: invalid map key: a sequence");
}

static void test_duplicate_keys(void **state)
{
	(void)state;
	EXPECT_ERROR("a: 1\nb: 2\na: 3\n", 3, 1, 10, "yaml: line 3: key \"a\" already set in map");
	EXPECT_ERROR("a: {b: 1, b: 2}\n", 1, 11, 10, "yaml: line 1: key \"b\" already set in map");
	/* Keys that only become equal as strings are duplicates too. */
	EXPECT_ERROR("1: a\n\"1\": b\n", 2, 1, 5, "yaml: line 2: key \"1\" already set in map");
	EXPECT_ERROR("on: a\ntrue: b\n", 2, 1, 6, "yaml: line 2: key \"true\" already set in map");
	EXPECT_ERROR("1: a\n1.0: b\n", 2, 1, 5, "yaml: line 2: key \"1\" already set in map");
	EXPECT_ERROR("? a\n? a\n", 2, 3, 6, "yaml: line 2: key \"a\" already set in map");
	/* The same key in different mappings is fine. */
	EXPECT_JSON("a: {x: 1}\nb: {x: 2}\n", "{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}");
}

static void test_nul_in_strings_and_keys(void **state)
{
	struct vc_error err;
	json_t *doc;
	const char *yaml = "v: \"a\\0b\"\nw: \"\\x00\"\n";

	(void)state;
	/* Values keep their NULs (length-aware strings). */
	assert_int_equal(vc_yaml_load_one(yaml, strlen(yaml), &doc, &err), 0);
	assert_int_equal(json_string_length(json_object_get(doc, "v")), 3);
	assert_memory_equal(json_string_value(json_object_get(doc, "v")), "a\0b", 3);
	assert_int_equal(json_string_length(json_object_get(doc, "w")), 1);
	json_decref(doc);
	/* Keys cannot: jansson's C-string key functions would confuse "k\0x" with "k". */
	EXPECT_ERROR("a: 1\n\"k\\0x\": 1\n", 2, 1, 5,
		     "yaml: line 2: map key contains a NUL character");
	EXPECT_ERROR("{'a': 1, \"\\u0000\": 2}\n", 1, 10, 9,
		     "yaml: line 1: map key contains a NUL character");
	EXPECT_ERROR("- &k \"\\0\"\n- {*k : 1}\n", 2, 4, 13,
		     "yaml: line 2: map key contains a NUL character");
}

/* ---- structure ------------------------------------------------------------------------------ */

static void test_nested_block_collections(void **state)
{
	(void)state;
	EXPECT_JSON(
		"a:\n  b:\n    - 1\n    - c: d\n      e: [f]\n    -\n      - x\n  g: {}\nh: []\n",
		"{\"a\": {\"b\": [1, {\"c\": \"d\", \"e\": [\"f\"]}, [\"x\"]], \"g\": {}},"
		" \"h\": []}");
	EXPECT_JSON("- - - deep\n  - two\n- three\n", "[[[\"deep\"], \"two\"], \"three\"]");
	EXPECT_JSON("a:\n- 1\n- 2\nb: x\n", "{\"a\": [1, 2], \"b\": \"x\"}");
}

static void test_flow_style(void **state)
{
	(void)state;
	EXPECT_JSON("{a: [1, {b: c}, [d, e]], f: {g: h}, i: [], j: {}, k: [a b, 'c, d']}",
		    "{\"a\": [1, {\"b\": \"c\"}, [\"d\", \"e\"]], \"f\": {\"g\": \"h\"}, \"i\": [],"
		    " \"j\": {}, \"k\": [\"a b\", \"c, d\"]}");
	EXPECT_JSON("[a: 1, b]", "[{\"a\": 1}, \"b\"]");
	EXPECT_JSON("{a, b: }", "{\"a\": null, \"b\": null}");
}

static void test_json_is_yaml(void **state)
{
	(void)state;
	EXPECT_JSON(
		"{\"a\": [1, 2.5, \"x\", null, true, false, {}], \"b\": {\"c\": \"\\u00e9\\n\"},"
		" \"d\": -1e-3}",
		"{\"a\": [1, 2.5, \"x\", null, true, false, {}], \"b\": {\"c\": \"\\u00e9\\n\"},"
		" \"d\": -0.001}");
	EXPECT_JSON("{\"a\":1,\"b\":[true]}", "{\"a\": 1, \"b\": [true]}");
}

static void test_root_scalars(void **state)
{
	(void)state;
	EXPECT_JSON("hello", "\"hello\"");
	EXPECT_JSON("--- 42\n", "42");
	EXPECT_JSON("\"\"", "\"\"");
}

static void test_multi_document_stream(void **state)
{
	(void)state;
	EXPECT_DOCS("a: 1\n---\nb: 2\n", "[{\"a\": 1}, {\"b\": 2}]");
	/* Empty, comment-only and null documents are skipped; "null" quoted is kept. */
	EXPECT_DOCS("---\n# only a comment\n---\n---\nkind: A\n--- ~\n--- null\n...\n"
		    "--- \"null\"\n--- 5\n---\n",
		    "[{\"kind\": \"A\"}, \"null\", 5]");
	EXPECT_DOCS("%YAML 1.1\n--- \n...\n---\n- x\n...\n", "[[\"x\"]]");
	EXPECT_DOCS("kind: A\n---\n", "[{\"kind\": \"A\"}]");
}

static void test_empty_streams(void **state)
{
	(void)state;
	EXPECT_DOCS("", "[]");
	EXPECT_DOCS("   \n\n", "[]");
	EXPECT_DOCS("# nothing\n# here\n", "[]");
	EXPECT_DOCS("---\n---\n...\n", "[]");
}

static void test_load_one_counts_documents(void **state)
{
	struct vc_error err;
	json_t *doc = (json_t *)&err;
	const char *two = "---\n---\na: 1\n--- ~\n---\n# c\nb: 2\n";
	const char *three = "a: 1\n---\nb: 2\n---\nc: 3\n";

	(void)state;
	EXPECT_JSON("---\n---\nx: 1\n--- ~\n", "{\"x\": 1}");
	assert_int_equal(vc_yaml_load_one("# c\n", 4, &doc, &err), VC_EPARSE);
	assert_null(doc);
	assert_string_equal(err.text, "yaml: expected exactly one document, found 0");
	assert_int_equal(err.line, 0);
	doc = (json_t *)&err;
	/* Positioned at the start of the second non-null document. */
	assert_int_equal(vc_yaml_load_one(two, strlen(two), &doc, &err), VC_EPARSE);
	assert_null(doc);
	assert_string_equal(err.text, "yaml: line 5: expected exactly one document, found 2");
	assert_int_equal(err.line, 5);
	assert_int_equal(err.column, 1);
	assert_int_equal(err.position, 19);
	assert_int_equal(vc_yaml_load_one(three, strlen(three), &doc, &err), VC_EPARSE);
	assert_string_equal(err.text, "yaml: line 2: expected exactly one document, found 3");
	/* Errors inside the stream win over the count. */
	assert_int_equal(vc_yaml_load_one("a: 1\n---\nb: *x\n", 15, &doc, &err), VC_EPARSE);
	assert_string_equal(err.text, "yaml: line 3: unknown anchor 'x' referenced");
}

static const char volcano_job_yaml[] =
	"# A Volcano Job in the shape of the job-controller spec's examples.\n"
	"apiVersion: batch.volcano.sh/v1alpha1\n"
	"kind: Job\n"
	"metadata:\n"
	"  name: tf-job\n"
	"  namespace: ns1\n"
	"  labels:\n"
	"    app: tf\n"
	"  annotations:\n"
	"    volcano.sh/preemptable: \"true\"\n"
	"spec:\n"
	"  minAvailable: 3\n"
	"  schedulerName: volcano\n"
	"  queue: default\n"
	"  maxRetry: 5\n"
	"  ttlSecondsAfterFinished: 600\n"
	"  priorityClassName: high-priority\n"
	"  plugins:\n"
	"    env: []\n"
	"    svc: [\"--disable-network-policy=true\"]\n"
	"    ssh: []\n"
	"  policies:\n"
	"    - event: PodEvicted\n"
	"      action: RestartJob\n"
	"    - events: [PodFailed, PodEvicted]\n"
	"      action: AbortJob\n"
	"      timeout: 10m\n"
	"  volumes:\n"
	"    - mountPath: /data\n"
	"      volumeClaimName: shared-pvc\n"
	"  tasks:\n"
	"    - name: ps\n"
	"      replicas: 1\n"
	"      template: &pod\n"
	"        metadata:\n"
	"          labels: {role: ps}\n"
	"        spec:\n"
	"          restartPolicy: OnFailure\n"
	"          containers:\n"
	"            - name: tensorflow\n"
	"              image: volcanosh/dist-mnist-tf-example:0.0.1\n"
	"              command: [\"sh\", \"-c\"]\n"
	"              args:\n"
	"                - |\n"
	"                  PS_HOST=$(cat /etc/volcano/ps.host | sed 's/$/:2222/' | paste -sd, -)\n"
	"                  python /var/tf_dist_mnist/dist_mnist.py --ps_hosts=${PS_HOST}\n"
	"              ports:\n"
	"                - containerPort: 2222\n"
	"                  name: tfjob-port\n"
	"              resources:\n"
	"                requests: {cpu: 500m, memory: 1Gi}\n"
	"                limits:\n"
	"                  cpu: 1\n"
	"                  nvidia.com/gpu: 0\n"
	"    - name: worker\n"
	"      replicas: 2\n"
	"      minAvailable: 2\n"
	"      policies:\n"
	"        - event: TaskCompleted\n"
	"          action: CompleteJob\n"
	"        - exitCode: 137\n"
	"          action: RestartTask\n"
	"      template:\n"
	"        <<: *pod\n"
	"        metadata:\n"
	"          labels: {role: worker}\n";

static const char volcano_job_json[] =
	"{\"apiVersion\": \"batch.volcano.sh/v1alpha1\", \"kind\": \"Job\","
	" \"metadata\": {\"name\": \"tf-job\", \"namespace\": \"ns1\", \"labels\": {\"app\": \"tf\"},"
	"  \"annotations\": {\"volcano.sh/preemptable\": \"true\"}},"
	" \"spec\": {\"minAvailable\": 3, \"schedulerName\": \"volcano\", \"queue\": \"default\","
	"  \"maxRetry\": 5, \"ttlSecondsAfterFinished\": 600, \"priorityClassName\": \"high-priority\","
	"  \"plugins\": {\"env\": [], \"svc\": [\"--disable-network-policy=true\"], \"ssh\": []},"
	"  \"policies\": [{\"event\": \"PodEvicted\", \"action\": \"RestartJob\"},"
	"   {\"events\": [\"PodFailed\", \"PodEvicted\"], \"action\": \"AbortJob\", \"timeout\": \"10m\"}],"
	"  \"volumes\": [{\"mountPath\": \"/data\", \"volumeClaimName\": \"shared-pvc\"}],"
	"  \"tasks\": ["
	"   {\"name\": \"ps\", \"replicas\": 1, \"template\": {"
	"     \"metadata\": {\"labels\": {\"role\": \"ps\"}},"
	"     \"spec\": {\"restartPolicy\": \"OnFailure\", \"containers\": [{"
	"       \"name\": \"tensorflow\", \"image\": \"volcanosh/dist-mnist-tf-example:0.0.1\","
	"       \"command\": [\"sh\", \"-c\"],"
	"       \"args\": [\"PS_HOST=$(cat /etc/volcano/ps.host | sed 's/$/:2222/' | paste -sd, -)\\n"
	"python /var/tf_dist_mnist/dist_mnist.py --ps_hosts=${PS_HOST}\\n\"],"
	"       \"ports\": [{\"containerPort\": 2222, \"name\": \"tfjob-port\"}],"
	"       \"resources\": {\"requests\": {\"cpu\": \"500m\", \"memory\": \"1Gi\"},"
	"                     \"limits\": {\"cpu\": 1, \"nvidia.com/gpu\": 0}}}]}}},"
	"   {\"name\": \"worker\", \"replicas\": 2, \"minAvailable\": 2,"
	"    \"policies\": [{\"event\": \"TaskCompleted\", \"action\": \"CompleteJob\"},"
	"                   {\"exitCode\": 137, \"action\": \"RestartTask\"}],"
	"    \"template\": {"
	"     \"metadata\": {\"labels\": {\"role\": \"worker\"}},"
	"     \"spec\": {\"restartPolicy\": \"OnFailure\", \"containers\": [{"
	"       \"name\": \"tensorflow\", \"image\": \"volcanosh/dist-mnist-tf-example:0.0.1\","
	"       \"command\": [\"sh\", \"-c\"],"
	"       \"args\": [\"PS_HOST=$(cat /etc/volcano/ps.host | sed 's/$/:2222/' | paste -sd, -)\\n"
	"python /var/tf_dist_mnist/dist_mnist.py --ps_hosts=${PS_HOST}\\n\"],"
	"       \"ports\": [{\"containerPort\": 2222, \"name\": \"tfjob-port\"}],"
	"       \"resources\": {\"requests\": {\"cpu\": \"500m\", \"memory\": \"1Gi\"},"
	"                     \"limits\": {\"cpu\": 1, \"nvidia.com/gpu\": 0}}}]}}}]}}";

static void test_volcano_job_manifest(void **state)
{
	json_t *want = json_or_die(volcano_job_json, __FILE__, __LINE__);
	struct vc_error err;
	json_t *docs, *first, *second, *tasks, *ps, *worker;
	char *stream;

	(void)state;
	expect_json_n(volcano_job_yaml, strlen(volcano_job_yaml), volcano_job_json, __FILE__,
		      __LINE__);
	/* The same Job twice in one stream, with a trailing separator, as `kubectl apply -f`. */
	stream = vc_asprintf("%s---\n%s---\n", volcano_job_yaml, volcano_job_yaml);
	assert_non_null(stream);
	assert_int_equal(vc_yaml_load(stream, strlen(stream), &docs, &err), 0);
	assert_int_equal(json_array_size(docs), 2);
	first = json_array_get(docs, 0);
	second = json_array_get(docs, 1);
	assert_true(json_equal(first, want));
	assert_true(json_equal(second, want));
	/* The merged template is a copy: changing one task does not change the other. */
	tasks = json_object_get(json_object_get(first, "spec"), "tasks");
	ps = json_object_get(json_object_get(json_array_get(tasks, 0), "template"), "spec");
	worker = json_object_get(json_object_get(json_array_get(tasks, 1), "template"), "spec");
	assert_int_equal(json_object_set_new(ps, "restartPolicy", json_string("Never")), 0);
	assert_string_equal(json_string_value(json_object_get(worker, "restartPolicy")),
			    "OnFailure");
	assert_ptr_not_equal(json_object_get(ps, "containers"),
			     json_object_get(worker, "containers"));
	json_decref(docs);
	json_decref(want);
	vc_free(stream);
}

/* ---- anchors, aliases, merges --------------------------------------------------------------- */

static void test_anchors_and_aliases(void **state)
{
	struct vc_error err;
	json_t *doc;
	const char *yaml = "s: &s [1, {a: b}]\nt: *s\nk: &k key\n*k : v\nc: &c 7\nm: *c\n";

	(void)state;
	EXPECT_JSON(yaml, "{\"s\": [1, {\"a\": \"b\"}], \"t\": [1, {\"a\": \"b\"}], \"k\": \"key\","
			  " \"key\": \"v\", \"c\": 7, \"m\": 7}");
	/* The latest definition of an anchor wins. */
	EXPECT_JSON("a: &x 1\nb: &x 2\nc: *x\n", "{\"a\": 1, \"b\": 2, \"c\": 2}");
	/* A scalar anchored as a key keeps its type when used as a key or a value. */
	EXPECT_JSON("- &k 1.5\n- {*k : x}\n- &t yes\n- {*t : *t}\n",
		    "[1.5, {\"1.5\": \"x\"}, true, {\"true\": true}]");
	/* Aliases are deep copies. */
	assert_int_equal(vc_yaml_load_one(yaml, strlen(yaml), &doc, &err), 0);
	assert_int_equal(json_array_set_new(json_object_get(doc, "t"), 0, json_integer(2)), 0);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(doc, "s"), 0)), 1);
	assert_true(json_object_get(doc, "s") != json_object_get(doc, "t"));
	json_decref(doc);
}

static void test_merge_keys(void **state)
{
	(void)state;
	EXPECT_JSON("base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  x: 1\n",
		    "{\"base\": {\"a\": 1, \"b\": 2}, \"m\": {\"x\": 1, \"a\": 1, \"b\": 2}}");
	/* Explicit keys win, wherever they are; earlier maps in the list win. */
	EXPECT_JSON("b: &b {a: 1, b: 2}\no: &o {b: 3, c: 4}\n"
		    "m2:\n  a: 9\n  <<: [*b, *o]\nm3:\n  <<: *o\n  c: 5\n",
		    "{\"b\": {\"a\": 1, \"b\": 2}, \"o\": {\"b\": 3, \"c\": 4},"
		    " \"m2\": {\"a\": 9, \"b\": 2, \"c\": 4}, \"m3\": {\"c\": 5, \"b\": 3}}");
	/* Inline mappings merge too; two "<<" keys act as one list, earlier first. */
	EXPECT_JSON("a: &m {k: 1}\n<<: *m\nb: 2\n<<: {k: 3, b: 4, c: 5}\n",
		    "{\"a\": {\"k\": 1}, \"b\": 2, \"k\": 1, \"c\": 5}");
	/* Quoted "<<" is an ordinary key; !!merge makes a merge. */
	EXPECT_JSON("b: &b {a: 1}\nm: {\"<<\": *b}\nq: {!!merge \"<<\": *b}\n",
		    "{\"b\": {\"a\": 1}, \"m\": {\"<<\": {\"a\": 1}}, \"q\": {\"a\": 1}}");
	/* A merge of an anchored mapping that itself merged. */
	EXPECT_JSON("a: &a {x: 1}\nb: &b {<<: *a, w: 2}\nc: {<<: *b, z: 3}\n",
		    "{\"a\": {\"x\": 1}, \"b\": {\"w\": 2, \"x\": 1}, \"c\": {\"z\": 3, \"w\": 2,"
		    " \"x\": 1}}");
	EXPECT_JSON("<<: []\n", "{}");
}

static void test_merge_errors(void **state)
{
	(void)state;
	EXPECT_ERROR("<<: 1\n", 1, 5, 4,
		     "yaml: line 1: map merge requires map or sequence of maps as the value");
	EXPECT_ERROR("a: &a 1\n<<: [*a]\n", 2, 5, 12,
		     "yaml: line 2: map merge requires map or sequence of maps as the value");
	EXPECT_ERROR("a: &a [1]\n<<: *a\n", 2, 5, 14,
		     "yaml: line 2: map merge requires map or sequence of maps as the value");
	/* go-yaml: an alias after << must name a mapping, even a sequence of mappings fails. */
	EXPECT_ERROR("s: &s [{a: 1}]\n<<: *s\n", 2, 5, 19,
		     "yaml: line 2: map merge requires map or sequence of maps as the value");
	EXPECT_JSON("s: &s {a: 1}\nm: {<<: [*s, {b: 2}]}\n",
		    "{\"s\": {\"a\": 1}, \"m\": {\"a\": 1, \"b\": 2}}");
	EXPECT_ERROR("<<: ~\n", 1, 5, 4,
		     "yaml: line 1: map merge requires map or sequence of maps as the value");
}

static void test_alias_errors(void **state)
{
	(void)state;
	EXPECT_ERROR("a: *nope\n", 1, 4, 3, "yaml: line 1: unknown anchor 'nope' referenced");
	EXPECT_ERROR("a: &a [1, *a]\n", 1, 11, 10,
		     "yaml: line 1: anchor 'a' value contains itself");
	/* Anchors do not cross documents. */
	EXPECT_ERROR("--- &a x\n--- *a\n", 2, 5, 13, "yaml: line 2: unknown anchor 'a' referenced");
	EXPECT_ERROR("*a: 1\n", 1, 1, 0, "yaml: line 1: unknown anchor 'a' referenced");
	EXPECT_ERROR("a: &i .inf\n", 1, 4, 3,
		     "yaml: line 1: cannot convert '.inf' to JSON: infinity and NaN are not JSON "
		     "numbers");
	EXPECT_ERROR("- {&i .inf : a}\n- *i\n", 2, 3, 18,
		     "yaml: line 2: cannot convert '.inf' to JSON: infinity and NaN are not JSON "
		     "numbers");
}

/* ---- syntax and encoding errors ------------------------------------------------------------- */

static void test_syntax_errors(void **state)
{
	(void)state;
	EXPECT_ERROR("a: 1\nb: c: d\n", 2, 5, 9,
		     "yaml: line 2: mapping values are not allowed in this context");
	EXPECT_ERROR("a: b: c\n", 1, 5, 4,
		     "yaml: line 1: mapping values are not allowed in this context");
	EXPECT_ERROR("a: 1\nb: @x\n", 2, 4, 8,
		     "yaml: line 2: found character that cannot start any token");
	EXPECT_ERROR("a: 1\n\tb: 2\n", 2, 1, 5,
		     "yaml: line 2: found a tab character that violates indentation");
	EXPECT_ERROR("a:\n  b: 1\n c: 2\n", 3, 2, 11, "yaml: line 3: did not find expected key");
	EXPECT_ERROR("a: \"unterminated\n", 2, 1, 17,
		     "yaml: line 2: found unexpected end of stream");
	EXPECT_ERROR("a: [1, 2\n", 2, 1, 9, "yaml: line 2: did not find expected ',' or ']'");
	EXPECT_ERROR("a: !x!y z\n", 1, 4, 3, "yaml: line 1: found undefined tag handle");
	EXPECT_ERROR("a: \"bad \\q escape\"\n", 1, 9, 8,
		     "yaml: line 1: found unknown escape character");
	EXPECT_ERROR("- a\nb: c\n", 2, 1, 4, "yaml: line 2: did not find expected '-' indicator");
	EXPECT_ERROR("%FOO bar\n--- 1\n", 1, 5, 4, "yaml: line 1: found unknown directive name");
	EXPECT_ERROR("%YAML 2.0\n--- 1\n", 1, 1, 0,
		     "yaml: line 1: found incompatible YAML document");
	EXPECT_ERROR("a: 1\n--- \nb: [\n", 4, 1, 15,
		     "yaml: line 4: did not find expected node content");
}

static void test_positions_count_characters_and_bytes(void **state)
{
	(void)state;
	/* Column counts characters, position counts bytes (4 two-byte letters, then é). */
	EXPECT_ERROR("\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87: 1\nb: \xc3\xa9: x\n", 2, 5, 17,
		     "yaml: line 2: mapping values are not allowed in this context");
	EXPECT_ERROR("a: 1\r\nb: c: d\r\n", 2, 5, 10,
		     "yaml: line 2: mapping values are not allowed in this context");
	/* A UTF-8 byte order mark is not a column but is a byte. */
	EXPECT_ERROR("\xef\xbb\xbf"
		     "a: 1\nb: c: d\n",
		     2, 5, 12, "yaml: line 2: mapping values are not allowed in this context");
}

static void test_invalid_utf8_and_control_characters(void **state)
{
	(void)state;
	EXPECT_ERROR("a: 1\nb: \xff\n", 2, 4, 8, "yaml: line 2: invalid leading UTF-8 octet");
	EXPECT_ERROR("a: 1\nb: x\xc3\n", 2, 6, 10, "yaml: line 2: invalid trailing UTF-8 octet");
	EXPECT_ERROR("a: \xed\xa0\x80\n", 1, 4, 3, "yaml: line 1: invalid Unicode character");
	EXPECT_ERROR("a: \xc0\xaf\n", 1, 4, 3, "yaml: line 1: invalid length of a UTF-8 sequence");
	EXPECT_ERROR_N("a: 1\nb: \0\n", 9, 2, 4, 8,
		       "yaml: line 2: control characters are not allowed");
	EXPECT_ERROR("a: \x01\n", 1, 4, 3, "yaml: line 1: control characters are not allowed");
	EXPECT_ERROR("a: \"\\uD800\"\n", 1, 7, 6,
		     "yaml: line 1: found invalid Unicode character escape code");
}

static void test_utf16_input(void **state)
{
	static const char le[] = "\xff\xfe"
				 "a\0:\0 \0\xe9\0\n\0";
	static const char be[] = "\xfe\xff"
				 "\0a\0:\0 \xd8\x3d\xde\x00\0\n";
	static const char bad[] = "\xff\xfe"
				  "a\0:\0 \0"
				  "1\0\n\0"
				  "b\0:\0 \0c\0:\0 \0d\0\n\0";

	(void)state;
	expect_json_n(le, sizeof(le) - 1, "{\"a\": \"\\u00e9\"}", __FILE__, __LINE__);
	expect_json_n(be, sizeof(be) - 1, "{\"a\": \"\\ud83d\\ude00\"}", __FILE__, __LINE__);
	/* Positions are byte offsets into the UTF-16 input. */
	EXPECT_ERROR_N(bad, sizeof(bad) - 1, 2, 5, 20,
		       "yaml: line 2: mapping values are not allowed in this context");
}

/* ---- limits --------------------------------------------------------------------------------- */

static char *nested_flow(unsigned int depth)
{
	char *s = vc_malloc(2 * (size_t)depth + 1);
	unsigned int i;

	assert_non_null(s);
	for (i = 0; i < depth; i++) {
		s[i] = '[';
		s[depth + i] = ']';
	}
	s[2 * depth] = '\0';
	return s;
}

static void test_depth_limit(void **state)
{
	struct vc_yaml_limits three = { .max_depth = 3 };
	struct vc_error err;
	char *ok = nested_flow(VC_YAML_MAX_DEPTH), *deep = nested_flow(VC_YAML_MAX_DEPTH + 1);
	json_t *docs;

	(void)state;
	assert_int_equal(vc_yaml_load(ok, strlen(ok), &docs, &err), 0);
	json_decref(docs);
	expect_error_n(deep, strlen(deep), NULL, VC_E2BIG, 1, 513, 512,
		       "yaml: line 1: exceeded max depth of 512", __FILE__, __LINE__);
	EXPECT_LIMIT("a:\n  b:\n    c:\n      d: 1\n", &three, 4, 7, 21,
		     "yaml: line 4: exceeded max depth of 3");
	assert_int_equal(vc_yaml_load_ex("a:\n  b:\n    c: 1\n", 17, &three, &docs, &err), 0);
	json_decref(docs);
	/* Aliases count with their full height where they are inserted. */
	EXPECT_LIMIT("a: &a [[1]]\nb: [*a]\n", &three, 2, 5, 16,
		     "yaml: line 2: exceeded max depth of 3");
	assert_int_equal(vc_yaml_load_ex("a: &a [[1]]\nb: *a\n", 18, &three, &docs, &err), 0);
	json_decref(docs);
	vc_free(ok);
	vc_free(deep);
}

static void test_billion_laughs(void **state)
{
	const char *lol =
		"a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		"b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
		"c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
		"e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
		"f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
		"h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
		"i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";

	(void)state;
	/* 9 levels: ~4e8 values. The default cap stops it at level g. */
	expect_error_n(lol, strlen(lol), NULL, VC_E2BIG, 7, 8, 244,
		       "yaml: line 7: document contains excessive aliasing", __FILE__, __LINE__);
}

static void test_alias_limits(void **state)
{
	struct vc_yaml_limits nodes8 = { .max_alias_nodes = 8 };
	struct vc_yaml_limits nodes7 = { .max_alias_nodes = 7 };
	struct vc_yaml_limits bytes9 = { .max_alias_bytes = 9 };
	const char *yaml = "a: &a [1, 2, 3]\nb: *a\nc: *a\n";
	struct vc_error err;
	json_t *docs;

	(void)state;
	/* Each alias of a costs 4 values (the sequence and its items). */
	assert_int_equal(vc_yaml_load_ex(yaml, strlen(yaml), &nodes8, &docs, &err), 0);
	json_decref(docs);
	EXPECT_LIMIT(yaml, &nodes7, 3, 4, 25, "yaml: line 3: document contains excessive aliasing");
	/* String bytes copied: keys count too. */
	EXPECT_LIMIT("a: &a {k: 123456789}\nb: *a\n", &bytes9, 2, 4, 24,
		     "yaml: line 2: document contains excessive aliasing");
	EXPECT_LIMIT("a: &a '1234567890'\nb: *a\n", &bytes9, 2, 4, 22,
		     "yaml: line 2: document contains excessive aliasing");
}

static void test_input_size_limit(void **state)
{
	struct vc_yaml_limits ten = { .max_input = 10 };
	struct vc_error err;
	json_t *docs = NULL;
	char *big;

	(void)state;
	assert_int_equal(vc_yaml_load_ex("a: 1234567", 10, &ten, &docs, &err), 0);
	json_decref(docs);
	expect_error_n("a: 12345678", 11, &ten, VC_E2BIG, 0, 0, 0,
		       "yaml: input is too large (11 bytes, limit 10)", __FILE__, __LINE__);
	/* The default cap is checked before a byte is read (the pages stay untouched). */
	big = vc_malloc(VC_YAML_MAX_INPUT + 1);
	assert_non_null(big);
	assert_int_equal(vc_yaml_load(big, VC_YAML_MAX_INPUT + 1, &docs, &err), VC_E2BIG);
	assert_string_equal(err.text, "yaml: input is too large (67108865 bytes, limit 67108864)");
	assert_null(docs);
	vc_free(big);
}

/* ---- API edges and files -------------------------------------------------------------------- */

static void test_bad_arguments(void **state)
{
	struct vc_error err;
	json_t *docs;

	(void)state;
	assert_int_equal(vc_yaml_load("a", 1, NULL, &err), VC_EINVAL);
	assert_string_equal(err.text, "yaml: invalid argument");
	assert_int_equal(vc_yaml_load(NULL, 3, &docs, &err), VC_EINVAL);
	assert_int_equal(vc_yaml_load_one("a", 1, NULL, NULL), VC_EINVAL);
	assert_int_equal(vc_yaml_load_file(NULL, &docs, &err), VC_EINVAL);
	/* NULL with length 0 is the empty stream; a NULL error struct is always fine. */
	assert_int_equal(vc_yaml_load(NULL, 0, &docs, NULL), 0);
	assert_int_equal(json_array_size(docs), 0);
	json_decref(docs);
	assert_int_equal(vc_yaml_load("a: *x", 5, &docs, NULL), VC_EPARSE);
	assert_null(docs);
	/* Input need not be NUL-terminated: only len bytes are read. */
	EXPECT_DOCS("a: 1", "[{\"a\": 1}]");
	assert_int_equal(vc_yaml_load("a: 1 trailing", 4, &docs, &err), 0);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(docs, 0), "a")), 1);
	json_decref(docs);
}

static char *write_temp(const char *content, size_t len)
{
	char *path = vc_strdup("/tmp/test_yaml_XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_load_file(void **state)
{
	json_t *want = json_or_die(volcano_job_json, __FILE__, __LINE__);
	char *good = write_temp(volcano_job_yaml, strlen(volcano_job_yaml));
	char *bad = write_temp("a: 1\nb: *x\n", 11);
	struct vc_error err;
	json_t *docs = NULL;
	char expected[256];

	(void)state;
	assert_int_equal(vc_yaml_load_file(good, &docs, &err), 0);
	assert_int_equal(json_array_size(docs), 1);
	assert_true(json_equal(json_array_get(docs, 0), want));
	json_decref(docs);

	assert_int_equal(vc_yaml_load_file(bad, &docs, &err), VC_EPARSE);
	assert_null(docs);
	snprintf(expected, sizeof(expected),
		 "cannot parse '%s': yaml: line 2: unknown anchor 'x' referenced", bad);
	assert_string_equal(err.text, expected);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 4);
	assert_int_equal(err.position, 8);

	assert_int_equal(vc_yaml_load_file("/nonexistent/job.yaml", &docs, &err), -ENOENT);
	assert_string_equal(err.text,
			    "cannot read '/nonexistent/job.yaml': No such file or directory");
	assert_int_equal(vc_yaml_load_file("/tmp", &docs, &err), -EISDIR);
	assert_string_equal(err.text, "cannot read '/tmp': Is a directory");
	assert_null(docs);

	unlink(good);
	unlink(bad);
	vc_free(good);
	vc_free(bad);
	json_decref(want);
}

/* ---- allocation failures -------------------------------------------------------------------- */

/*
 * Make allocation n fail for n = 0, 1, ... until the call succeeds: every failure must be
 * VC_ENOMEM (or the input's own error) with nothing leaked, and success must be exact.
 */
static void chaos(const char *yaml, int expect_rc, const char *expect_json, bool one)
{
	json_t *want = expect_json ? json_or_die(expect_json, __FILE__, __LINE__) : NULL;
	struct vc_error err;
	long n, failures;
	json_t *out;
	int rc;

	vc_alloc_install_json();
	for (n = 0;; n++) {
		out = NULL;
		vc_alloc_fail_after(n);
		if (one)
			rc = vc_yaml_load_one(yaml, strlen(yaml), &out, &err);
		else
			rc = vc_yaml_load(yaml, strlen(yaml), &out, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (failures == 0) {
			assert_int_equal(rc, expect_rc);
			if (want)
				assert_true(json_equal(out, want));
			json_decref(out);
			break;
		}
		if (rc == VC_ENOMEM) {
			assert_null(out);
			assert_string_equal(err.text, "yaml: out of memory");
			continue;
		}
		/* A failed allocation must never be reported as success. */
		assert_int_equal(rc, expect_rc);
		assert_true(rc != 0);
		assert_null(out);
	}
	assert_true(n > 10);
	json_decref(want);
}

static void test_alloc_failures(void **state)
{
	char *stream;

	(void)state;
	chaos(volcano_job_yaml, 0, volcano_job_json, true);
	chaos("b: &b {a: 1, b: [x, {w: z}]}\no: &o {c: 4}\nm: {<<: [*b, *o], a: 2}\n"
	      "k: {1.5: a, 2: b, yes: c, &kk 'q': d, z: *kk}\n",
	      0,
	      "{\"b\": {\"a\": 1, \"b\": [\"x\", {\"w\": \"z\"}]}, \"o\": {\"c\": 4},"
	      " \"m\": {\"a\": 2, \"b\": [\"x\", {\"w\": \"z\"}], \"c\": 4},"
	      " \"k\": {\"1.5\": \"a\", \"2\": \"b\", \"true\": \"c\", \"q\": \"d\", \"z\": \"q\"}}",
	      true);
	stream = vc_asprintf("%s---\n~\n---\n%s", volcano_job_yaml, volcano_job_yaml);
	assert_non_null(stream);
	chaos(stream, 0, NULL, false);
	vc_free(stream);
	/* Errors found late must unwind a half-built tree at every failure point. */
	chaos("a: {b: [1, 2, {c: &x d}]}\ne: [*x, {f: g, f: h}]\n", VC_EPARSE, NULL, false);
	chaos("a: &a {k: [1, 2]}\nb: [{<<: *a}, *a, 3]\nc: {<<: [*a, 1]}\n", VC_EPARSE, NULL,
	      false);
	chaos("a: 1\n---\nb: 2\n", VC_EPARSE, NULL, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_forms),
		cmocka_unit_test(test_bool_true_forms),
		cmocka_unit_test(test_bool_false_forms),
		cmocka_unit_test(test_bool_lookalikes_are_strings),
		cmocka_unit_test(test_decimal_integers),
		cmocka_unit_test(test_prefixed_integers),
		cmocka_unit_test(test_integers_beyond_int64),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_float_lookalikes_are_strings),
		cmocka_unit_test(test_inf_nan_are_errors),
		cmocka_unit_test(test_quoted_and_block_scalars_are_strings),
		cmocka_unit_test(test_explicit_tags),
		cmocka_unit_test(test_explicit_tag_mismatch),
		cmocka_unit_test(test_other_tags_give_strings),
		cmocka_unit_test(test_scalar_keys_become_strings),
		cmocka_unit_test(test_float_keys_use_go_float32_format),
		cmocka_unit_test(test_invalid_keys),
		cmocka_unit_test(test_duplicate_keys),
		cmocka_unit_test(test_nul_in_strings_and_keys),
		cmocka_unit_test(test_nested_block_collections),
		cmocka_unit_test(test_flow_style),
		cmocka_unit_test(test_json_is_yaml),
		cmocka_unit_test(test_root_scalars),
		cmocka_unit_test(test_multi_document_stream),
		cmocka_unit_test(test_empty_streams),
		cmocka_unit_test(test_load_one_counts_documents),
		cmocka_unit_test(test_volcano_job_manifest),
		cmocka_unit_test(test_anchors_and_aliases),
		cmocka_unit_test(test_merge_keys),
		cmocka_unit_test(test_merge_errors),
		cmocka_unit_test(test_alias_errors),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_positions_count_characters_and_bytes),
		cmocka_unit_test(test_invalid_utf8_and_control_characters),
		cmocka_unit_test(test_utf16_input),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_billion_laughs),
		cmocka_unit_test(test_alias_limits),
		cmocka_unit_test(test_input_size_limit),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
