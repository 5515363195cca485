/*
 * Unit tests for vc_selector: label selector parsing (apimachinery's selector_test.go tables),
 * String(), matching, LabelSelector objects, node affinity, and field selectors.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_fieldselector.h"
#include "vc_selector.h"

#define NAME_PART_MSG                                                                             \
	"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and " \
	"end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex " \
	"used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_MSG                                                                          \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
	"'my_value',  or '12345', regex used for validation is "                                 \
	"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define NODE_OPS "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""

static char *format_selector(const struct vc_selector *s)
{
	struct vc_buf b;

	vc_buf_init(&b, 0);
	assert_int_equal(vc_selector_format(s, &b), 0);
	return vc_buf_take(&b);
}

static void expect_sel_string(const struct vc_selector *s, const char *want)
{
	char *got = format_selector(s);

	assert_string_equal(got, want);
	vc_free(got);
}

/* Parse, expect success, and compare String(). */
static void expect_parse(const char *in, const char *want)
{
	struct vc_selector *s = NULL;
	struct vc_error err;

	vc_error_clear(&err);
	if (vc_selector_parse(in, &s, &err))
		fail_msg("parse '%s': %s", in, err.text);
	expect_sel_string(s, want);
	vc_selector_free(s);
}

/* Parse, expect failure, and compare the message and position. */
static void expect_parse_error(const char *in, const char *text, size_t position, int column)
{
	struct vc_selector *s = (struct vc_selector *)1;
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(vc_selector_parse(in, &s, &err), VC_EPARSE);
	assert_null(s);
	assert_int_equal(err.code, VC_EPARSE);
	assert_string_equal(err.text, text);
	assert_int_equal(err.position, position);
	assert_int_equal(err.line, 1);
	assert_int_equal(err.column, column);
}

static json_t *labels(const char *json)
{
	json_t *j = json_loads(json, 0, NULL);

	assert_non_null(j);
	return j;
}

static void expect_match(const char *selector, const char *set, bool want)
{
	struct vc_selector *s = NULL;
	json_t *l = labels(set);

	assert_int_equal(vc_selector_parse(selector, &s, NULL), 0);
	if (vc_selector_matches(s, l) != want)
		fail_msg("'%s' on %s: want %d", selector, set, want);
	vc_selector_free(s);
	json_decref(l);
}

/* TestSelectorParse and TestSetSelectorParser: good strings and their String(). */
static void test_parse_good(void **state)
{
	static const char *const same[] = {
		"x=a,y=b,z=c", "", "x!=a,y=b", "x=", "!x", "x>1", "x>1,z<5", "x==a", "notin=in",
	};
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(same); i++)
		expect_parse(same[i], same[i]);
	expect_parse("x= ", "x=");
	expect_parse("x=,z= ", "x=,z=");
	expect_parse("x= ,z= ", "x=,z=");
	expect_parse("\rx", "x");
	expect_parse("a ", "a");
	expect_parse("this-is-a-dns.domain.com/key-with-dash",
		     "this-is-a-dns.domain.com/key-with-dash");
	expect_parse("this-is-another-dns.domain.com/key-with-dash in (so,what)",
		     "this-is-another-dns.domain.com/key-with-dash in (so,what)");
	expect_parse("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)",
		     "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)");
	expect_parse("foo  in\t (abc)", "foo in (abc)");
	expect_parse("x notin\n (abc)", "x notin (abc)");
	expect_parse("x  notin\t\t\t(abc,def)", "x notin (abc,def)");
	expect_parse("x in (abc,def)", "x in (abc,def)");
	expect_parse("x in (abc,)", "x in (,abc)");
	expect_parse("x in ()", "x in ()");
	expect_parse("x notin ( )", "x notin ()");
	expect_parse("x notin (, a)", "x notin (,a)");
	expect_parse("x notin (abc,,def),bar,z in (),w", "bar,w,x notin (,abc,def),z in ()");
	expect_parse("x in (foo,,baz),y,z notin ()", "x in (,baz,foo),y,z notin ()");
	expect_parse("x,y in (a)", "x,y in (a)");
	expect_parse("x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)");
	/* 'in' and 'notin' are values where values are expected; values are sorted and unique. */
	expect_parse("a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)");
	expect_parse("a in (b,a,b)", "a in (a,b)");
	expect_parse("in in (in)", "in in (in)");
	/* Requirements sort by key, keeping the input order for equal keys. */
	expect_parse("x=a,a=x", "a=x,x=a");
	expect_parse("a=x,x=a", "a=x,x=a");
	expect_parse("x=b,x=a,a", "a,x=b,x=a");
	expect_parse("x>01", "x>01");
}

