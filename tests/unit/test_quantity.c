/*
 * Unit tests for vc_quantity. The tables are ports of apimachinery's
 * pkg/api/resource/quantity_test.go (TestQuantityParse, TestQuantityString, TestParseQuantity,
 * TestQuantityParseEmit, TestNewSet, TestMilliNewSet, TestScaledValue, TestMul, ...).
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_quantity.h"

#define DSI VC_QUANTITY_DECIMAL_SI
#define BSI VC_QUANTITY_BINARY_SI
#define DEX VC_QUANTITY_DECIMAL_EXPONENT

/* m x 10^exp in nanos (exp >= -9). */
static __int128 nanos_of(int64_t m, int exp)
{
	__int128 v = m;
	int k;

	for (k = exp + 9; k > 0; k--)
		v *= 10;
	return v;
}

static void u128_str(__int128 v, char *out)
{
	char tmp[64];
	unsigned __int128 u =
		v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
	size_t n = 0, i = 0;

	do {
		tmp[n++] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (v < 0)
		out[i++] = '-';
	while (n)
		out[i++] = tmp[--n];
	out[i] = '\0';
}

/* Compare nanos through their decimal text so a failure prints both values. */
static void assert_nanos(const struct vc_quantity *q, __int128 want)
{
	char a[64], b[64];

	u128_str(q->nanos, a);
	u128_str(want, b);
	assert_string_equal(a, b);
}

static void parse_ok(const char *in, struct vc_quantity *q)
{
	struct vc_error err;
	int rc;

	vc_error_clear(&err);
	rc = vc_quantity_parse(in, q, &err);
	if (rc)
		print_error("parse '%s': %d %s\n", in, rc, err.text);
	assert_int_equal(rc, 0);
}

static const char *fmt(const struct vc_quantity *q, char *buf)
{
	assert_int_equal(vc_quantity_format(q, buf, VC_QUANTITY_STR_MAX), 0);
	return buf;
}

static void check_emit(const char *in, const char *want)
{
	struct vc_quantity q;
	char buf[VC_QUANTITY_STR_MAX];

	parse_ok(in, &q);
	if (strcmp(fmt(&q, buf), want) != 0)
		print_error("'%s' printed '%s', want '%s'\n", in, buf, want);
	assert_string_equal(buf, want);
}

/* TestQuantityParse: input, expected m x 10^exp, format. */
static const struct {
	const char *in;
	int64_t m;
	int exp;
	enum vc_quantity_format format;
} parse_table[] = {
	{ "0", 0, 0, DSI },
	{ "0n", 0, 0, DSI },
	{ "0u", 0, 0, DSI },
	{ "0m", 0, 0, DSI },
	{ "0Ki", 0, 0, BSI },
	{ "0k", 0, 0, DSI },
	{ "0Mi", 0, 0, BSI },
	{ "0M", 0, 0, DSI },
	{ "0Gi", 0, 0, BSI },
	{ "0G", 0, 0, DSI },
	{ "0Ti", 0, 0, BSI },
	{ "0T", 0, 0, DSI },
	{ "1", 1, 0, DSI },
	{ "1Ki", 1024, 0, BSI },
	{ "8Ki", 8 * 1024, 0, BSI },
	{ "7Mi", 7 * 1024 * 1024, 0, BSI },
	{ "6Gi", INT64_C(6) * 1024 * 1024 * 1024, 0, BSI },
	{ "5Ti", INT64_C(5) * 1024 * 1024 * 1024 * 1024, 0, BSI },
	{ "4Pi", INT64_C(4) * 1024 * 1024 * 1024 * 1024 * 1024, 0, BSI },
	{ "3Ei", INT64_C(3) * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, 0, BSI },
	{ "10Ti", INT64_C(10) * 1024 * 1024 * 1024 * 1024, 0, BSI },
	{ "100Ti", INT64_C(100) * 1024 * 1024 * 1024 * 1024, 0, BSI },
	{ "5n", 5, -9, DSI },
	{ "4u", 4, -6, DSI },
	{ "3m", 3, -3, DSI },
	{ "9", 9, 0, DSI },
	{ "8k", 8, 3, DSI },
	{ "50k", 5, 4, DSI },
	{ "7M", 7, 6, DSI },
	{ "6G", 6, 9, DSI },
	{ "5T", 5, 12, DSI },
	{ "40T", 4, 13, DSI },
	{ "300T", 3, 14, DSI },
	{ "2P", 2, 15, DSI },
	{ "1E", 1, 18, DSI },
	{ "1E-3", 1, -3, DEX },
	{ "1e3", 1, 3, DEX },
	{ "1E6", 1, 6, DEX },
	{ "1e9", 1, 9, DEX },
	{ "1E12", 1, 12, DEX },
	{ "1e15", 1, 15, DEX },
	{ "1E18", 1, 18, DEX },
	{ "1e14", 1, 14, DEX },
	{ "1e13", 1, 13, DEX },
	{ "100.035k", 100035, 0, DSI },
	{ "0.001", 1, -3, DSI },
	{ "0.0005k", 5, -1, DSI },
	{ "0.005", 5, -3, DSI },
	{ "0.05", 5, -2, DSI },
	{ "0.5", 5, -1, DSI },
	{ "0.00050k", 5, -1, DSI },
	{ "0.00500", 5, -3, DSI },
	{ "0.05000", 5, -2, DSI },
	{ "0.50000", 5, -1, DSI },
	{ "0.5e0", 5, -1, DEX },
	{ "0.5e-1", 5, -2, DEX },
	{ "0.5e-2", 5, -3, DEX },
	{ "10.035M", 10035, 3, DSI },
	{ "1.2e3", 12, 2, DEX },
	{ "1.3E+6", 13, 5, DEX },
	{ "1.40e9", 14, 8, DEX },
	{ "1.53E12", 153, 10, DEX },
	{ "1.6e15", 16, 14, DEX },
	{ "1.7E18", 17, 17, DEX },
	{ "9.01", 901, -2, DSI },
	{ "8.1k", 81, 2, DSI },
	{ "7.123456M", 7123456, 0, DSI },
	{ "6.987654321G", INT64_C(6987654321), 0, DSI },
	{ "5.444T", 5444, 9, DSI },
	{ "40.1T", 401, 11, DSI },
	{ "300.2T", 3002, 11, DSI },
	{ "2.5P", 25, 14, DSI },
	{ "1.01E", 101, 16, DSI },
	{ "3.001n", 4, -9, DSI },
	{ "1.1E-9", 2, -9, DEX },
	{ "0.0000000001", 1, -9, DSI },
	{ "0.0000000005", 1, -9, DSI },
	{ "0.00000000050", 1, -9, DSI },
	{ "0.5e-9", 1, -9, DEX },
	{ "0.9n", 1, -9, DSI },
	{ "0.00000012345", 124, -9, DSI },
	{ "0.00000012354", 124, -9, DSI },
	{ "9Ei", INT64_MAX, 0, BSI },
	{ "9223372036854775807Ki", INT64_MAX, 0, BSI },
	{ "12E", 12, 18, DSI },
	{ "100.035Ki", 10243584, -2, BSI },
	{ "0.5Mi", 512 * 1024, 0, BSI },
	{ "0.05Gi", INT64_C(536870912), -1, BSI },
	{ "0.025Ti", INT64_C(274877906944), -1, BSI },
	{ "0.000000000001Ki", 2, -9, DSI },
	{ ".001", 1, -3, DSI },
	{ ".0001k", 100, -3, DSI },
	{ "1.", 1, 0, DSI },
	{ "1.G", 1, 9, DSI },
};

static void test_parse_table(void **state)
{
	char signed_in[64];
	struct vc_quantity q;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(parse_table); i++) {
		__int128 want = nanos_of(parse_table[i].m, parse_table[i].exp);

		parse_ok(parse_table[i].in, &q);
		assert_nanos(&q, want);
		assert_int_equal(q.format, parse_table[i].format);
		/* The same with an explicit sign, as the Go test does. */
		snprintf(signed_in, sizeof(signed_in), "+%s", parse_table[i].in);
		parse_ok(signed_in, &q);
		assert_nanos(&q, want);
		assert_int_equal(q.format, parse_table[i].format);
		snprintf(signed_in, sizeof(signed_in), "-%s", parse_table[i].in);
		parse_ok(signed_in, &q);
		assert_nanos(&q, -want);
		assert_int_equal(q.format, parse_table[i].format);
	}
}

