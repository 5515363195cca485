/*
 * Fuzz vc_yaml: any bytes must load or fail cleanly, with a position inside the input. What
 * loads must survive a round trip: each document dumped as JSON (JSON is YAML) and loaded
 * again must be json_equal to the original. abort() makes the fuzzer report a mismatch.
 */
#include "vc_prelude.h"

#include "vc_buf.h"
#include "vc_err.h"
#include "vc_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * jansson writes non-ASCII characters raw, but YAML does not allow some of them raw: C1
 * controls, DEL, U+FFFE and U+FFFF are rejected, and NEL, LS and PS are line breaks that a
 * quoted scalar would fold. Write those as \uXXXX escapes (still JSON) so the text stays
 * equivalent. They only occur inside strings, where an escape means the same character.
 */
static void yaml_safe(const char *json, struct vc_buf *out)
{
	const unsigned char *p = (const unsigned char *)json;

	while (*p) {
		unsigned int c = *p, w = 1;

		if (c >= 0xc0 && c < 0xe0) {
			c = (c & 0x1f) << 6 | (p[1] & 0x3f);
			w = 2;
		} else if (c >= 0xe0 && c < 0xf0) {
			c = (c & 0x0f) << 12 | (p[1] & 0x3f) << 6 | (p[2] & 0x3f);
			w = 3;
		} else if (c >= 0xf0) {
			w = 4;
		}
		if ((c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c == 0xfffe ||
		    c == 0xffff) {
			if (vc_buf_addf(out, "\\u%04x", c))
				abort();
		} else if (vc_buf_add(out, p, w)) {
			abort();
		}
		p += w;
	}
}

/*
 * YAML allows an implicit (simple) key of at most 1024 characters, so a JSON object with a
 * longer key does not load as YAML with libyaml (nor with go-yaml): not a loader bug.
 */
static bool has_long_key(const json_t *v)
{
	const char *key;
	json_t *child;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach ((json_t *)v, key, child) {
			if (strlen(key) > 900 || has_long_key(child))
				return true;
		}
	} else if (json_is_array(v)) {
		json_array_foreach (v, i, child) {
			if (has_long_key(child))
				return true;
		}
	}
	return false;
}

static void round_trip(const json_t *doc)
{
	/* The dump can exceed the input (aliases are expanded): lift the size limit. */
	static const struct vc_yaml_limits big = { .max_input = SIZE_MAX };
	struct vc_error err;
	struct vc_buf safe;
	json_t *again = NULL;
	char *json;

	if (has_long_key(doc))
		return;
	json = json_dumps(doc, JSON_ENCODE_ANY);
	if (!json)
		abort();
	vc_buf_init(&safe, SIZE_MAX);
	yaml_safe(json, &safe);
	if (vc_yaml_load_one_ex(vc_buf_str(&safe), safe.len, &big, &again, &err)) {
		fprintf(stderr, "JSON does not load as YAML: %s\n%s\n", err.text,
			vc_buf_str(&safe));
		abort();
	}
	if (!json_equal(doc, again)) {
		char *second = json_dumps(again, JSON_ENCODE_ANY);

		fprintf(stderr, "round trip differs:\n%s\n%s\n", json, second ? second : "?");
		abort();
	}
	json_decref(again);
	vc_buf_release(&safe);
	free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Smaller alias caps keep each run fast; the logic is the same. */
	static const struct vc_yaml_limits limits = { .max_alias_nodes = 1 << 14,
						      .max_alias_bytes = 1 << 20 };
	struct vc_error err;
	json_t *docs = NULL, *doc;
	size_t i;
	int rc;

	rc = vc_yaml_load_ex((const char *)data, size, &limits, &docs, &err);
	if (rc) {
		if (docs || (rc != VC_EPARSE && rc != VC_E2BIG) || err.code != rc ||
		    strncmp(err.text, "yaml: ", 6) != 0 || err.position > size || err.line < 0 ||
		    err.column < 0)
			abort();
		return 0;
	}
	json_array_foreach (docs, i, doc) {
		if (json_is_null(doc))
			abort();
		round_trip(doc);
	}
	json_decref(docs);
	return 0;
}