/* Bad strings: Go's exact messages, with the byte position of the offending token. */
static void test_parse_errors(void **state)
{
	(void)state;
	expect_parse_error("x==a==b", "found '==', expected: ',' or 'end of string'", 4, 5);
	expect_parse_error("!x=a", "found '=', expected: ',' or 'end of string'", 2, 3);
	expect_parse_error(
		"x<a",
		"unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', "
		"'Lt' operators, the value must be an integer",
		0, 1);
	expect_parse_error("x>",
			   "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', "
			   "'Lt' operators, the value must be an integer",
			   0, 1);
	expect_parse_error(
		"x=a||y=b",
		"unable to parse requirement: values[0][x]: Invalid value: \"a||y\": " LABEL_VALUE_MSG,
		0, 1);
	expect_parse_error("x,,y", "found ',', expected: identifier after ','", 2, 3);
	expect_parse_error(",x,y", "found ',', expected: !, identifier, or 'end of string'", 0, 1);
	expect_parse_error("x nott in (y)",
			   "unable to parse requirement: found 'nott', expected: in, notin, =, ==, "
			   "!=, gt, lt",
			   2, 3);
	expect_parse_error("a in (xyz),", "found '', expected: identifier after ','", 11, 12);
	expect_parse_error("a in (xyz)b notin ()", "found 'b', expected: ',' or 'end of string'",
			   10, 11);
	expect_parse_error("a in (xyz abc)",
			   "unable to parse requirement: found 'abc', expected: ',' or ')'", 10,
			   11);
	expect_parse_error(
		"a notin(",
		"unable to parse requirement: found '', expected: ',', ')' or identifier", 8, 9);
	expect_parse_error(
		"a (",
		"unable to parse requirement: found '(', expected: in, notin, =, ==, !=, "
		"gt, lt",
		2, 3);
	expect_parse_error("(", "found '(', expected: !, identifier, or 'end of string'", 0, 1);
	expect_parse_error("x in", "unable to parse requirement: found '' expected: '('", 4, 5);
	expect_parse_error("x in a", "unable to parse requirement: found 'a' expected: '('", 5, 6);
	expect_parse_error("!", "unable to parse requirement: found '', expected: identifier", 1,
			   2);
	expect_parse_error("!=x", "found '!=', expected: !, identifier, or 'end of string'", 0, 1);
	expect_parse_error("!!x", "unable to parse requirement: found '!', expected: identifier", 1,
			   2);
	expect_parse_error("x=(", "unable to parse requirement: found '(', expected: identifier", 2,
			   3);
	expect_parse_error("x in (a,b",
			   "unable to parse requirement: found '', expected: ',' or ')'", 9, 10);
	expect_parse_error("x in (a,=)",
			   "unable to parse requirement: found '=', expected: ',', or identifier",
			   8, 9);
	expect_parse_error("x=a b", "found 'b', expected: ',' or 'end of string'", 4, 5);
	expect_parse_error(
		"a:b=c",
		"unable to parse requirement: <nil>: Invalid value: \"a:b\": " NAME_PART_MSG, 0, 1);
	expect_parse_error(
		"x,Bad.Prefix/y",
		"unable to parse requirement: <nil>: Invalid value: \"Bad.Prefix/y\": "
		"prefix part a lowercase RFC 1123 subdomain must consist of lower case "
		"alphanumeric characters, '-' or '.', and must start and end with an "
		"alphanumeric character (e.g. 'example.com', regex used for validation is "
		"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
		2, 3);
}

static void test_parse_error_details(void **state)
{
	struct vc_selector *s = NULL;
	struct vc_error err;

	(void)state;
	/* Line and column count newlines (whitespace is ' ', \t, \r and \n). */
	vc_error_clear(&err);
	assert_int_equal(vc_selector_parse("a=b,\n  c in (x y)", &s, &err), VC_EPARSE);
	assert_string_equal(err.text,
			    "unable to parse requirement: found 'y', expected: ',' or ')'");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 11);
	assert_int_equal(err.position, 15);
	/* Two NewRequirement errors aggregate as "[a, b]". */
	assert_int_equal(vc_selector_parse("x>a_", &s, &err), VC_EPARSE);
	assert_string_equal(err.text,
			    "unable to parse requirement: [values[0]: Invalid value: "
			    "\"a_\": for 'Gt', 'Lt' operators, the value must be an "
			    "integer, values[0][x]: Invalid value: \"a_\": " LABEL_VALUE_MSG "]");
	/* A NULL error struct is fine. */
	assert_int_equal(vc_selector_parse("(", &s, NULL), VC_EPARSE);
	assert_null(s);
}

/* TestSelectorMatches and TestRequirementSelectorMatching. */
static void test_matches(void **state)
{
	struct vc_selector *s;
	json_t *l;

	(void)state;
	expect_match("", "{\"x\":\"y\"}", true);
	expect_match("x=y", "{\"x\":\"y\"}", true);
	expect_match("x=y,z=w", "{\"x\":\"y\",\"z\":\"w\"}", true);
	expect_match("x!=y,z!=w", "{\"x\":\"z\",\"z\":\"a\"}", true);
	expect_match("notin=in", "{\"notin\":\"in\"}", true);
	expect_match("x", "{\"x\":\"z\"}", true);
	expect_match("!x", "{\"y\":\"z\"}", true);
	expect_match("x>1", "{\"x\":\"2\"}", true);
	expect_match("x<1", "{\"x\":\"0\"}", true);
	expect_match("x<1", "{\"x\":\"-5\"}", true);
	expect_match("x=z", "{}", false);
	expect_match("x=y", "{\"x\":\"z\"}", false);
	expect_match("x=y,z=w", "{\"x\":\"w\",\"z\":\"w\"}", false);
	expect_match("x!=y,z!=w", "{\"x\":\"z\",\"z\":\"w\"}", false);
	expect_match("x", "{\"y\":\"z\"}", false);
	expect_match("!x", "{\"x\":\"z\"}", false);
	expect_match("x>1", "{\"x\":\"0\"}", false);
	expect_match("x>1", "{\"x\":\"1\"}", false);
	expect_match("x<1", "{\"x\":\"2\"}", false);
	expect_match("x>1", "{\"x\":\"v2\"}", false);
	expect_match("x>1", "{\"x\":\"99999999999999999999\"}", false);
	expect_match("x>1", "{}", false);
	expect_match("foo=bar", "{\"foo\":\"bar\",\"baz\":\"blah\"}", true);
	expect_match("foo=bar,baz=blah", "{\"foo\":\"bar\",\"baz\":\"blah\"}", true);
	expect_match("foo=blah", "{\"foo\":\"bar\",\"baz\":\"blah\"}", false);
	expect_match("foo=bar,foobar=bar,baz=blah", "{\"foo\":\"bar\",\"baz\":\"blah\"}", false);
	expect_match("x in (foo),y notin (alpha)", "{\"x\":\"foo\",\"y\":\"baz\"}", true);
	expect_match("x in (foo),y in (alpha)", "{\"x\":\"foo\",\"y\":\"baz\"}", false);
	expect_match("x notin (),y", "{\"y\":\"\"}", true);
	expect_match("!x,y", "{\"y\":\"\"}", true);
	expect_match("x notin (),!y", "{\"y\":\"\"}", false);
	expect_match("x in ()", "{\"y\":\"baz\"}", false);
	expect_match("x in ()", "{\"x\":\"\"}", true);
	expect_match("x notin (a)", "{}", true);
	/* A non-string value is an absent label. */
	expect_match("x", "{\"x\":1}", false);
	expect_match("!x", "{\"x\":true}", true);

	/* NULL labels are no labels. */
	assert_int_equal(vc_selector_parse("!x", &s, NULL), 0);
	assert_true(vc_selector_matches(s, NULL));
	vc_selector_free(s);
	assert_int_equal(vc_selector_parse("x", &s, NULL), 0);
	assert_false(vc_selector_matches(s, NULL));
	vc_selector_free(s);

	/* Everything and Nothing. */
	l = labels("{\"x\":\"y\"}");
	s = vc_selector_new_everything();
	assert_non_null(s);
	assert_true(vc_selector_matches(s, l));
	assert_true(vc_selector_is_empty(s));
	assert_false(vc_selector_is_nothing(s));
	expect_sel_string(s, "");
	vc_selector_free(s);
	s = vc_selector_new_nothing();
	assert_non_null(s);
	assert_false(vc_selector_matches(s, l));
	assert_false(vc_selector_matches(s, NULL));
	assert_false(vc_selector_is_empty(s));
	assert_true(vc_selector_is_nothing(s));
	expect_sel_string(s, "");
	/* Adding to Nothing does nothing. */
	assert_int_equal(vc_selector_add(s, "x", VC_SEL_EXISTS, NULL, 0, NULL), 0);
	assert_int_equal(vc_selector_count(s), 0);
	vc_selector_free(s);
	vc_selector_free(NULL);
	json_decref(l);
}