static const struct {
	const char *in;
	const char *text;
	size_t position;
} invalid_table[] = {
	{ "", VC_QUANTITY_ERR_FORMAT, 0 },
	{ "1.1.M", VC_QUANTITY_ERR_FORMAT, 3 },
	{ "1+1.0M", VC_QUANTITY_ERR_FORMAT, 3 },
	{ "0.1mi", VC_QUANTITY_ERR_SUFFIX, 3 },
	{ "0.1am", VC_QUANTITY_ERR_FORMAT, 3 },
	{ "aoeu", VC_QUANTITY_ERR_FORMAT, 0 },
	{ ".5i", VC_QUANTITY_ERR_SUFFIX, 2 },
	{ "1i", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "-3.01i", VC_QUANTITY_ERR_SUFFIX, 5 },
	{ "-3.01e-", VC_QUANTITY_ERR_SUFFIX, 5 },
	{ "1e4294967297", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "1E2147483648", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "1E-2147483648", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ " 1", VC_QUANTITY_ERR_FORMAT, 0 },
	{ "1 ", VC_QUANTITY_ERR_FORMAT, 1 },
	{ "Non-Numeric", VC_QUANTITY_ERR_FORMAT, 0 },
	{ "1e", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "1ee5", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "1m5", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "5-", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ "1e3k", VC_QUANTITY_ERR_FORMAT, 3 },
	{ "1Gi ", VC_QUANTITY_ERR_FORMAT, 3 },
	{ "1KI", VC_QUANTITY_ERR_FORMAT, 2 },
	{ "--1", VC_QUANTITY_ERR_SUFFIX, 1 },
	{ ".Ei", VC_QUANTITY_ERR_NUMERIC, 0 },
	{ "-.Pi", VC_QUANTITY_ERR_NUMERIC, 0 },
	{ "e-10", VC_QUANTITY_ERR_NUMERIC, 0 },
	{ "-e-10", VC_QUANTITY_ERR_NUMERIC, 0 },
};

static void test_parse_errors(void **state)
{
	struct vc_quantity q;
	struct vc_error err;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(invalid_table); i++) {
		vc_error_clear(&err);
		q.nanos = 42;
		assert_int_equal(vc_quantity_parse(invalid_table[i].in, &q, &err), VC_EPARSE);
		assert_int_equal(err.code, VC_EPARSE);
		assert_string_equal(err.text, invalid_table[i].text);
		assert_int_equal(err.position, invalid_table[i].position);
		assert_int_equal(err.column, (int)invalid_table[i].position + 1);
		assert_int_equal(err.line, 1);
		/* A failed parse leaves a zero quantity, as Go returns one. */
		assert_true(vc_quantity_is_zero(&q));
	}
	/* An embedded NUL is not part of the grammar. */
	assert_int_equal(vc_quantity_parsen("1\0", 2, &q, &err), VC_EPARSE);
	assert_int_equal(err.position, 1);
	assert_int_equal(vc_quantity_parse(NULL, &q, &err), VC_EINVAL);
	assert_int_equal(vc_quantity_parse("1", NULL, NULL), VC_EINVAL);
	assert_int_equal(vc_quantity_parse("x", &q, NULL), VC_EPARSE);
	/* Lenient forms Kubernetes accepts, all zero. */
	parse_ok("-", &q);
	assert_true(vc_quantity_is_zero(&q));
	parse_ok(".", &q);
	assert_true(vc_quantity_is_zero(&q));
	parse_ok("+.", &q);
	assert_true(vc_quantity_is_zero(&q));
	parse_ok(".e-9", &q);
	assert_true(vc_quantity_is_zero(&q));
	parse_ok("-e5", &q);
	assert_true(vc_quantity_is_zero(&q));
	parse_ok("0e2147483647", &q);
	assert_true(vc_quantity_is_zero(&q));
	assert_int_equal(q.format, DEX);
}

