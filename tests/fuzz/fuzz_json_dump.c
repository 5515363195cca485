/*
 * Fuzz vc_json_dump against jansson's json_dump_callback: they must write the same bytes, or
 * both fail (vc_json_dump then with VC_EINVAL and the buffer as it was).
 *
 * The input is parsed with json_loadb (any top-level value, NUL bytes allowed in strings) and
 * dumped with JSON_COMPACT | JSON_ENCODE_ANY, with and without JSON_SORT_KEYS. The raw input
 * is also put, unchecked, into a string and into an object key (json_stringn_nocheck,
 * json_object_setn_nocheck): the parser only makes valid UTF-8, the serialiser must refuse or
 * write invalid UTF-8 exactly as jansson does.
 */
#include "vc_prelude.h"

#include "vc_buf.h"
#include "vc_err.h"
#include "vc_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int jansson_sink(const char *buffer, size_t size, void *data)
{
	return vc_buf_add(data, buffer, size) ? -1 : 0;
}

static void check(const json_t *v, size_t flags)
{
	struct vc_buf want, got;
	int jrc, rc;

	vc_buf_init(&want, 0);
	vc_buf_init(&got, 0);
	jrc = json_dump_callback(v, jansson_sink, &want, flags);
	if (vc_buf_add(&got, "<", 1))
		abort();
	rc = vc_json_dump(v, flags, &got);
	if (jrc ? rc != VC_EINVAL || got.len != 1
		: rc || got.len != want.len + 1 || memcmp(got.data + 1, want.data, want.len))
		abort();
	vc_buf_release(&want);
	vc_buf_release(&got);
}

static void check_both(const json_t *v)
{
	check(v, JSON_COMPACT | JSON_ENCODE_ANY);
	check(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t error;
	json_t *v, *raw, *obj;

	v = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &error);
	if (v) {
		check_both(v);
		json_decref(v);
	}
	raw = json_stringn_nocheck((const char *)data, size);
	obj = json_object();
	if (raw && obj && !json_object_set_nocheck(obj, "k", raw) &&
	    !json_object_setn_new_nocheck(obj, (const char *)data, size, json_integer(1))) {
		check_both(raw);
		check_both(obj);
	}
	json_decref(obj);
	json_decref(raw);
	return 0;
}
