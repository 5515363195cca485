/*
 * json_test.h - JSON helpers of the unit tests (header-only: include it after <cmocka.h>).
 *
 * parse() turns a test literal into a json_t (any top-level value; a literal that does not parse
 * fails the test) and assert_dump() checks a value's sorted compact dump. json_has_null_member()
 * needs no cmocka: the fuzz targets use it too.
 */
#ifndef CALDERA_TESTS_JSON_TEST_H
#define CALDERA_TESTS_JSON_TEST_H

#include "vc_prelude.h"

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_json.h"

/* Whether v holds a null object member at any depth (merge_diff cannot round-trip those). */
static inline bool json_has_null_member(const json_t *v)
{
	const char *key;
	json_t *m;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach ((json_t *)v, key, m) {
			if (json_is_null(m) || json_has_null_member(m))
				return true;
		}
	} else if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v); i++) {
			if (json_has_null_member(json_array_get(v, i)))
				return true;
		}
	}
	return false;
}

#ifdef CMOCKA_H_ /* <cmocka.h> included */
/* Parse a test literal, any top-level value allowed. */
static inline json_t *parse(const char *s)
{
	struct vc_error err;
	json_t *v = NULL;

	vc_error_clear(&err);
	if (vc_json_parse_flags(s, strlen(s), 0, VC_JSON_PARSE_ANY, &v, &err) != 0)
		fail_msg("cannot parse test input '%s': %s", s, err.text);
	return v;
}

static inline void assert_dump(const json_t *v, const char *expected)
{
	char *s = vc_json_dumps_sorted(v);

	assert_non_null(s);
	assert_string_equal(s, expected);
	vc_free(s);
}
#endif

#endif