static void test_parse_range(void **state)
{
	struct vc_quantity q;
	struct vc_error err;

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(vc_quantity_parse("1e29", &q, &err), VC_ERANGE);
	assert_string_equal(err.text,
			    "quantity '1e29' is out of range: its magnitude must be below 1e29");
	assert_int_equal(vc_quantity_parse("-100000000000000000000000000000", &q, &err), VC_ERANGE);
	assert_int_equal(vc_quantity_parse("100000000000E", &q, &err), VC_ERANGE);
	assert_int_equal(vc_quantity_parse("1e2147483647", &q, &err), VC_ERANGE);
	parse_ok("99999999999999999999999999999.999999999", &q);
	assert_true(q.nanos == VC_QUANTITY_MAX_NANOS);
	parse_ok("-99999999999999999999999999999.9999999989", &q);
	assert_true(q.nanos == -VC_QUANTITY_MAX_NANOS);
	/* Rounding up to the next nano can cross the limit. */
	assert_int_equal(vc_quantity_parse("99999999999999999999999999999.9999999991", &q, &err),
			 VC_ERANGE);
	/* Binary values are capped, never out of range. */
	parse_ok("100000000000000000000000000000000000000000Ei", &q);
	assert_int_equal(vc_quantity_value(&q), INT64_MAX);
	parse_ok("-8Ei", &q);
	assert_int_equal(vc_quantity_value(&q), -INT64_MAX);
	/* Tiny values round away from zero to one nano-unit. */
	parse_ok("1e-2147483647", &q);
	assert_nanos(&q, 1);
	parse_ok("-.484785E-7466", &q);
	assert_nanos(&q, -1);
	/* Long inputs are fine: the digits are streamed, not converted to a big number. */
	{
		static char big[5010];
		size_t n = 5000;

		memset(big, '0', n);
		big[1] = '.';
		memcpy(big + n, "1", 2);
		parse_ok(big, &q); /* 0.000...1 */
		assert_nanos(&q, 1);
		memcpy(big + n, "1Ki", 4);
		parse_ok(big, &q); /* 0.000...1 x 1024 */
		assert_nanos(&q, 1);
		memcpy(big + n, "5e4990", 7);
		parse_ok(big, &q); /* 0.000...5 x 10^4990 */
		assert_nanos(&q, 5);
		big[1] = '0';
		memcpy(big + n, "Ki", 3);
		parse_ok(big, &q); /* zero with 5000 digits */
		assert_true(vc_quantity_is_zero(&q));
	}
}

