/*
 * Unit tests for vc_base64: the vectors of RFC 4648, section 10, and the cases of Go's
 * encoding/base64 tests that StdEncoding.DecodeString accepts or rejects (with its error offsets).
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_err.h"

static void test_encode(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "f", "Zg==" },
		{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" },
		{ "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};
	const unsigned char bin[] = { 0xfb, 0xff, 0x00, 0x3e };
	size_t i;
	char *s;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		s = vc_base64_encode(cases[i].in, strlen(cases[i].in));
		assert_non_null(s);
		assert_string_equal(s, cases[i].out);
		assert_int_equal(strlen(s), VC_BASE64_ENCODED_LEN(strlen(cases[i].in)));
		vc_free(s);
	}
	s = vc_base64_encode(bin, sizeof(bin));
	assert_string_equal(s, "+/8APg==");
	vc_free(s);
	vc_alloc_fail_after(0);
	assert_null(vc_base64_encode("x", 1));
	vc_alloc_fail_reset();
}

static void test_decode(void **state)
{
	static const struct {
		const char *in;
		const char *out;  /* NULL: an error */
		const char *text; /* the error */
		size_t outlen;
	} cases[] = {
		{ "", "", NULL, 0 },
		{ "Zg==", "f", NULL, 1 },
		{ "Zm8=", "fo", NULL, 2 },
		{ "Zm9vYmFy", "foobar", NULL, 6 },
		{ "YQ==", "a", NULL, 1 },
		{ "YR==", "a", NULL, 1 }, /* unused bits are ignored */
		{ "YWI=", "ab", NULL, 2 },
		{ "YWJj", "abc", NULL, 3 },
		{ "YWJjZA==", "abcd", NULL, 4 },
		{ "YW\nJj\r\nZA==\n", "abcd", NULL, 4 },
		{ "AAA=", "\0\0", NULL, 2 },
		{ "YQ=", NULL, "illegal base64 data at input byte 3", 0 },
		{ "YQ", NULL, "illegal base64 data at input byte 2", 0 },
		{ "Y===", NULL, "illegal base64 data at input byte 1", 0 },
		{ "YQ==YQ==", NULL, "illegal base64 data at input byte 4", 0 },
		{ "YQ=a", NULL, "illegal base64 data at input byte 3", 0 },
		{ "YWJ-", NULL, "illegal base64 data at input byte 3", 0 },
		{ "'!!!!'", NULL, "illegal base64 data at input byte 0", 0 },
		{ "=", NULL, "illegal base64 data at input byte 0", 0 },
		{ "YQ===", NULL, "illegal base64 data at input byte 4", 0 },
	};
	struct vc_error err;
	size_t i, n;
	char *out;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		int rc = vc_base64_decode(cases[i].in, strlen(cases[i].in), &out, &n, &err);

		if (cases[i].out) {
			assert_int_equal(rc, 0);
			assert_int_equal(n, cases[i].outlen);
			assert_memory_equal(out, cases[i].out, n);
			assert_int_equal(out[n], '\0');
			vc_free(out);
		} else {
			assert_int_equal(rc, VC_EPARSE);
			assert_null(out);
			assert_string_equal(err.text, cases[i].text);
		}
	}
	/* The length bounds the input: an embedded NUL is bad data. */
	assert_int_equal(vc_base64_decode("YQ==\0", 5, &out, NULL, &err), VC_EPARSE);
	assert_string_equal(err.text, "illegal base64 data at input byte 4");
	vc_alloc_fail_after(0);
	assert_int_equal(vc_base64_decode("YQ==", 4, &out, NULL, &err), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
