/*
 * libFuzzer target for vc_json_loadb: for every input and each set of flags the daemons use, its
 * own parser (vc_json_loadb_fast) takes exactly what json_loadb takes, with the same tree: equal
 * values (json_equal) in the same member order with the same number types (the compact dumps are
 * the same bytes); and vc_json_loadb gives jansson's verdict, tree and error text and position.
 */
#include "vc_prelude.h"

#include "vc_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const size_t flag_sets[] = {
	0,
	JSON_REJECT_DUPLICATES,
	JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
	JSON_ALLOW_NUL,
	JSON_DECODE_ANY | JSON_ALLOW_NUL,
};

/* a and b both NULL, or the same tree (both are released). */
static void same_tree(json_t *a, json_t *b)
{
	char *da, *db;

	if (!a != !b)
		abort();
	if (!a)
		return;
	if (!json_equal(a, b))
		abort();
	da = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
	db = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
	if (!da || !db || strcmp(da, db) != 0)
		abort();
	free(da);
	free(db);
	json_decref(a);
	json_decref(b);
}

static void same(const char *buf, size_t size, size_t flags)
{
	json_error_t ea, eb;
	json_t *a = json_loadb(buf, size, flags, &ea);
	json_t *b = vc_json_loadb(buf, size, flags, &eb);

	if (!a && !b &&
	    (strcmp(ea.text, eb.text) != 0 || ea.position != eb.position || ea.line != eb.line ||
	     ea.column != eb.column))
		abort();
	same_tree(a ? json_deep_copy(a) : NULL, vc_json_loadb_fast(buf, size, flags));
	same_tree(a, b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++)
		same((const char *)data, size, flag_sets[i]);
	return 0;
}