/* The examples of the task and of the Quantity doc comment. */
static void test_canonical_examples(void **state)
{
	static const char *const table[][2] = {
		{ "1.5", "1500m" },
		{ "0.1", "100m" },
		{ "1000m", "1" },
		{ "1e3", "1e3" },
		{ "1k", "1k" },
		{ "1024Mi", "1Gi" },
		{ "1.5Gi", "1536Mi" },
		{ "1536Mi", "1536Mi" },
		{ "500M", "500M" },
		{ "100m", "100m" },
		{ "1Ki", "1Ki" },
		{ "0.5Ki", "512" },
		{ "-10", "-10" },
		{ "1n", "1n" },
		{ "0", "0" },
		{ "2Gi", "2Gi" },
		{ ".5", "500m" },
		{ "0.5", "500m" },
		{ "1000E", "1e21" },
		{ "5000E", "5e21" },
		{ "1000000E", "1e24" },
		{ "1500E", "1500E" },
		{ "1.5e21", "1500e18" },
		{ "10Ei", "9223372036854775807" },
		{ "0.5e0", "500e-3" },
		{ "1e-9", "1e-9" },
		{ "-0", "0" },
		{ "0.0", "0" },
		{ "-0.5Ki", "-512" },
		{ "1.1Ki", "1126400m" },
		{ "2048", "2048" },
		{ "2048Ki", "2Mi" },
		{ "1000000Ki", "1000000Ki" },
		{ "1048576Ki", "1Gi" },
		{ "1024Ei", "9223372036854775807" },
		/* BinarySI with no exact suffix prints digits, which re-read as DecimalSI. */
		{ "60062.5Ki", "61504000" },
		{ "61504000", "61504k" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++)
		check_emit(table[i][0], table[i][1]);
}

/*
 * Kubernetes prints the input back when the parser's fast path found it canonical; these are
 * the quirks that follow (character-exact with Quantity.String()).
 */
static void test_cached_input(void **state)
{
	static const char *const same[] = {
		"+1",	"1E3", "08",	 "1.500k", "1.G", "5.",	   "+1Ki",
		"01Ki", "3Mi", "1e0003", "15e3",   "-5.", "15E+3", "-999999999999999999"
	};
	struct vc_quantity q;
	char buf[VC_QUANTITY_STR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(same); i++) {
		parse_ok(same[i], &q);
		assert_string_equal(q.str, same[i]);
		assert_string_equal(fmt(&q, buf), same[i]);
	}
	/* Non-canonical inputs are re-canonicalised. */
	check_emit("+0.1", "100m");
	check_emit("-1.5", "-1500m");
	check_emit("1.000k", "1k");
	check_emit("1000", "1k");
	check_emit("08Ki", "8Ki");
	check_emit("0.5k", "500");
	check_emit("+1.5", "1500m");
	check_emit("1.50", "1500m");
	/* Arithmetic drops the cached text. */
	parse_ok("+1", &q);
	vc_quantity_neg(&q);
	assert_string_equal(fmt(&q, buf), "-1");
	parse_ok("1E3", &q);
	assert_int_equal(vc_quantity_mul(&q, 1), 0);
	assert_string_equal(fmt(&q, buf), "1e3");
	/* A cacheable input too long to keep is printed canonically instead. */
	check_emit("00000000000000000000000000000000000000000000000000000000000000001", "1");
}

/* TestParseQuantity: input and String(); NULL means the input itself. */
static void test_parse_quantity_table(void **state)
{
	static const char *const table[][2] = {
		{ "-999999999999999999", NULL },
		{ "999999999999999999", NULL },
		{ "-999999999999999999.0", "-999999999999999999" },
		{ "999999999999999999.0", "999999999999999999" },
		{ "-999999999999999999.1", "-999999999999999999100m" },
		{ "999999999999999999.1", "999999999999999999100m" },
		{ "-9999999999999999999", NULL },
		{ "9999999999999999999", NULL },
		{ "-1E", NULL },
		{ "1E", NULL },
		{ "-1000000000000000000", "-1E" },
		{ "1000000000000000000", "1E" },
		{ "-9999999999999999999.0", "-9999999999999999999" },
		{ "9999999999999999999.0", "9999999999999999999" },
		{ "-1.0E", "-1E" },
		{ "1.0E", "1E" },
		{ "-1000000000000000000.0", "-1E" },
		{ "1000000000000000000.0", "1E" },
		{ "-9999999999999999999000m", "-9999999999999999999" },
		{ "9999999999999999999000m", "9999999999999999999" },
		{ "-9999999999999999999.1", "-9999999999999999999100m" },
		{ "9999999999999999999.1", "9999999999999999999100m" },
		{ "-1.0000000000000000001E", "-1000000000000000000100m" },
		{ "1.0000000000000000001E", "1000000000000000000100m" },
		{ "-1000000000000000000.1", "-1000000000000000000100m" },
		{ "1000000000000000000.1", "1000000000000000000100m" },
		{ "-1.000000000000000001E", "-1000000000000000001" },
		{ "1.000000000000000001E", "1000000000000000001" },
		{ "-1000000000000000001", NULL },
		{ "1000000000000000001", NULL },
		{ "-10E", NULL },
		{ "10E", NULL },
		{ "-10000000000000000000", "-10E" },
		{ "10000000000000000000", "10E" },
		{ "-10.0E", "-10E" },
		{ "10.0E", "10E" },
		{ "-10000000000000000000.0", "-10E" },
		{ "10000000000000000000.0", "10E" },
		{ "-10000000000000000000000m", "-10E" },
		{ "10000000000000000000000m", "10E" },
		{ "-10.0000000000000000001E", "-10000000000000000000100m" },
		{ "10.0000000000000000001E", "10000000000000000000100m" },
		{ "-10000000000000000000.1", "-10000000000000000000100m" },
		{ "10000000000000000000.1", "10000000000000000000100m" },
		{ "-10.000000000000000001E", "-10000000000000000001" },
		{ "10.000000000000000001E", "10000000000000000001" },
		{ "-10000000000000000001", NULL },
		{ "10000000000000000001", NULL },
		{ "-9223372036854775809", NULL },
		{ "9223372036854775806", NULL },
		{ "-9223372036854775809.0", "-9223372036854775809" },
		{ "9223372036854775806.0", "9223372036854775806" },
		{ "-9223372036854775809000m", "-9223372036854775809" },
		{ "9223372036854775806000m", "9223372036854775806" },
		{ "-9223372036854775809.1", "-9223372036854775809100m" },
		{ "9223372036854775806.1", "9223372036854775806100m" },
		{ "-9223372036854775808", NULL },
		{ "9223372036854775807", NULL },
		{ "-9223372036854775808.0", "-9223372036854775808" },
		{ "9223372036854775807.0", "9223372036854775807" },
		{ "-9223372036854775808000m", "-9223372036854775808" },
		{ "9223372036854775807000m", "9223372036854775807" },
		{ "-9223372036854775808.1", "-9223372036854775808100m" },
		{ "9223372036854775807.1", "9223372036854775807100m" },
		{ "-9223372036854775807", NULL },
		{ "9223372036854775808", NULL },
		{ "-9223372036854775807.0", "-9223372036854775807" },
		{ "9223372036854775808.0", "9223372036854775808" },
		{ "-9223372036854775807000m", "-9223372036854775807" },
		{ "9223372036854775808000m", "9223372036854775808" },
		{ "-9223372036854775807.1", "-9223372036854775807100m" },
		{ "9223372036854775808.1", "9223372036854775808100m" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++)
		check_emit(table[i][0], table[i][1] ? table[i][1] : table[i][0]);
}

/* TestQuantityParseEmit, and its negative half. */
static void test_parse_emit(void **state)
{
	static const char *const table[][2] = {
		{ "1Ki", "1Ki" },
		{ "1Mi", "1Mi" },
		{ "1Gi", "1Gi" },
		{ "1024Mi", "1Gi" },
		{ "1000M", "1G" },
		{ ".001Ki", "1024m" },
		{ ".000001Ki", "1024u" },
		{ ".000000001Ki", "1024n" },
		{ ".000000000001Ki", "2n" },
	};
	char neg_in[32], neg_want[32];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		check_emit(table[i][0], table[i][1]);
		snprintf(neg_in, sizeof(neg_in), "-%s", table[i][0]);
		snprintf(neg_want, sizeof(neg_want), "-%s", table[i][1]);
		check_emit(neg_in, neg_want);
	}
}

/* TestQuantityString: value and format -> String(), then the alternate spelling parses back. */
static void test_string_table(void **state)
{
	static const struct {
		int64_t m;
		int exp;
		enum vc_quantity_format format;
		const char *want;
		const char *alternate;
	} table[] = {
		{ INT64_C(1024) * 1024 * 1024, 0, BSI, "1Gi", "1024Mi" },
		{ INT64_C(300) * 1024 * 1024, 0, BSI, "300Mi", "307200Ki" },
		{ 6 * 1024, 0, BSI, "6Ki", NULL },
		{ INT64_C(1001) * 1024 * 1024 * 1024, 0, BSI, "1001Gi", "1025024Mi" },
		{ INT64_C(1024) * 1024 * 1024 * 1024, 0, BSI, "1Ti", "1024Gi" },
		{ 5, 0, BSI, "5", "5000m" },
		{ 500, -3, BSI, "500m", "0.5" },
		{ 1, 9, DSI, "1G", "1000M" },
		{ 1000, 6, DSI, "1G", "0.001T" },
		{ 1000000, 3, DSI, "1G", NULL },
		{ 1000000000, 0, DSI, "1G", NULL },
		{ 1, -3, DSI, "1m", "1000u" },
		{ 80, -3, DSI, "80m", NULL },
		{ 1080, -3, DSI, "1080m", "1.08" },
		{ 108, -2, DSI, "1080m", "1080000000n" },
		{ 10800, -4, DSI, "1080m", NULL },
		{ 300, 6, DSI, "300M", NULL },
		{ 1, 12, DSI, "1T", NULL },
		{ 1, 18, DSI, "1E", NULL },
		{ 1, 21, DSI, "1e21", "1000E" },
		{ 5, 21, DSI, "5e21", "5000E" },
		{ 1, 24, DSI, "1e24", "1000000E" },
		{ 1234567, 6, DSI, "1234567M", NULL },
		{ 1234567, -3, BSI, "1234567m", NULL },
		{ 3, 3, DSI, "3k", NULL },
		{ 1025, 0, BSI, "1025", NULL },
		{ 0, 0, DSI, "0", NULL },
		{ 0, 0, BSI, "0", NULL },
		{ 1, 9, DEX, "1e9", ".001e12" },
		{ 1, -3, DEX, "1e-3", "0.001e0" },
		{ 1, -9, DEX, "1e-9", "1000e-12" },
		{ 80, -3, DEX, "80e-3", NULL },
		{ 300, 6, DEX, "300e6", NULL },
		{ 1, 12, DEX, "1e12", NULL },
		{ 1, 3, DEX, "1e3", NULL },
		{ 3, 3, DEX, "3e3", NULL },
		{ 0, 0, DEX, "0", "00" },
		{ 1, -9, DSI, "1n", NULL },
		{ 80, -9, DSI, "80n", NULL },
		{ 1080, -9, DSI, "1080n", NULL },
		{ 108, -8, DSI, "1080n", NULL },
		{ 1, -6, DSI, "1u", NULL },
		{ 80, -6, DSI, "80u", NULL },
		{ 1080, -6, DSI, "1080u", NULL },
		{ 2000, 0, BSI, "2000", NULL },
		{ -2000, 0, BSI, "-2000", NULL },
	};
	struct vc_quantity q;
	char buf[VC_QUANTITY_STR_MAX], neg[VC_QUANTITY_STR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		vc_quantity_init(&q);
		q.nanos = nanos_of(table[i].m, table[i].exp);
		q.format = table[i].format;
		assert_string_equal(fmt(&q, buf), table[i].want);
		/* The canonical form parses and is kept as the cached string. */
		parse_ok(table[i].want, &q);
		assert_nanos(&q, nanos_of(table[i].m, table[i].exp));
		if (table[i].alternate) {
			parse_ok(table[i].alternate, &q);
			assert_string_equal(q.str, "");
			assert_string_equal(fmt(&q, buf), table[i].want);
		}
		if (table[i].m > 0) {
			vc_quantity_init(&q);
			q.nanos = -nanos_of(table[i].m, table[i].exp);
			q.format = table[i].format;
			snprintf(neg, sizeof(neg), "-%s", table[i].want);
			assert_string_equal(fmt(&q, buf), neg);
		}
	}
}

static void test_format_errors_and_json(void **state)
{
	struct vc_quantity q;
	char small[4];
	json_t *j;

	(void)state;
	parse_ok("1536Mi", &q);
	assert_int_equal(vc_quantity_format(&q, small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	assert_int_equal(vc_quantity_format(&q, small, 0), VC_E2BIG);
	assert_int_equal(vc_quantity_format(NULL, small, sizeof(small)), VC_EINVAL);
	assert_int_equal(vc_quantity_format(&q, NULL, 4), VC_EINVAL);
	j = vc_quantity_to_json(&q);
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "1536Mi");
	json_decref(j);
	assert_string_equal(vc_quantity_format_name(DSI), "DecimalSI");
	assert_string_equal(vc_quantity_format_name(BSI), "BinarySI");
	assert_string_equal(vc_quantity_format_name(DEX), "DecimalExponent");
}

static void json_emit(const char *json, const char *want)
{
	json_error_t jerr;
	json_t *v = json_loads(json, JSON_DECODE_ANY, &jerr);
	struct vc_quantity q;
	struct vc_error err;
	char buf[VC_QUANTITY_STR_MAX];

	assert_non_null(v);
	vc_error_clear(&err);
	assert_int_equal(vc_quantity_parse_json(v, &q, &err), 0);
	assert_string_equal(fmt(&q, buf), want);
	json_decref(v);
}

/* TestJSONWhitespace and friends. */
static void test_parse_json(void **state)
{
	struct vc_quantity q;
	struct vc_error err;
	json_t *v;

	(void)state;
	json_emit("\" 1\"", "1");
	json_emit("\"1 \"", "1");
	json_emit("1", "1");
	json_emit("10", "10");
	json_emit("-1", "-1");
	json_emit("\"\\t\\n 2Gi\\r\\n\"", "2Gi");
	json_emit("\"\\u00a01.5\\u3000\"", "1500m");
	json_emit("\"\\u2000500m\\u205f\"", "500m");
	json_emit("0.1", "100m");
	json_emit("1.5", "1500m");
	json_emit("1e3", "1k");
	json_emit("2.0", "2");
	json_emit("0.00001", "10u");
	json_emit("-0.0", "0");
	json_emit("1e20", "100E");
	json_emit("1e-20", "1n");
	json_emit("123456789.123", "123456789.123"); /* kept, as the fast path does */
	json_emit("123456789.12", "123456789120m");
	json_emit("null", "0");
	json_emit("9223372036854775807", "9223372036854775807");

	v = json_object();
	assert_int_equal(vc_quantity_parse_json(v, &q, &err), VC_EINVAL);
	assert_string_equal(err.text, "a quantity must be a string or a number");
	json_decref(v);
	v = json_string("  ");
	assert_int_equal(vc_quantity_parse_json(v, &q, &err), VC_EPARSE);
	assert_string_equal(err.text, VC_QUANTITY_ERR_FORMAT);
	json_decref(v);
	v = json_string(" 1 x");
	assert_int_equal(vc_quantity_parse_json(v, &q, &err), VC_EPARSE);
	json_decref(v);
	assert_int_equal(vc_quantity_parse_json(NULL, NULL, &err), VC_EINVAL);
}

/* TestNegativeValueRoundsAwayFromZero, TestScaledValue and the int64 edges. */
static void test_value_rounding(void **state)
{
	static const struct {
		const char *in;
		int64_t value, milli;
	} table[] = {
		{ "-.484785E-7466", -1, -1 },
		{ ".484785E-7466", 1, 1 },
		{ "-.484785E-1", -1, -49 },
		{ ".484785E-1", 1, 49 },
		{ "-0.0005", -1, -1 },
		{ "0.0005", 1, 1 },
		{ "-1500m", -2, -1500 },
		{ "1500m", 2, 1500 },
		{ "-9.5000000001Gi", INT64_C(-10200547329), INT64_C(-10200547328108) },
		{ "9.5000000001Gi", INT64_C(10200547329), INT64_C(10200547328108) },
		{ "-1", -1, -1000 },
		{ "1", 1, 1000 },
		{ "0", 0, 0 },
		{ "1Mi", 1048576, INT64_C(1048576000) },
		{ "100m", 1, 100 },
		{ "1n", 1, 1 },
	};
	static const struct {
		int from, to;
		int64_t want;
	} scaled[] = {
		{ -9, -9, 1 },	       { -9, -6, 1 },	   { -9, -3, 1 },   { -9, 0, 1 },
		{ -6, -9, 1000 },      { -6, -6, 1 },	   { -6, -3, 1 },   { -6, 0, 1 },
		{ -3, -9, 1000000 },   { -3, -6, 1000 },   { -3, -3, 1 },   { -3, 0, 1 },
		{ 0, -9, 1000000000 }, { 0, -6, 1000000 }, { 0, -3, 1000 }, { 0, 0, 1 },
		{ 2, -2, 10000 },      { 0, 40, 1 },	   { 0, 3, 1 },
	};
	struct vc_quantity q;
	int64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		parse_ok(table[i].in, &q);
		assert_int_equal(vc_quantity_value(&q), table[i].value);
		assert_int_equal(vc_quantity_milli_value(&q), table[i].milli);
	}
	for (i = 0; i < VC_ARRAY_SIZE(scaled); i++) {
		assert_int_equal(vc_quantity_from_scaled(&q, 1, scaled[i].from, DSI), 0);
		assert_int_equal(vc_quantity_scaled_value(&q, scaled[i].to, &v), 0);
		assert_int_equal(v, scaled[i].want);
	}
	/* int64 limits: exact at the edge, saturated and VC_ERANGE beyond. */
	vc_quantity_from_int64(&q, INT64_MIN, DSI);
	assert_int_equal(vc_quantity_value(&q), INT64_MIN);
	assert_int_equal(vc_quantity_scaled_value(&q, -3, &v), VC_ERANGE);
	assert_int_equal(v, INT64_MIN);
	assert_int_equal(vc_quantity_milli_value(&q), INT64_MIN);
	vc_quantity_from_int64(&q, INT64_MAX, DSI);
	assert_int_equal(vc_quantity_value(&q), INT64_MAX);
	assert_int_equal(vc_quantity_milli_value(&q), INT64_MAX);
	parse_ok("9223372036854775807.000000001", &q);
	assert_int_equal(vc_quantity_scaled_value(&q, 0, &v), VC_ERANGE);
	assert_int_equal(v, INT64_MAX);
	parse_ok("-9223372036854775808.000000001", &q);
	assert_int_equal(vc_quantity_scaled_value(&q, 0, &v), VC_ERANGE);
	assert_int_equal(v, INT64_MIN);
	parse_ok("9223372036854775.807", &q);
	assert_int_equal(vc_quantity_scaled_value(&q, -3, &v), 0);
	assert_int_equal(v, INT64_MAX);
	parse_ok("-9223372036854775.808", &q);
	assert_int_equal(vc_quantity_scaled_value(&q, -3, &v), 0);
	assert_int_equal(v, INT64_MIN);
	parse_ok("1", &q);
	assert_int_equal(vc_quantity_scaled_value(&q, -19, &v), VC_ERANGE);
	assert_int_equal(vc_quantity_scaled_value(&q, -18, &v), 0);
	assert_int_equal(v, INT64_C(1000000000000000000));
	assert_int_equal(vc_quantity_scaled_value(&q, -100, &v), VC_ERANGE);
}

/* TestNewSet, TestMilliNewSet, TestNewScaledSet. */
static void test_constructors(void **state)
{
	static const struct {
		int64_t v;
		enum vc_quantity_format format;
		const char *want;
	} ints[] = {
		{ 1, DSI, "1" },      { 1000, DSI, "1k" },   { 1234000, DSI, "1234k" },
		{ 1024, BSI, "1Ki" }, { 1000000, DEX, "1e6" }, { 1024 * 1024, BSI, "1Mi" },
	}, millis[] = {
		{ 1, DSI, "1m" },	   { 1000, DSI, "1" },	  { 1234000, DSI, "1234" },
		{ 1024, BSI, "1024m" }, { 1000000, DEX, "1e3" }, { 1024 * 1024, BSI, "1048576m" },
	};
	static const struct {
		int64_t v;
		int scale;
		const char *want;
	} scaled[] = {
		{ 1, -9, "1n" }, { 1000, -9, "1u" }, { 1, -6, "1u" },	  { 1000, -6, "1m" },
		{ 1, -3, "1m" }, { 1000, -3, "1" },  { 1, 0, "1" },	  { 0, -9, "0" },
		{ 0, -12, "0" }, { 0, 0, "0" },	     { 2000, -12, "2n" }, { 7, 28, "70e27" },
	};
	struct vc_quantity q, r;
	char buf[VC_QUANTITY_STR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(ints); i++) {
		vc_quantity_from_int64(&q, ints[i].v, ints[i].format);
		assert_string_equal(fmt(&q, buf), ints[i].want);
		parse_ok(buf, &r);
		assert_int_equal(vc_quantity_value(&r), ints[i].v);
	}
	for (i = 0; i < VC_ARRAY_SIZE(millis); i++) {
		vc_quantity_from_milli(&q, millis[i].v, millis[i].format);
		assert_string_equal(fmt(&q, buf), millis[i].want);
		parse_ok(buf, &r);
		assert_int_equal(vc_quantity_milli_value(&r), millis[i].v);
	}
	for (i = 0; i < VC_ARRAY_SIZE(scaled); i++) {
		assert_int_equal(vc_quantity_from_scaled(&q, scaled[i].v, scaled[i].scale, DSI), 0);
		assert_string_equal(fmt(&q, buf), scaled[i].want);
	}
	q.nanos = 5;
	assert_int_equal(vc_quantity_from_scaled(&q, 1, -10, DSI), VC_ERANGE);
	assert_int_equal(vc_quantity_from_scaled(&q, 15, -10, DSI), VC_ERANGE);
	assert_int_equal(vc_quantity_from_scaled(&q, 1, 29, DSI), VC_ERANGE);
	assert_int_equal(vc_quantity_from_scaled(&q, INT64_MAX, 11, DSI), VC_ERANGE);
	assert_int_equal(vc_quantity_from_scaled(&q, 1, -40, DSI), VC_ERANGE);
	assert_int_equal(vc_quantity_from_scaled(&q, 1, 40, DSI), VC_ERANGE);
	assert_nanos(&q, 5); /* untouched on failure */
	assert_int_equal(vc_quantity_from_scaled(&q, INT64_MIN, 10, DSI), 0);
	assert_string_equal(fmt(&q, buf), "-92233720368547758080G");
}

/* TestQuantityCmp, TestQuantityCmpInt64AndDec (within range). */
static void test_cmp(void **state)
{
	static const struct {
		const char *x, *y;
		int want;
	} table[] = {
		{ "0", "0", 0 },
		{ "100m", "50m", 1 },
		{ "50m", "100m", -1 },
		{ "10000T", "100Gi", 1 },
		{ "9.01", "9010m", 0 },
		{ "9", "9.01", -1 },
		{ "1Ki", "1024", 0 },
		{ "1e3", "1k", 0 },
		{ "-1", "0", -1 },
		{ "800m", "1", -1 },
		{ "800m", "790m", 1 },
		{ "1E", "1e18", 0 },
		{ "9223372036854775807", "9223372036854775808", -1 },
		{ "-9223372036854775808", "-9223372036854775807", -1 },
	};
	struct vc_quantity a, b;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		parse_ok(table[i].x, &a);
		parse_ok(table[i].y, &b);
		assert_int_equal(vc_quantity_cmp(&a, &b), table[i].want);
		assert_int_equal(vc_quantity_cmp(&b, &a), -table[i].want);
	}
	parse_ok("1500m", &a);
	assert_int_equal(vc_quantity_cmp_int64(&a, 1), 1);
	assert_int_equal(vc_quantity_cmp_int64(&a, 2), -1);
	parse_ok("-1024", &a);
	assert_int_equal(vc_quantity_cmp_int64(&a, -1024), 0);
	assert_int_equal(vc_quantity_sign(&a), -1);
	parse_ok("0n", &a);
	assert_int_equal(vc_quantity_sign(&a), 0);
	assert_true(vc_quantity_is_zero(&a));
	parse_ok("1n", &a);
	assert_int_equal(vc_quantity_sign(&a), 1);
	assert_false(vc_quantity_is_zero(&a));
}