/* Add one requirement to s; expect success. */
static void add_ok(struct vc_selector *s, const char *key, enum vc_selector_op op,
		   const char *const *values, size_t n)
{
	struct vc_error err;

	vc_error_clear(&err);
	if (vc_selector_add(s, key, op, values, n, &err))
		fail_msg("add %s: %s", key, err.text);
}

/* TestToString: String() of programmatically built selectors. */
static void test_to_string(void **state)
{
	static const char *const abc_def[] = { "abc", "def" }, *const jkl[] = { "jkl" },
				 *const jkl_mno[] = { "jkl", "mno" }, *const abc[] = { "abc" },
				 *const empty[] = { "" }, *const a[] = { "a" },
				 *const two[] = { "2" }, *const eight[] = { "8" },
				 *const unsorted[] = { "b", "a", "b" };
	struct vc_selector *s;
	const struct vc_requirement *r;

	(void)state;
	s = vc_selector_new_everything();
	add_ok(s, "z", VC_SEL_EXISTS, NULL, 0);
	add_ok(s, "y", VC_SEL_NOT_IN, jkl, 1);
	add_ok(s, "x", VC_SEL_IN, abc_def, 2);
	expect_sel_string(s, "x in (abc,def),y notin (jkl),z");
	assert_int_equal(vc_selector_count(s), 3);
	r = vc_selector_get(s, 0);
	assert_string_equal(r->key, "x");
	assert_int_equal(r->op, VC_SEL_IN);
	assert_int_equal(r->nvalues, 2);
	assert_null(vc_selector_get(s, 3));
	vc_selector_free(s);

	s = vc_selector_new_everything();
	add_ok(s, "x", VC_SEL_NOT_IN, abc_def, 2);
	add_ok(s, "y", VC_SEL_NOT_EQUALS, jkl, 1);
	add_ok(s, "z", VC_SEL_DOES_NOT_EXIST, NULL, 0);
	expect_sel_string(s, "x notin (abc,def),y!=jkl,!z");
	vc_selector_free(s);

	s = vc_selector_new_everything();
	add_ok(s, "x", VC_SEL_NOT_IN, abc, 1);
	add_ok(s, "y", VC_SEL_IN, jkl_mno, 2);
	add_ok(s, "z", VC_SEL_NOT_IN, empty, 1);
	expect_sel_string(s, "x notin (abc),y in (jkl,mno),z notin ()");
	vc_selector_free(s);

	s = vc_selector_new_everything();
	add_ok(s, "x", VC_SEL_EQUALS, abc, 1);
	add_ok(s, "y", VC_SEL_DOUBLE_EQUALS, jkl, 1);
	add_ok(s, "z", VC_SEL_NOT_EQUALS, a, 1);
	add_ok(s, "z", VC_SEL_EXISTS, NULL, 0);
	expect_sel_string(s, "x=abc,y==jkl,z!=a,z");
	vc_selector_free(s);

	s = vc_selector_new_everything();
	add_ok(s, "x", VC_SEL_GT, two, 1);
	add_ok(s, "y", VC_SEL_LT, eight, 1);
	add_ok(s, "z", VC_SEL_EXISTS, NULL, 0);
	expect_sel_string(s, "x>2,y<8,z");
	vc_selector_free(s);

	/* safeSort: values print sorted (duplicates kept) without reordering the requirement. */
	s = vc_selector_new_everything();
	add_ok(s, "x", VC_SEL_IN, unsorted, 3);
	expect_sel_string(s, "x in (a,b,b)");
	r = vc_selector_get(s, 0);
	assert_string_equal(r->values[0], "b");
	vc_selector_free(s);

	assert_string_equal(vc_selector_op_string(VC_SEL_GT), "gt");
	assert_string_equal(vc_selector_op_string(VC_SEL_DOES_NOT_EXIST), "!");
	assert_string_equal(vc_selector_op_string(VC_SEL_NOT_IN), "notin");
}

