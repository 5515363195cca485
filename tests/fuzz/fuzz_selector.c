/*
 * fuzz_selector - parse arbitrary bytes as a label selector; whenever they parse, String() must
 * parse again to a selector with the same String() (apimachinery's canonical form is a fixed
 * point), and matching must not depend on which of the two is used. Field selectors get the
 * same round trip (see check_fields). Any difference aborts.
 */
#include "vc_prelude.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_fieldselector.h"
#include "vc_selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *format_label(const struct vc_selector *s)
{
	struct vc_buf b;

	vc_buf_init(&b, 0);
	if (vc_selector_format(s, &b))
		abort();
	return vc_buf_take(&b);
}

static char *format_field(const struct vc_field_selector *s)
{
	struct vc_buf b;

	vc_buf_init(&b, 0);
	if (vc_field_selector_format(s, &b))
		abort();
	return vc_buf_take(&b);
}

/* Labels made from the selector's own keys and values, so matching is exercised. */
static json_t *labels_from(const struct vc_selector *s)
{
	json_t *l = json_object();
	size_t i;

	for (i = 0; l && i < vc_selector_count(s); i++) {
		const struct vc_requirement *r = vc_selector_get(s, i);

		if (i % 3 == 2)
			continue;
		json_object_set_new(l, r->key, json_string(r->nvalues ? r->values[0] : "7"));
	}
	return l;
}

static void check_labels(const char *text)
{
	struct vc_selector *a = NULL, *b = NULL;
	struct vc_error err;
	char *sa, *sb;
	json_t *l;

	if (vc_selector_parse(text, &a, &err)) {
		/* A failed parse reports a position inside the input. */
		if (err.code == VC_EPARSE && err.position > strlen(text))
			abort();
		return;
	}
	sa = format_label(a);
	if (vc_selector_parse(sa, &b, &err)) {
		fprintf(stderr, "reparse of '%s' failed: %s\n", sa, err.text);
		abort();
	}
	sb = format_label(b);
	if (strcmp(sa, sb)) {
		fprintf(stderr, "not a fixed point: '%s' -> '%s'\n", sa, sb);
		abort();
	}
	l = labels_from(a);
	if (l && vc_selector_matches(a, l) != vc_selector_matches(b, l))
		abort();
	if (vc_selector_count(a) != vc_selector_count(b))
		abort();
	json_decref(l);
	vc_free(sa);
	vc_free(sb);
	vc_selector_free(a);
	vc_selector_free(b);
}

/* Parse and print a field selector; NULL when it does not parse. */
static char *field_round(const char *text)
{
	struct vc_field_selector *s = NULL;
	char *out;

	if (vc_field_selector_parse(text, &s, NULL))
		return NULL;
	out = format_field(s);
	vc_field_selector_free(s);
	return out;
}

/*
 * Field selectors sort their terms by raw text and print "==" as "=", so, as in apimachinery, one
 * round can reorder terms ("y==b" sorts before "y=bc", "y=b" after it). The printed form keeps
 * the terms, and from the second round on it is a fixed point.
 */
static void check_fields(const char *text)
{
	char *s1, *s2, *s3;

	if (!(s1 = field_round(text)))
		return;
	s2 = field_round(s1);
	if (!s2 || strlen(s1) != strlen(s2))
		abort();
	s3 = field_round(s2);
	if (!s3 || strcmp(s2, s3)) {
		fprintf(stderr, "field selector not a fixed point: '%s' -> '%s'\n", s2,
			s3 ? s3 : "(error)");
		abort();
	}
	vc_free(s1);
	vc_free(s2);
	vc_free(s3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size > 4096)
		return 0;
	/* Selectors are C strings: the input ends at its first NUL. */
	text = vc_strndup((const char *)data, size);
	if (!text)
		return 0;
	check_labels(text);
	check_fields(text);
	vc_free(text);
	return 0;
}