/* TestAdd, TestSub, TestQuantity{Add,Sub}ZeroPreservesSuffix, TestMul, TestNeg. */
static void test_arithmetic(void **state)
{
	static const char *const keep[] = { "100m", "1Gi" };
	struct vc_quantity a, b, zero, max;
	char buf[VC_QUANTITY_STR_MAX], buf2[VC_QUANTITY_STR_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(keep); i++) {
		parse_ok(keep[i], &a);
		parse_ok("0", &zero);
		assert_int_equal(vc_quantity_add(&a, &zero), 0);
		assert_string_equal(fmt(&a, buf), keep[i]);
		parse_ok(keep[i], &b);
		assert_int_equal(vc_quantity_add(&zero, &b), 0);
		assert_string_equal(fmt(&zero, buf), keep[i]);
		parse_ok("0", &zero);
		assert_int_equal(vc_quantity_sub(&zero, &b), 0);
		vc_quantity_neg(&b);
		assert_string_equal(fmt(&zero, buf), fmt(&b, buf2));
		assert_int_equal(zero.format, b.format);
	}
	/* Formats: the receiver keeps its own unless it was zero. */
	vc_quantity_from_int64(&a, 10, DSI);
	vc_quantity_from_int64(&b, 1, BSI);
	assert_int_equal(vc_quantity_add(&a, &b), 0);
	assert_int_equal(vc_quantity_value(&a), 11);
	assert_int_equal(a.format, DSI);
	vc_quantity_from_int64(&a, 10, BSI);
	vc_quantity_from_int64(&b, 1, DSI);
	assert_int_equal(vc_quantity_sub(&a, &b), 0);
	assert_int_equal(vc_quantity_value(&a), 9);
	assert_int_equal(a.format, BSI);
	vc_quantity_from_int64(&a, 10, DSI);
	vc_quantity_from_int64(&b, 10, DSI);
	assert_int_equal(vc_quantity_sub(&a, &b), 0);
	assert_true(vc_quantity_is_zero(&a));
	assert_string_equal(fmt(&a, buf), "0");
	/* Neg (TestQuantityNeg). */
	parse_ok("9.01", &a);
	vc_quantity_neg(&a);
	assert_string_equal(fmt(&a, buf), "-9010m");
	vc_quantity_neg(&a);
	assert_string_equal(fmt(&a, buf), "9010m");
	/* Mul (TestMul, within Caldera's range). */
	vc_quantity_from_int64(&a, 10, DSI);
	assert_int_equal(vc_quantity_mul(&a, 10), 0);
	assert_int_equal(vc_quantity_value(&a), 100);
	assert_int_equal(vc_quantity_mul(&a, -1), 0);
	assert_int_equal(vc_quantity_value(&a), -100);
	assert_int_equal(vc_quantity_mul(&a, 0), 0);
	assert_true(vc_quantity_is_zero(&a));
	vc_quantity_from_int64(&a, INT64_MAX, DSI);
	assert_int_equal(vc_quantity_mul(&a, 2), 0);
	assert_string_equal(fmt(&a, buf), "18446744073709551614");
	vc_quantity_from_int64(&a, INT64_MIN, DSI);
	assert_int_equal(vc_quantity_mul(&a, -1), 0);
	assert_string_equal(fmt(&a, buf), "9223372036854775808");
	vc_quantity_from_int64(&a, INT64_MIN, DSI);
	assert_int_equal(vc_quantity_mul(&a, -10), 0);
	assert_string_equal(fmt(&a, buf), "92233720368547758080");
	/* 2^63 in BinarySI prints as 8Ei (TestZeroSubMostNegativeInheritsFormat). */
	vc_quantity_init(&a);
	vc_quantity_from_int64(&b, INT64_MIN, BSI);
	assert_int_equal(vc_quantity_sub(&a, &b), 0);
	assert_int_equal(a.format, BSI);
	assert_string_equal(fmt(&a, buf), "8Ei");
	/* A BinarySI value past Ei (TestBinarySIPastEiArithmeticRoundTrip). */
	parse_ok("1Ei", &a);
	assert_int_equal(vc_quantity_mul(&a, 1024), 0);
	assert_string_equal(fmt(&a, buf), "1180591620717411303424");
	parse_ok(buf, &b);
	assert_int_equal(vc_quantity_cmp(&a, &b), 0);
	/* Overflow: VC_ERANGE and the receiver untouched. */
	parse_ok("99999999999999999999999999999.999999999", &max);
	a = max;
	parse_ok("1n", &b);
	assert_int_equal(vc_quantity_add(&a, &b), VC_ERANGE);
	assert_int_equal(vc_quantity_cmp(&a, &max), 0);
	assert_string_equal(a.str, max.str);
	assert_int_equal(vc_quantity_sub(&a, &b), 0);
	assert_int_equal(vc_quantity_add(&a, &b), 0);
	assert_true(a.nanos == VC_QUANTITY_MAX_NANOS);
	vc_quantity_neg(&a);
	assert_int_equal(vc_quantity_sub(&a, &b), VC_ERANGE);
	assert_true(a.nanos == -VC_QUANTITY_MAX_NANOS);
	assert_int_equal(vc_quantity_add(&a, &b), 0);
	a = max;
	assert_int_equal(vc_quantity_mul(&a, 2), VC_ERANGE);
	assert_int_equal(vc_quantity_mul(&a, INT64_MIN), VC_ERANGE);
	assert_int_equal(vc_quantity_cmp(&a, &max), 0);
	assert_int_equal(vc_quantity_mul(&a, -1), 0);
	assert_string_equal(fmt(&a, buf), "-99999999999999999999999999999999999999n");
	vc_quantity_from_int64(&a, 10, DSI);
	vc_quantity_from_int64(&b, 10, DSI);
	b.nanos = VC_QUANTITY_MAX_NANOS;
	assert_int_equal(vc_quantity_mul(&a, INT64_MAX), 0);
	assert_int_equal(vc_quantity_add(&a, &b), VC_ERANGE);
	/* Both operands at the limit: the sum would overflow __int128 itself (found by fuzzing). */
	a = max;
	assert_int_equal(vc_quantity_add(&a, &max), VC_ERANGE);
	assert_int_equal(vc_quantity_cmp(&a, &max), 0);
	b = max;
	vc_quantity_neg(&b);
	assert_int_equal(vc_quantity_sub(&a, &b), VC_ERANGE);
	assert_int_equal(vc_quantity_add(&b, &b), VC_ERANGE);
	assert_int_equal(vc_quantity_sub(&b, &max), VC_ERANGE);
	assert_int_equal(vc_quantity_add(&a, &b), 0);
	assert_true(vc_quantity_is_zero(&a));
}