static void expect_add_error(const char *key, enum vc_selector_op op, const char *const *values,
			     size_t n, const char *want)
{
	struct vc_selector *s = vc_selector_new_everything();
	struct vc_error err;

	assert_non_null(s);
	vc_error_clear(&err);
	assert_int_equal(vc_selector_add(s, key, op, values, n, &err), VC_EINVALID);
	assert_string_equal(err.text, want);
	assert_int_equal(vc_selector_count(s), 0);
	vc_selector_free(s);
}

/* TestRequirementConstructor, with NewRequirement's exact messages. */
static void test_requirement_constructor(void **state)
{
	static const char *const foo[] = { "foo" }, *const bar[] = { "bar" },
				 *const one[] = { "1" }, *const six[] = { "6" },
				 *const blah[] = { "blah" }, *const a[] = { "a" },
				 *const ab[] = { "a", "b" }, *const onetwo[] = { "1", "2" },
				 *const none[] = { NULL };
	struct vc_selector *s = vc_selector_new_everything();
	char *long_key = malloc(255), want[600];

	(void)state;
	assert_non_null(s);
	assert_non_null(long_key);
	add_ok(s, "x", VC_SEL_IN, foo, 1);
	add_ok(s, "x", VC_SEL_NOT_IN, foo, 1);
	add_ok(s, "x", VC_SEL_EXISTS, NULL, 0);
	add_ok(s, "x", VC_SEL_DOES_NOT_EXIST, NULL, 0);
	add_ok(s, "1foo", VC_SEL_IN, bar, 1);
	add_ok(s, "1234", VC_SEL_IN, bar, 1);
	add_ok(s, "y", VC_SEL_GT, one, 1);
	add_ok(s, "z", VC_SEL_LT, six, 1);
	expect_sel_string(s, "1234 in (bar),1foo in (bar),x in (foo),x notin (foo),x,!x,y>1,z<6");
	vc_selector_free(s);

	expect_add_error("x", VC_SEL_IN, NULL, 0,
			 "values: Invalid value: null: for 'in', 'notin' operators, values set "
			 "can't be empty");
	expect_add_error("x", VC_SEL_NOT_IN, none, 0,
			 "values: Invalid value: []: for 'in', 'notin' operators, values set can't "
			 "be empty");
	expect_add_error("foo", VC_SEL_GT, bar, 1,
			 "values[0]: Invalid value: \"bar\": for 'Gt', 'Lt' operators, the value "
			 "must be an integer");
	expect_add_error("barz", VC_SEL_LT, blah, 1,
			 "values[0]: Invalid value: \"blah\": for 'Gt', 'Lt' operators, the value "
			 "must be an integer");
	expect_add_error("y", VC_SEL_GT, onetwo, 2,
			 "values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, exactly "
			 "one value is required");
	expect_add_error("x", VC_SEL_EXISTS, a, 1,
			 "values: Invalid value: [\"a\"]: values set must be empty for exists and "
			 "does not exist");
	expect_add_error("x", VC_SEL_EQUALS, ab, 2,
			 "values: Invalid value: [\"a\",\"b\"]: exact-match compatibility requires "
			 "one single value");
	expect_add_error(
		"x", VC_SEL_DOUBLE_EQUALS, NULL, 0,
		"values: Invalid value: null: exact-match compatibility requires one single "
		"value");
	expect_add_error("a b", VC_SEL_EXISTS, NULL, 0,
			 "key: Invalid value: \"a b\": " NAME_PART_MSG);
	expect_add_error("", VC_SEL_EXISTS, NULL, 0,
			 "key: Invalid value: \"\": name part must be non-empty; " NAME_PART_MSG);
	/* The key breaks the DNS rule that len(key) <= 253 ... as a name part of 254 bytes. */
	memset(long_key, 'a', 254);
	long_key[254] = '\0';
	snprintf(want, sizeof(want),
		 "key: Invalid value: \"%s\": name part must be no more than 63 "
		 "bytes",
		 long_key);
	expect_add_error(long_key, VC_SEL_EXISTS, NULL, 0, want);
	free(long_key);
}

static void test_requires_exact_match(void **state)
{
	struct vc_selector *s;
	const char *v = NULL;

	(void)state;
	assert_int_equal(vc_selector_parse("key in (value),key2=value2,key3 in (a,b),key4!=x,key5",
					   &s, NULL),
			 0);
	assert_true(vc_selector_requires_exact_match(s, "key", &v));
	assert_string_equal(v, "value");
	assert_true(vc_selector_requires_exact_match(s, "key2", &v));
	assert_string_equal(v, "value2");
	assert_false(vc_selector_requires_exact_match(s, "key3", &v));
	assert_false(vc_selector_requires_exact_match(s, "key4", &v));
	assert_false(vc_selector_requires_exact_match(s, "key5", NULL));
	assert_false(vc_selector_requires_exact_match(s, "nokey", NULL));
	vc_selector_free(s);
	/* The first requirement on the key decides. */
	assert_int_equal(vc_selector_parse("k==a,k", &s, NULL), 0);
	assert_true(vc_selector_requires_exact_match(s, "k", &v));
	assert_string_equal(v, "a");
	vc_selector_free(s);
}

static int label_selector(const char *json, struct vc_selector **out, struct vc_error *err)
{
	json_t *j = json ? json_loads(json, JSON_DECODE_ANY, NULL) : NULL;
	int rc;

	if (json)
		assert_non_null(j);
	rc = vc_label_selector_from_json(j, out, err);
	json_decref(j);
	return rc;
}

