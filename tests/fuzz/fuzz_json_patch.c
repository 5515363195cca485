/*
 * Fuzz the JSON Patch and merge patch code with a document and a patch from the input.
 *
 * The input is "<document>\0<patch>": both are parsed with vc_json_parse (the document may be any
 * JSON value, the patch must be an array or object). The patch is applied as RFC 6902 and as RFC
 * 7386. Beyond "no crash, no leak" the target checks properties and abort()s when one breaks:
 *   - apply(diff(doc, result), doc) equals result, and diff(result, result) is empty;
 *   - the result serialises and parses back to an equal value (the depth limit holds);
 *   - a merge patch is idempotent, and merge_diff round-trips when no member is null.
 */
#include "vc_prelude.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_jsonpatch.h"

#include "../unit/support/json_test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value must survive a dump and a parse unchanged. */
static void check_reparse(const json_t *v)
{
	char *s = vc_json_dumps_sorted(v);
	json_t *back;

	if (!s)
		abort();
	if (vc_json_parse_flags(s, strlen(s), SIZE_MAX, VC_JSON_PARSE_ANY, &back, NULL) != 0)
		abort();
	if (!vc_json_equal(v, back))
		abort();
	json_decref(back);
	vc_free(s);
}

static void check_diff(const json_t *from, const json_t *to)
{
	json_t *ops, *again;
	struct vc_error err;

	ops = vc_json_patch_diff(from, to);
	if (!ops)
		abort();
	if (vc_json_patch_apply(from, ops, &again, &err) != 0)
		abort();
	if (!vc_json_equal(again, to))
		abort();
	json_decref(again);
	json_decref(ops);
	ops = vc_json_patch_diff(to, to);
	if (!ops || json_array_size(ops) != 0)
		abort();
	json_decref(ops);
}

static void check_merge(const json_t *doc, const json_t *patch)
{
	json_t *once, *twice, *mp, *back;

	if (vc_json_merge_patch_apply(doc, patch, &once, NULL) != 0)
		abort();
	if (vc_json_merge_patch_apply(once, patch, &twice, NULL) != 0)
		abort();
	if (!vc_json_equal(once, twice))
		abort();
	if (!json_has_null_member(once)) {
		mp = vc_json_merge_patch_diff(doc, once);
		if (!mp || vc_json_merge_patch_apply(doc, mp, &back, NULL) != 0)
			abort();
		if (!vc_json_equal(back, once))
			abort();
		json_decref(back);
		json_decref(mp);
	}
	json_decref(twice);
	json_decref(once);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *nul = memchr(data, '\0', size);
	json_t *doc, *patch, *result;
	struct vc_error err;
	size_t dlen;

	dlen = nul ? (size_t)(nul - buf) : size;
	if (vc_json_parse_flags(buf, dlen, 0, VC_JSON_PARSE_ANY, &doc, &err) != 0)
		return 0;
	if (!nul) {
		/* Only a document: diff it against nothing and back. */
		check_diff(doc, json_null());
		json_decref(doc);
		return 0;
	}
	if (vc_json_parse(nul + 1, size - dlen - 1, 0, &patch, &err) != 0) {
		json_decref(doc);
		return 0;
	}
	if (vc_json_patch_apply(doc, patch, &result, &err) == 0) {
		check_reparse(result);
		check_diff(doc, result);
		check_diff(result, doc);
		json_decref(result);
	} else if (result || err.text[0] == '\0') {
		abort();
	}
	check_merge(doc, patch);
	json_decref(patch);
	json_decref(doc);
	return 0;
}