/* TestAddSubRoundTrip: adding and subtracting the same values cancels exactly. */
static void test_add_sub_round_trip(void **state)
{
	struct vc_quantity q, x;
	uint64_t seed = 88172645463325252ULL;
	int64_t vals[100];
	int k, i;

	(void)state;
	for (k = -9; k <= 9; k++) {
		vc_quantity_init(&q);
		for (i = 0; i < 100; i++) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			vals[i] = (int64_t)(seed >> 33);
			assert_int_equal(vc_quantity_from_scaled(&x, vals[i], k, DSI), 0);
			assert_int_equal(vc_quantity_add(&q, &x), 0);
		}
		for (i = 0; i < 100; i++) {
			assert_int_equal(vc_quantity_from_scaled(&x, vals[i], k, DSI), 0);
			assert_int_equal(vc_quantity_sub(&q, &x), 0);
		}
		assert_true(vc_quantity_is_zero(&q));
	}
}

/* TestQuantityAsFloat64Slow (within range) and TestStringQuantityAsApproximateFloat64. */
static void test_as_double(void **state)
{
	static const struct {
		int64_t m;
		int exp;
		double want;
	} table[] = {
		{ 0, 0, 0.0 },
		{ 1, 0, 1 },
		{ 1024, 0, 1024 },
		{ 7 * 1024 * 1024, 0, 7 * 1024 * 1024 },
		{ 7 * 1024 * 1024, 1, 7.0 * 1024 * 1024 * 10 },
		{ 7 * 1024 * 1024, 8, 7.0 * 1024 * 1024 * 100000000 },
		{ 7 * 1024 * 1024, -1, (7 * 1024 * 1024) / 10.0 },
		{ 7 * 1024 * 1024, -8, (7 * 1024 * 1024) / 100000000.0 },
		{ INT64_MAX, 0, 9223372036854775807.0 },
		{ 12, 18, 1.2e19 },
	};
	static const struct {
		const char *in;
		double want;
	} strings[] = {
		{ "2Ki", 2048 },	 { "1.1Ki", 1126.4 },
		{ "1Mi", 1.048576e+06 }, { "2Gi", 2.147483648e+09 },
		{ "0.1", 0.1 },		 { "-1500m", -1.5 },
	};
	struct vc_quantity q;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		vc_quantity_init(&q);
		q.nanos = nanos_of(table[i].m, table[i].exp);
		assert_true(vc_quantity_as_double(&q) == table[i].want);
	}
	for (i = 0; i < VC_ARRAY_SIZE(strings); i++) {
		parse_ok(strings[i].in, &q);
		assert_true(vc_quantity_as_double(&q) == strings[i].want);
	}
}

/* Parsing never allocates: the chaos loop only proves that, and that nothing leaks. */
static void test_alloc_failure(void **state)
{
	struct vc_quantity q;
	json_t *s = json_string(" 1.5Gi ");
	long n;

	(void)state;
	for (n = 0; n < 4; n++) {
		vc_alloc_fail_after(n);
		assert_int_equal(vc_quantity_parse("1.5Gi", &q, NULL), 0);
		assert_int_equal(vc_quantity_parse_json(s, &q, NULL), 0);
		assert_int_equal(vc_alloc_failures(), 0);
		vc_alloc_fail_reset();
	}
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_range),
		cmocka_unit_test(test_canonical_examples),
		cmocka_unit_test(test_cached_input),
		cmocka_unit_test(test_parse_quantity_table),
		cmocka_unit_test(test_parse_emit),
		cmocka_unit_test(test_string_table),
		cmocka_unit_test(test_format_errors_and_json),
		cmocka_unit_test(test_parse_json),
		cmocka_unit_test(test_value_rounding),
		cmocka_unit_test(test_constructors),
		cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_add_sub_round_trip),
		cmocka_unit_test(test_as_double),
		cmocka_unit_test(test_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