static void expect_label_selector(const char *json, const char *want_string)
{
	struct vc_selector *s = NULL;
	struct vc_error err;

	vc_error_clear(&err);
	if (label_selector(json, &s, &err))
		fail_msg("%s: %s", json, err.text);
	expect_sel_string(s, want_string);
	vc_selector_free(s);
}

static void expect_label_selector_error(const char *json, const char *want)
{
	struct vc_selector *s = (struct vc_selector *)1;
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(label_selector(json, &s, &err), VC_EINVALID);
	assert_null(s);
	assert_string_equal(err.text, want);
}

/* metav1.LabelSelectorAsSelector. */
static void test_label_selector_json(void **state)
{
	struct vc_selector *s;
	json_t *l = labels("{\"app\":\"web\",\"tier\":\"b\"}");

	(void)state;
	assert_int_equal(label_selector(NULL, &s, NULL), 0);
	assert_true(vc_selector_is_nothing(s));
	assert_false(vc_selector_matches(s, l));
	vc_selector_free(s);
	assert_int_equal(label_selector("null", &s, NULL), 0);
	assert_true(vc_selector_is_nothing(s));
	vc_selector_free(s);
	assert_int_equal(label_selector("{}", &s, NULL), 0);
	assert_true(vc_selector_is_empty(s));
	assert_true(vc_selector_matches(s, l));
	vc_selector_free(s);
	assert_int_equal(label_selector("{\"matchLabels\":{},\"matchExpressions\":[]}", &s, NULL),
			 0);
	assert_true(vc_selector_is_empty(s));
	vc_selector_free(s);

	assert_int_equal(
		label_selector("{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":["
			       "{\"key\":\"tier\",\"operator\":\"In\",\"values\":[\"b\","
			       "\"a\"]},{\"key\":\"canary\",\"operator\":\"DoesNotExist\"}]}",
			       &s, NULL),
		0);
	expect_sel_string(s, "app=web,!canary,tier in (a,b)");
	assert_true(vc_selector_matches(s, l));
	vc_selector_free(s);
	expect_label_selector("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"NotIn\","
			      "\"values\":[\"x\"]},{\"key\":\"a\",\"operator\":\"Exists\","
			      "\"values\":null}]}",
			      "a notin (x),a");

	expect_label_selector_error("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Foo\"}]}",
				    "\"Foo\" is not a valid label selector operator");
	expect_label_selector_error("{\"matchExpressions\":[{\"key\":\"a\"}]}",
				    "\"\" is not a valid label selector operator");
	expect_label_selector_error("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Gt\","
				    "\"values\":[\"1\"]}]}",
				    "\"Gt\" is not a valid label selector operator");
	expect_label_selector_error(
		"{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\","
		"\"values\":[]}]}",
		"values: Invalid value: null: for 'in', 'notin' operators, values "
		"set can't be empty");
	expect_label_selector_error("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Exists\","
				    "\"values\":[\"a\"]}]}",
				    "values: Invalid value: [\"a\"]: values set must be empty for "
				    "exists and does not exist");
	expect_label_selector_error("{\"matchLabels\":{\"a b\":\"x\"}}",
				    "key: Invalid value: \"a b\": " NAME_PART_MSG);
	expect_label_selector_error("{\"matchLabels\":{\"a\":\"-x\"}}",
				    "values[0][a]: Invalid value: \"-x\": " LABEL_VALUE_MSG);
	expect_label_selector_error("[]", "label selector is not an object");
	expect_label_selector_error("{\"matchLabels\":[]}",
				    "label selector matchLabels is not an object");
	expect_label_selector_error("{\"matchExpressions\":{}}",
				    "label selector matchExpressions is not an array");
	expect_label_selector_error("{\"matchLabels\":{\"a\":1}}",
				    "matchLabels value of 'a' is not a string");
	expect_label_selector_error("{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\","
				    "\"values\":[1]}]}",
				    "matchExpressions[0].values is not an array of strings");
	expect_label_selector_error("{\"matchExpressions\":[7]}",
				    "matchExpressions[0] is not a label selector requirement");
	json_decref(l);
}

static void test_selector_from_set(void **state)
{
	struct vc_selector *s;
	struct vc_error err;
	json_t *set = labels("{\"zone\":\"a\",\"disk\":\"ssd\"}");
	json_t *node = labels("{\"zone\":\"a\",\"disk\":\"ssd\",\"x\":\"y\"}");
	json_t *other = labels("{\"zone\":\"b\",\"disk\":\"ssd\"}");
	json_t *bad = labels("{\"zone\":5}");

	(void)state;
	assert_int_equal(vc_selector_from_set(set, &s, NULL), 0);
	expect_sel_string(s, "disk=ssd,zone=a");
	assert_true(vc_selector_matches(s, node));
	assert_false(vc_selector_matches(s, other));
	assert_false(vc_selector_matches(s, NULL));
	vc_selector_free(s);
	assert_int_equal(vc_selector_from_set(NULL, &s, NULL), 0);
	assert_true(vc_selector_is_empty(s));
	vc_selector_free(s);
	/* No validation: SelectorFromSet takes any key. */
	json_decref(set);
	set = labels("{\"not a key\":\"=\"}");
	assert_int_equal(vc_selector_from_set(set, &s, NULL), 0);
	expect_sel_string(s, "not a key==");
	vc_selector_free(s);
	vc_error_clear(&err);
	assert_int_equal(vc_selector_from_set(bad, &s, &err), VC_EINVALID);
	assert_null(s);
	assert_string_equal(err.text, "label 'zone' is not a string");
	json_decref(set);
	json_decref(node);
	json_decref(other);
	json_decref(bad);
}

static int node_reqs(const char *json, const char *root, struct vc_selector **out,
		     struct vc_field_errors *errs)
{
	struct vc_field_path p = vc_field_path_root(root);
	json_t *j = labels(json);
	int rc = vc_node_selector_requirements(j, root ? &p : NULL, out, errs);

	json_decref(j);
	return rc;
}

static void expect_node_error(const char *json, const char *want)
{
	struct vc_selector *s = (struct vc_selector *)1;
	struct vc_field_errors errs;
	struct vc_buf b;

	vc_field_errors_init(&errs);
	vc_buf_init(&b, 0);
	assert_int_equal(node_reqs(json, "m", &s, &errs), VC_EINVALID);
	assert_null(s);
	assert_int_equal(vc_field_errors_aggregate(&errs, &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
	vc_field_errors_release(&errs);
}

/* NodeSelectorRequirement parsing and matching (In, NotIn, Exists, DoesNotExist, Gt, Lt). */
static void test_node_selector_requirements(void **state)
{
	struct vc_field_errors errs;
	struct vc_selector *s;
	json_t *fast = labels("{\"zone\":\"a\",\"cpu\":\"8\",\"gpu\":\"\"}");
	json_t *slow = labels("{\"zone\":\"a\",\"cpu\":\"4\",\"gpu\":\"\"}");
	json_t *odd = labels("{\"zone\":\"a\",\"cpu\":\"x\",\"gpu\":\"\"}");

	(void)state;
	vc_field_errors_init(&errs);
	assert_int_equal(
		node_reqs("[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"b\",\"a\"]},"
			  "{\"key\":\"cpu\",\"operator\":\"Gt\",\"values\":[\"4\"]},"
			  "{\"key\":\"mem\",\"operator\":\"Lt\",\"values\":[\"64\"]},"
			  "{\"key\":\"gpu\",\"operator\":\"Exists\"},"
			  "{\"key\":\"spot\",\"operator\":\"DoesNotExist\"},"
			  "{\"key\":\"arch\",\"operator\":\"NotIn\",\"values\":[\"arm\"]}]",
			  NULL, &s, &errs),
		0);
	assert_int_equal(errs.len, 0);
	expect_sel_string(s, "arch notin (arm),cpu>4,gpu,mem<64,!spot,zone in (a,b)");
	/* Lt on an absent label fails, as Gt does. */
	assert_false(vc_selector_matches(s, fast));
	vc_selector_free(s);
	assert_int_equal(node_reqs("[{\"key\":\"cpu\",\"operator\":\"Gt\",\"values\":[\"4\"]}]",
				   NULL, &s, &errs),
			 0);
	assert_true(vc_selector_matches(s, fast));
	assert_false(vc_selector_matches(s, slow));
	assert_false(vc_selector_matches(s, odd));
	vc_selector_free(s);
	assert_int_equal(node_reqs("[]", NULL, &s, &errs), 0);
	assert_true(vc_selector_is_nothing(s));
	vc_selector_free(s);
	vc_field_errors_release(&errs);

	expect_node_error("[{\"key\":\"a\",\"operator\":\"Foo\"}]",
			  "m[0].operator: Unsupported value: \"Foo\": supported values: " NODE_OPS);
	expect_node_error("[{\"key\":\"a\",\"operator\":\"Gt\",\"values\":[\"1\",\"2\"]}]",
			  "m[0].values: Invalid value: [\"1\",\"2\"]: for 'Gt', 'Lt' operators, "
			  "exactly one value is required");
	expect_node_error("[{\"key\":\"a\",\"operator\":\"In\",\"values\":[]}]",
			  "m[0].values: Invalid value: []: for 'in', 'notin' operators, values set "
			  "can't be empty");
	expect_node_error("[{\"key\":\"a\",\"operator\":\"In\"}]",
			  "m[0].values: Invalid value: null: for 'in', 'notin' operators, values "
			  "set can't be empty");
	expect_node_error("[{\"key\":\"a\",\"operator\":\"In\",\"values\":[\"x\"]},"
			  "{\"key\":\"b\",\"operator\":\"Lt\",\"values\":[\"y\"]},"
			  "{\"key\":\"c\",\"operator\":\"Bad\"}]",
			  "[m[1].values[0]: Invalid value: \"y\": for 'Gt', 'Lt' operators, the "
			  "value must be an integer, m[2].operator: Unsupported value: \"Bad\": "
			  "supported values: " NODE_OPS "]");
	json_decref(fast);
	json_decref(slow);
	json_decref(odd);
}

static int node_match(const char *ns, const char *node_labels, const char *name, bool *matched,
		      struct vc_error *err)
{
	json_t *j = labels(ns), *l = labels(node_labels);
	int rc = vc_node_selector_match(j, l, name, NULL, matched, err);

	json_decref(j);
	json_decref(l);
	return rc;
}

static void test_node_selector_match(void **state)
{
	static const char terms[] =
		"{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":"
		"\"In\",\"values\":[\"a\"]}]},{\"matchFields\":[{\"key\":\"metadata.name\","
		"\"operator\":\"In\",\"values\":[\"n1\"]}]}]}";
	struct vc_field_path aff = vc_field_path_root("spec.affinity");
	struct vc_error err;
	bool m = true;
	json_t *j, *l;

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(node_match(terms, "{\"zone\":\"a\"}", "n9", &m, &err), 0);
	assert_true(m);
	assert_int_equal(node_match(terms, "{\"zone\":\"b\"}", "n1", &m, &err), 0);
	assert_true(m);
	assert_int_equal(node_match(terms, "{\"zone\":\"b\"}", "n2", &m, &err), 0);
	assert_false(m);
	/* Without a node name matchFields are not applied, so the second term matches. */
	assert_int_equal(node_match(terms, "{\"zone\":\"b\"}", NULL, &m, &err), 0);
	assert_true(m);
	assert_int_equal(node_match(terms, "{\"zone\":\"b\"}", "", &m, &err), 0);
	assert_true(m);
	/* NotIn on a field, and on a field nodes do not have (reads as ""). */
	assert_int_equal(
		node_match("{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":"
			   "\"metadata.name\",\"operator\":\"NotIn\",\"values\":[\"n1\"]},"
			   "{\"key\":\"spec.x\",\"operator\":\"NotIn\",\"values\":[\"v\"]}]}]}",
			   "{}", "n1", &m, &err),
		0);
	assert_false(m);
	/* Empty terms and no terms select nothing. */
	assert_int_equal(node_match("{\"nodeSelectorTerms\":[{},{\"matchExpressions\":[]}]}", "{}",
				    "n1", &m, &err),
			 0);
	assert_false(m);
	assert_int_equal(node_match("{}", "{}", "n1", &m, &err), 0);
	assert_false(m);
	/* A bad term is skipped when another matches; its errors surface only otherwise. */
	assert_int_equal(node_match("{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\","
				    "\"operator\":\"Bad\"}]},{\"matchExpressions\":[{\"key\":\"z\","
				    "\"operator\":\"Exists\"}]}]}",
				    "{\"z\":\"1\"}", "n1", &m, &err),
			 0);
	assert_true(m);
	assert_int_equal(node_match("{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\","
				    "\"operator\":\"Bad\"}]},{\"matchExpressions\":[{\"key\":\"z\","
				    "\"operator\":\"Exists\"}]}]}",
				    "{}", "n1", &m, &err),
			 VC_EINVALID);
	assert_false(m);
	assert_string_equal(err.text, "nodeSelectorTerms[0].matchExpressions[0].operator: "
				      "Unsupported value: \"Bad\": supported values: " NODE_OPS);
	assert_int_equal(
		node_match("{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":"
			   "\"metadata.name\",\"operator\":\"Exists\"},{\"key\":"
			   "\"metadata.name\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}"
			   "]}]}",
			   "{}", "n1", &m, &err),
		VC_EINVALID);
	assert_string_equal(err.text, "[nodeSelectorTerms[0].matchFields[0].operator: Unsupported "
				      "value: \"Exists\": supported values: \"In\", \"NotIn\", "
				      "nodeSelectorTerms[0].matchFields[1].values: Invalid value: "
				      "[\"a\",\"b\"]: must have one element]");
	/* A caller's path prefixes the error paths. */
	j = labels("{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\",\"operator\":"
		   "\"Lt\",\"values\":[\"q\"]}]}]}");
	l = labels("{}");
	assert_int_equal(vc_node_selector_match(j, l, "n", &aff, &m, &err), VC_EINVALID);
	assert_string_equal(err.text,
			    "spec.affinity.nodeSelectorTerms[0].matchExpressions[0]."
			    "values[0]: Invalid value: \"q\": for 'Gt', 'Lt' operators, the "
			    "value must be an integer");
	json_decref(j);
	json_decref(l);
}

/* Field selectors. */
static void expect_field_parse(const char *in, const char *want)
{
	struct vc_field_selector *s = NULL;
	struct vc_error err;
	struct vc_buf b;

	vc_error_clear(&err);
	if (vc_field_selector_parse(in, &s, &err))
		fail_msg("parse '%s': %s", in, err.text);
	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_selector_format(s, &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
	vc_field_selector_free(s);
}

static void expect_field_error(const char *in, const char *want, size_t position)
{
	struct vc_field_selector *s = (struct vc_field_selector *)1;
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(vc_field_selector_parse(in, &s, &err), VC_EPARSE);
	assert_null(s);
	assert_string_equal(err.text, want);
	assert_int_equal(err.position, position);
}

static void test_field_selector(void **state)
{
	struct vc_field pod[] = {
		{ "metadata.name", "x" },
		{ "spec.nodeName", "n1" },
		{ "status.phase", "Running" },
	};
	struct vc_field_selector *s;
	const char *v = NULL;
	struct vc_buf b;

	(void)state;
	expect_field_parse("metadata.name=x,spec.nodeName!=,status.phase==Running",
			   "metadata.name=x,spec.nodeName!=,status.phase=Running");
	expect_field_parse("b=1,a=2", "a=2,b=1");
	expect_field_parse("", "");
	expect_field_parse(",", "");
	expect_field_parse("a=x\\,y", "a=x\\,y");
	expect_field_parse("a=b\\=c,c=\\\\", "a=b\\=c,c=\\\\");
	expect_field_parse("=x", "=x");
	expect_field_parse("a!b=c", "a!b=c");
	expect_field_parse("a==", "a=");

	assert_int_equal(vc_field_selector_parse("metadata.name=x,spec.nodeName!=,status.phase=="
						 "Running",
						 &s, NULL),
			 0);
	assert_false(vc_field_selector_is_empty(s));
	assert_true(vc_field_selector_matches(s, pod, 3));
	pod[1].value = "";
	assert_false(vc_field_selector_matches(s, pod, 3));
	pod[1].value = "n1";
	assert_false(vc_field_selector_matches(s, pod, 1));
	assert_true(vc_field_selector_requires_exact_match(s, "metadata.name", &v));
	assert_string_equal(v, "x");
	assert_false(vc_field_selector_requires_exact_match(s, "spec.nodeName", &v));
	vc_field_selector_free(s);

	/* Escaped values unescape for matching; a missing field reads as "". */
	assert_int_equal(vc_field_selector_parse("a=x\\,y\\=z\\\\,b!=q,c=", &s, NULL), 0);
	pod[0] = (struct vc_field){ "a", "x,y=z\\" };
	assert_true(vc_field_selector_matches(s, pod, 1));
	vc_field_selector_free(s);
	assert_int_equal(vc_field_selector_parse("", &s, NULL), 0);
	assert_true(vc_field_selector_is_empty(s));
	assert_true(vc_field_selector_matches(s, NULL, 0));
	vc_field_selector_free(s);
	vc_field_selector_free(NULL);

	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_escape_value("a\\b,c=d", &b), 0);
	assert_string_equal(vc_buf_str(&b), "a\\\\b\\,c\\=d");
	vc_buf_release(&b);

	expect_field_error("a", "invalid selector: 'a'; can't understand 'a'", 0);
	expect_field_error("x=1,b", "invalid selector: 'x=1,b'; can't understand 'b'", 4);
	expect_field_error("a=b\\x", "invalid field selector: invalid escape sequence: \\x", 0);
	expect_field_error("a=b=c", "invalid field selector: unescaped character in value: 61", 0);
	expect_field_error("z=1,a=b\\", "invalid field selector: invalid escape sequence: \\", 4);
	expect_field_error("a=\\\xff",
			   "invalid field selector: invalid escape sequence: \\\xef\xbf\xbd", 0);
}

/* Invalid UTF-8 is kept as is unless the value needs unescaping, as in Go. */
static void test_field_selector_utf8(void **state)
{
	struct vc_field_selector *s;
	struct vc_field f = { "a", "\xff" };
	struct vc_buf b;

	(void)state;
	assert_int_equal(vc_field_selector_parse("a=\xff", &s, NULL), 0);
	assert_true(vc_field_selector_matches(s, &f, 1));
	vc_field_selector_free(s);
	assert_int_equal(vc_field_selector_parse("a=\xff\\,", &s, NULL), 0);
	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_selector_format(s, &b), 0);
	assert_string_equal(vc_buf_str(&b), "a=\xef\xbf\xbd\\,");
	vc_buf_release(&b);
	vc_field_selector_free(s);
}

/*
 * Allocation failures: run fn with the Nth allocation failing for N = 0, 1, ... until it runs
 * without a failure; every failing run must return VC_ENOMEM (or the input's own error) and
 * leak nothing.
 */
typedef int chaos_fn(void);

static void chaos(chaos_fn *fn, int final_rc)
{
	long n, failures;
	int rc;

	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = fn();
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures)
			break;
		if (rc != VC_ENOMEM)
			fail_msg("allocation %ld failed but rc = %d", n, rc);
	}
	assert_int_equal(rc, final_rc);
	assert_true(n > 0);
}

static int chaos_parse_ok(void)
{
	struct vc_selector *s = NULL;
	struct vc_buf b;
	int rc;

	rc = vc_selector_parse("x in (c,b,a),y notin (q),!z,w=1,v>3,u", &s, NULL);
	if (rc)
		return rc;
	vc_buf_init(&b, 0);
	rc = vc_selector_format(s, &b);
	if (!rc && strcmp(vc_buf_str(&b), "u,v>3,w=1,x in (a,b,c),y notin (q),!z"))
		rc = -1;
	vc_buf_release(&b);
	vc_selector_free(s);
	return rc;
}

static int chaos_parse_error(void)
{
	struct vc_selector *s = NULL;
	struct vc_error err;
	int rc = vc_selector_parse("a=b,x>a_", &s, &err);

	vc_selector_free(s);
	return rc;
}

static int chaos_label_selector(void)
{
	static const char *const vals[] = { "b", "a" };
	struct vc_selector *s = NULL;
	json_t *j = json_loads("{\"matchLabels\":{\"app\":\"web\"},\"matchExpressions\":[{\"key\":"
			       "\"tier\",\"operator\":\"In\",\"values\":[\"b\",\"a\"]}]}",
			       0, NULL);
	int rc;

	if (!j)
		return VC_ENOMEM;
	rc = vc_label_selector_from_json(j, &s, NULL);
	if (!rc)
		rc = vc_selector_add(s, "k", VC_SEL_NOT_IN, vals, 2, NULL);
	vc_selector_free(s);
	json_decref(j);
	return rc;
}

static int chaos_node_match(void)
{
	json_t *j =
		json_loads("{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"a\","
			   "\"operator\":\"Bad\"}]},{\"matchFields\":[{\"key\":\"metadata.name\","
			   "\"operator\":\"In\",\"values\":[\"n2\"]}],\"matchExpressions\":[{"
			   "\"key\":\"z\",\"operator\":\"Exists\"}]}]}",
			   0, NULL);
	struct vc_error err;
	bool m;
	int rc;

	if (!j)
		return VC_ENOMEM;
	rc = vc_node_selector_match(j, NULL, "n1", NULL, &m, &err);
	json_decref(j);
	return rc;
}

static int chaos_field_selector(void)
{
	struct vc_field_selector *s = NULL;
	struct vc_buf b;
	int rc = vc_field_selector_parse("b=x\\,y,a!=\xff\\=,c==d", &s, NULL);

	if (rc)
		return rc;
	vc_buf_init(&b, 0);
	rc = vc_field_selector_format(s, &b);
	vc_buf_release(&b);
	vc_field_selector_free(s);
	return rc;
}

static int chaos_field_selector_error(void)
{
	struct vc_field_selector *s = NULL;
	struct vc_error err;

	return vc_field_selector_parse("a=b,c", &s, &err);
}

static void test_alloc_failures(void **state)
{
	(void)state;
	chaos(chaos_parse_ok, 0);
	chaos(chaos_parse_error, VC_EPARSE);
	chaos(chaos_label_selector, 0);
	chaos(chaos_node_match, VC_EINVALID);
	chaos(chaos_field_selector, 0);
	chaos(chaos_field_selector_error, VC_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_error_details),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_to_string),
		cmocka_unit_test(test_requirement_constructor),
		cmocka_unit_test(test_requires_exact_match),
		cmocka_unit_test(test_label_selector_json),
		cmocka_unit_test(test_selector_from_set),
		cmocka_unit_test(test_node_selector_requirements),
		cmocka_unit_test(test_node_selector_match),
		cmocka_unit_test(test_field_selector),
		cmocka_unit_test(test_field_selector_utf8),
		cmocka_unit_test(test_alloc_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
