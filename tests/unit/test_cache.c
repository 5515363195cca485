/*
 * Unit tests for vc_cache: keys, reads and writes, indexes, relists, the mutation check. The
 * behavioural tests run twice: on unpacked caches, then (group "packed") on VC_CACHE_PACKED ones.
 */
#include "vc_prelude.h"

#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_log.h"

/* ---- helpers --------------------------------------------------------------------------------- */

/* The flags of every cache the shared tests make: 0, then VC_CACHE_PACKED. */
static unsigned g_flags;

/* Log lines saying a packed read ran out of memory (the log sink counts them, quietly). */
static int parse_warnings;

static void count_log(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	if (strstr(line, "msg=\"cache cannot parse a packed object\" key=ns/p3 "
			 "error=\"out of memory\""))
		parse_warnings++;
}

static bool packed(void)
{
	return (g_flags & VC_CACHE_PACKED) != 0;
}

/*
 * got is what the cache returned for want: unpacked, want itself; packed, a private parse of it
 * (another object, equal, held by the caller alone).
 */
static void assert_cached(const json_t *got, const json_t *want)
{
	assert_non_null(got);
	if (!packed()) {
		assert_ptr_equal(got, want);
		return;
	}
	assert_ptr_not_equal(got, want);
	assert_true(json_equal((json_t *)got, (json_t *)want));
	assert_int_equal(got->refcount, 1);
}

/* A pod-like object; ns, node and job may be NULL (left out). */
static json_t *mkobj(const char *ns, const char *name, const char *rv, const char *job,
		     const char *node)
{
	json_t *o = json_pack("{s:s, s:{s:s}}", "kind", "Pod", "metadata", "name", name);
	json_t *md = json_object_get(o, "metadata");

	assert_non_null(o);
	if (ns)
		assert_int_equal(json_object_set_new(md, "namespace", json_string(ns)), 0);
	if (rv)
		assert_int_equal(json_object_set_new(md, "resourceVersion", json_string(rv)), 0);
	if (job)
		assert_int_equal(
			json_object_set_new(md, "labels",
					    json_pack("{s:s}", "volcano.sh/job-name", job)),
			0);
	if (node)
		assert_int_equal(
			json_object_set_new(o, "spec", json_pack("{s:s}", "nodeName", node)), 0);
	return o;
}

static const struct vc_cache_index pod_indexes[] = {
	{ "namespace", vc_cache_index_by_namespace, NULL },
	{ "job", vc_cache_index_by_label, "volcano.sh/job-name" },
	{ "node", vc_cache_index_by_field, "spec.nodeName" },
};

static struct vc_cache *new_pod_cache(void)
{
	struct vc_cache_opts opts = { .indexes = pod_indexes,
				      .nindexes = VC_ARRAY_SIZE(pod_indexes),
				      .flags = g_flags };
	struct vc_cache *c = NULL;

	assert_int_equal(vc_cache_new(&opts, &c), 0);
	assert_non_null(c);
	return c;
}

static const char *rv_of(const json_t *o)
{
	return json_string_value(
		json_object_get(json_object_get(o, "metadata"), "resourceVersion"));
}

static const char *name_of(const json_t *o)
{
	return json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(name_of(*(json_t *const *)a), name_of(*(json_t *const *)b));
}

/* The names of objs, sorted and comma-separated, into buf. */
static const char *names(struct vc_objs *objs, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	if (objs->count)
		qsort(objs->items, objs->count, sizeof(*objs->items), cmp_names);
	for (i = 0; i < objs->count; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "",
				       name_of(objs->items[i]));
	return buf;
}

/* by_index as a sorted name list (the result is released). */
static const char *by_index(struct vc_cache *c, const char *index, const char *value, char *buf,
			    size_t len)
{
	struct vc_objs objs;

	assert_int_equal(vc_cache_by_index(c, index, value, &objs), 0);
	names(&objs, buf, len);
	vc_objs_release(&objs);
	return buf;
}

/*
 * A description of the whole cache, for "unchanged after a failed write" checks: every key with
 * its object's address (packed: its whole content) and resourceVersion, and the members of every
 * index value in `values`.
 */
static char *describe(struct vc_cache *c, const char *const *values, size_t nvalues)
{
	struct vc_objs all;
	char part[4096], *out;
	size_t i, j, at = 0, cap = 1 << 16;

	out = calloc(1, cap);
	assert_non_null(out);
	assert_int_equal(vc_cache_list(c, &all), 0);
	if (all.count)
		qsort(all.items, all.count, sizeof(*all.items), cmp_names);
	for (i = 0; i < all.count; i++) {
		char *dump = packed() ? json_dumps(all.items[i], JSON_COMPACT) : NULL;

		if (dump)
			at += (size_t)snprintf(out + at, cap - at, "%s@%s:%s;",
					       name_of(all.items[i]), dump, rv_of(all.items[i]));
		else
			at += (size_t)snprintf(out + at, cap - at, "%s@%p:%s;",
					       name_of(all.items[i]), (void *)all.items[i],
					       rv_of(all.items[i]));
		free(dump);
	}
	vc_objs_release(&all);
	for (i = 0; i < VC_ARRAY_SIZE(pod_indexes); i++)
		for (j = 0; j < nvalues; j++)
			at += (size_t)snprintf(
				out + at, cap - at, "|%s=%s:%s", pod_indexes[i].name, values[j],
				by_index(c, pod_indexes[i].name, values[j], part, sizeof(part)));
	return out;
}

/* ---- keys ------------------------------------------------------------------------------------ */

static void test_key(void **state)
{
	char buf[VC_CACHE_KEY_MAX], small[7];
	json_t *o;

	(void)state;
	o = mkobj("ns1", "pod-a", "1", NULL, NULL);
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "ns1/pod-a");
	assert_int_equal(vc_cache_key(o, small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	json_decref(o);

	o = mkobj(NULL, "node-1", NULL, NULL, NULL);
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "node-1");
	/* Exactly fits: 6 bytes and the NUL. */
	assert_int_equal(vc_cache_key(o, small, 7), 0);
	assert_int_equal(vc_cache_key(o, small, 6), VC_E2BIG);
	json_decref(o);

	/* An empty namespace is a cluster-scoped key. */
	o = mkobj("", "x", NULL, NULL, NULL);
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "x");
	json_decref(o);

	o = json_pack("{s:{s:s}}", "metadata", "namespace", "ns");
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), VC_EINVAL);
	assert_string_equal(buf, "");
	json_decref(o);
	o = json_pack("{s:{s:s}}", "metadata", "name", "");
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), VC_EINVAL);
	json_decref(o);
	o = json_pack("{s:{s:i}}", "metadata", "name", 3);
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), VC_EINVAL);
	json_decref(o);
	o = json_pack("[i]", 1);
	assert_int_equal(vc_cache_key(o, buf, sizeof(buf)), VC_EINVAL);
	json_decref(o);
	assert_int_equal(vc_cache_key(NULL, buf, sizeof(buf)), VC_EINVAL);
	assert_int_equal(vc_cache_key(NULL, NULL, 0), VC_EINVAL);
}

/* ---- reads and writes ------------------------------------------------------------------------ */

static void test_upsert_get_delete_references(void **state)
{
	struct vc_cache *c = new_pod_cache();
	json_t *a = mkobj("ns", "a", "1", NULL, NULL), *a2 = mkobj("ns", "a", "2", NULL, NULL);
	json_t *got, *old = (json_t *)1;

	(void)state;
	assert_int_equal(vc_cache_count(c), 0);
	assert_null(vc_cache_get(c, "ns/a"));
	assert_int_equal(vc_cache_upsert(c, a, &old), 0);
	assert_null(old);
	/* The cache holds its own reference; get hands out a new one. */
	assert_int_equal(a->refcount, 2);
	got = vc_cache_get(c, "ns/a");
	assert_ptr_equal(got, a);
	assert_int_equal(a->refcount, 3);
	json_decref(got);
	assert_null(vc_cache_get(c, "a"));
	assert_null(vc_cache_get(c, "ns/b"));

	/* Replacing hands the old object's reference to the caller. */
	assert_int_equal(vc_cache_upsert(c, a2, &old), 0);
	assert_ptr_equal(old, a);
	assert_int_equal(a->refcount, 2);
	json_decref(old);
	assert_int_equal(vc_cache_count(c), 1);
	got = vc_cache_get(c, "ns/a");
	assert_ptr_equal(got, a2);
	json_decref(got);

	/* Without `old` the replaced reference is dropped by the cache. */
	assert_int_equal(vc_cache_upsert(c, a, NULL), 0);
	assert_int_equal(a2->refcount, 1);

	assert_int_equal(vc_cache_delete(c, "ns/a", &old), 0);
	assert_ptr_equal(old, a);
	json_decref(old);
	assert_int_equal(a->refcount, 1);
	assert_int_equal(vc_cache_delete(c, "ns/a", &old), VC_ENOTFOUND);
	assert_null(old);
	assert_int_equal(vc_cache_count(c), 0);

	assert_int_equal(vc_cache_upsert(c, a, NULL), 0);
	assert_int_equal(vc_cache_delete(c, "ns/a", NULL), 0);
	assert_int_equal(a->refcount, 1);

	/* Bad arguments. */
	old = (json_t *)1;
	assert_int_equal(vc_cache_upsert(c, NULL, &old), VC_EINVAL);
	assert_null(old);
	assert_int_equal(vc_cache_upsert(NULL, a, NULL), VC_EINVAL);
	assert_int_equal(vc_cache_delete(c, NULL, NULL), VC_EINVAL);
	assert_null(vc_cache_get(NULL, "x"));
	assert_null(vc_cache_get(c, NULL));
	json_decref(a);
	json_decref(a2);
	vc_cache_free(c);
	vc_cache_free(NULL);
}

static void test_upsert_without_name_is_refused(void **state)
{
	struct vc_cache *c = new_pod_cache();
	json_t *o = json_pack("{s:{s:s}}", "metadata", "namespace", "ns"), *old = (json_t *)1;

	(void)state;
	assert_int_equal(vc_cache_upsert(c, o, &old), VC_EINVAL);
	assert_null(old);
	assert_int_equal(o->refcount, 1);
	assert_int_equal(vc_cache_count(c), 0);
	json_decref(o);
	vc_cache_free(c);
}

static void test_list(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_objs objs = { (json_t **)1, 7 };
	char buf[256];
	json_t *o;
	int i;

	(void)state;
	assert_int_equal(vc_cache_list(c, &objs), 0);
	assert_null(objs.items);
	assert_int_equal(objs.count, 0);
	for (i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		o = mkobj(i % 2 ? "odd" : "even", name, "1", NULL, NULL);
		assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
		json_decref(o);
	}
	assert_int_equal(vc_cache_list(c, &objs), 0);
	assert_int_equal(objs.count, 5);
	assert_int_equal(objs.items[0]->refcount, packed() ? 1 : 2);
	assert_string_equal(names(&objs, buf, sizeof(buf)), "p0,p1,p2,p3,p4");
	vc_objs_release(&objs);
	assert_null(objs.items);
	assert_int_equal(objs.count, 0);
	vc_objs_release(NULL);
	assert_int_equal(vc_cache_list(NULL, &objs), VC_EINVAL);
	assert_int_equal(vc_cache_list(c, NULL), VC_EINVAL);
	vc_cache_free(c);
}

/* ---- indexes --------------------------------------------------------------------------------- */

static void test_indexes_follow_writes(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_objs objs;
	char buf[256];
	json_t *o;

	(void)state;
	o = mkobj("ns1", "a-0", "1", "a", "node-1");
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	o = mkobj("ns1", "a-1", "1", "a", NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	o = mkobj("ns2", "b-0", "1", "b", "node-1");
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	o = mkobj(NULL, "cluster-thing", "1", NULL, NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);

	assert_string_equal(by_index(c, "namespace", "ns1", buf, sizeof(buf)), "a-0,a-1");
	assert_string_equal(by_index(c, "namespace", "ns2", buf, sizeof(buf)), "b-0");
	assert_string_equal(by_index(c, "namespace", "", buf, sizeof(buf)), "");
	assert_string_equal(by_index(c, "job", "a", buf, sizeof(buf)), "a-0,a-1");
	assert_string_equal(by_index(c, "node", "node-1", buf, sizeof(buf)), "a-0,b-0");
	assert_string_equal(by_index(c, "node", "node-2", buf, sizeof(buf)), "");
	assert_int_equal(vc_cache_index_count(c, "job", "a"), 2);
	assert_int_equal(vc_cache_index_count(c, "job", "zzz"), 0);
	assert_int_equal(vc_cache_index_count(c, "nope", "a"), 0);

	/* An update moves a-1 to node-2 and job c; a-0 loses its node. */
	o = mkobj("ns1", "a-1", "2", "c", "node-2");
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	o = mkobj("ns1", "a-0", "2", "a", NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	assert_string_equal(by_index(c, "job", "a", buf, sizeof(buf)), "a-0");
	assert_string_equal(by_index(c, "job", "c", buf, sizeof(buf)), "a-1");
	assert_string_equal(by_index(c, "node", "node-1", buf, sizeof(buf)), "b-0");
	assert_string_equal(by_index(c, "node", "node-2", buf, sizeof(buf)), "a-1");

	/* A delete unfiles the object everywhere. */
	assert_int_equal(vc_cache_delete(c, "ns2/b-0", NULL), 0);
	assert_string_equal(by_index(c, "node", "node-1", buf, sizeof(buf)), "");
	assert_string_equal(by_index(c, "namespace", "ns2", buf, sizeof(buf)), "");
	assert_string_equal(by_index(c, "job", "b", buf, sizeof(buf)), "");

	/* The objects returned are new references to the cached ones. */
	assert_int_equal(vc_cache_by_index(c, "namespace", "ns1", &objs), 0);
	assert_int_equal(objs.count, 2);
	assert_int_equal(objs.items[0]->refcount, packed() ? 1 : 2);
	vc_objs_release(&objs);

	objs.items = (json_t **)1;
	assert_int_equal(vc_cache_by_index(c, "no-such-index", "x", &objs), VC_ENOENT);
	assert_null(objs.items);
	assert_int_equal(vc_cache_by_index(c, NULL, "x", &objs), VC_EINVAL);
	assert_int_equal(vc_cache_by_index(c, "job", NULL, &objs), VC_EINVAL);
	assert_int_equal(vc_cache_by_index(c, "job", "a", NULL), VC_EINVAL);
	vc_cache_free(c);
}

/* Several values per object, some repeated: "tags" gives one value per element of spec.tags. */
static int index_tags(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	json_t *tags = json_object_get(json_object_get(obj, "spec"), "tags"), *t;
	size_t i;
	int rc;

	(void)arg;
	json_array_foreach (tags, i, t) {
		if (!json_is_string(t))
			return VC_EINVALID; /* refuse the object */
		rc = vc_index_values_add(vals, json_string_value(t));
		if (rc)
			return rc;
	}
	return 0;
}

static void test_multi_valued_index_and_index_errors(void **state)
{
	const struct vc_cache_index idx[] = { { "tags", index_tags, NULL } };
	struct vc_cache_opts opts = { .indexes = idx, .nindexes = 1, .flags = g_flags };
	struct vc_cache *c;
	char buf[256];
	json_t *o, *bad;

	(void)state;
	assert_int_equal(vc_cache_new(&opts, &c), 0);
	o = json_pack("{s:{s:s}, s:{s:[s,s,s]}}", "metadata", "name", "x", "spec", "tags", "red",
		      "blue", "red");
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	assert_int_equal(vc_cache_index_count(c, "tags", "red"), 1);
	assert_string_equal(by_index(c, "tags", "blue", buf, sizeof(buf)), "x");
	/* An update to a value set that overlaps the old one. */
	o = json_pack("{s:{s:s}, s:{s:[s,s]}}", "metadata", "name", "x", "spec", "tags", "blue",
		      "green");
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	assert_int_equal(vc_cache_index_count(c, "tags", "red"), 0);
	assert_int_equal(vc_cache_index_count(c, "tags", "blue"), 1);
	assert_int_equal(vc_cache_index_count(c, "tags", "green"), 1);

	/* An index function's error refuses the write and changes nothing. */
	bad = json_pack("{s:{s:s}, s:{s:[s,i]}}", "metadata", "name", "x", "spec", "tags", "pink",
			7);
	assert_int_equal(vc_cache_upsert(c, bad, NULL), VC_EINVALID);
	assert_int_equal(vc_cache_replace(c, &bad, 1, NULL), VC_EINVALID);
	assert_int_equal(bad->refcount, 1);
	json_decref(bad);
	assert_int_equal(vc_cache_index_count(c, "tags", "pink"), 0);
	assert_int_equal(vc_cache_index_count(c, "tags", "green"), 1);
	assert_int_equal(vc_cache_count(c), 1);
	vc_cache_free(c);
}

static void test_new_refuses_bad_options(void **state)
{
	struct vc_cache_index idx[17];
	struct vc_cache_opts opts = { .indexes = idx };
	struct vc_cache *c = (struct vc_cache *)1;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(idx); i++)
		idx[i] = (struct vc_cache_index){ "n", vc_cache_index_by_namespace, NULL };
	opts.nindexes = 2; /* two indexes named "n" */
	assert_int_equal(vc_cache_new(&opts, &c), VC_EINVAL);
	assert_null(c);
	idx[1].name = "m";
	assert_int_equal(vc_cache_new(&opts, &c), 0);
	vc_cache_free(c);
	idx[1].fn = NULL;
	assert_int_equal(vc_cache_new(&opts, &c), VC_EINVAL);
	idx[1].fn = vc_cache_index_by_namespace;
	idx[1].name = NULL;
	assert_int_equal(vc_cache_new(&opts, &c), VC_EINVAL);
	opts.nindexes = 17;
	assert_int_equal(vc_cache_new(&opts, &c), VC_EINVAL);
	opts.indexes = NULL;
	opts.nindexes = 1;
	assert_int_equal(vc_cache_new(&opts, &c), VC_EINVAL);
	assert_int_equal(vc_cache_new(NULL, NULL), VC_EINVAL);
	/* No options: a cache without indexes. */
	assert_int_equal(vc_cache_new(NULL, &c), 0);
	assert_int_equal(vc_cache_by_index(c, "n", "x", &(struct vc_objs){ 0 }), VC_ENOENT);
	vc_cache_free(c);
}

/* ---- replace --------------------------------------------------------------------------------- */

static void test_replace_reports_changes(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_cache_deltas d = { (struct vc_cache_delta *)1, 9 };
	json_t *first[4], *second[5], *kept;
	char buf[256];
	size_t i;

	(void)state;
	first[0] = mkobj("ns", "a", "10", "j1", NULL);
	first[1] = mkobj("ns", "b", "11", "j1", NULL);
	first[2] = mkobj("ns", "c", "12", "j2", "n1");
	first[3] = mkobj("ns", "d", "13", "j2", NULL);
	/* A relist into an empty cache: four adds in list order. */
	assert_int_equal(vc_cache_replace(c, first, 4, &d), 0);
	assert_int_equal(d.count, 4);
	for (i = 0; i < 4; i++) {
		assert_null(d.items[i].old_obj);
		assert_ptr_equal(d.items[i].new_obj, first[i]);
	}
	vc_cache_deltas_release(&d);
	assert_null(d.items);
	assert_int_equal(d.count, 0);

	/*
	 * The second list: d changed, a unchanged (same resourceVersion, different object), e new,
	 * b and c vanished, and f new; the deletes come last, sorted by key.
	 */
	second[0] = mkobj("ns", "f", "20", "j3", NULL);
	second[1] = mkobj("ns", "d", "21", "j3", "n2");
	second[2] = mkobj("ns", "a", "10", "j1", NULL);
	second[3] = mkobj("ns", "e", "22", "j1", NULL);
	second[4] = mkobj("other", "a", "23", NULL, NULL);
	assert_int_equal(vc_cache_replace(c, second, 5, &d), 0);
	assert_int_equal(d.count, 6);
	assert_null(d.items[0].old_obj);
	assert_ptr_equal(d.items[0].new_obj, second[0]);
	assert_ptr_equal(d.items[1].old_obj, first[3]);
	assert_ptr_equal(d.items[1].new_obj, second[1]);
	assert_null(d.items[2].old_obj);
	assert_ptr_equal(d.items[2].new_obj, second[3]);
	assert_null(d.items[3].old_obj);
	assert_ptr_equal(d.items[3].new_obj, second[4]);
	assert_ptr_equal(d.items[4].old_obj, first[1]);
	assert_null(d.items[4].new_obj);
	assert_ptr_equal(d.items[5].old_obj, first[2]);
	assert_null(d.items[5].new_obj);
	vc_cache_deltas_release(&d);

	/* The unchanged key kept its cached object; the listed twin was not taken. */
	kept = vc_cache_get(c, "ns/a");
	assert_ptr_equal(kept, first[0]);
	json_decref(kept);
	assert_int_equal(second[2]->refcount, 1);
	assert_int_equal(vc_cache_count(c), 5);
	assert_string_equal(by_index(c, "job", "j1", buf, sizeof(buf)), "a,e");
	assert_string_equal(by_index(c, "job", "j2", buf, sizeof(buf)), "");
	assert_string_equal(by_index(c, "job", "j3", buf, sizeof(buf)), "d,f");
	assert_string_equal(by_index(c, "node", "n1", buf, sizeof(buf)), "");
	assert_string_equal(by_index(c, "node", "n2", buf, sizeof(buf)), "d");
	assert_string_equal(by_index(c, "namespace", "other", buf, sizeof(buf)), "a");
	assert_string_equal(by_index(c, "namespace", "ns", buf, sizeof(buf)), "a,d,e,f");

	/* Without `out` nothing is reported; an empty list empties the cache. */
	assert_int_equal(vc_cache_replace(c, NULL, 0, NULL), 0);
	assert_int_equal(vc_cache_count(c), 0);
	assert_int_equal(vc_cache_index_count(c, "namespace", "ns"), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(first[i]->refcount, 1);
		json_decref(first[i]);
	}
	for (i = 0; i < 5; i++) {
		assert_int_equal(second[i]->refcount, 1);
		json_decref(second[i]);
	}
	assert_int_equal(vc_cache_replace(c, NULL, 3, &d), VC_EINVAL);
	assert_int_equal(vc_cache_replace(NULL, NULL, 0, &d), VC_EINVAL);
	vc_cache_deltas_release(NULL);
	vc_cache_free(c);
}

static void test_replace_edge_cases(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_cache_deltas d;
	json_t *objs[3], *got, *bad;
	char buf[64];

	(void)state;
	/* Without resourceVersions, content decides. */
	objs[0] = mkobj(NULL, "n1", NULL, "x", NULL);
	objs[1] = mkobj(NULL, "n2", NULL, "x", NULL);
	assert_int_equal(vc_cache_replace(c, objs, 2, NULL), 0);
	json_decref(objs[0]);
	json_decref(objs[1]);
	objs[0] = mkobj(NULL, "n1", NULL, "x", NULL);
	objs[1] = mkobj(NULL, "n2", NULL, "y", NULL);
	assert_int_equal(vc_cache_replace(c, objs, 2, &d), 0);
	assert_int_equal(d.count, 1);
	assert_ptr_equal(d.items[0].new_obj, objs[1]);
	vc_cache_deltas_release(&d);
	json_decref(objs[0]);
	json_decref(objs[1]);

	/* A key listed twice: the later object wins and is reported once. */
	objs[0] = mkobj(NULL, "n3", "1", "a", NULL);
	objs[1] = mkobj(NULL, "n1", NULL, "x", NULL);
	objs[2] = mkobj(NULL, "n3", "2", "b", NULL);
	assert_int_equal(vc_cache_replace(c, objs, 3, &d), 0);
	assert_int_equal(d.count, 2);
	assert_null(d.items[0].old_obj);
	assert_ptr_equal(d.items[0].new_obj, objs[2]);
	assert_string_equal(name_of(d.items[1].old_obj), "n2");
	assert_null(d.items[1].new_obj);
	vc_cache_deltas_release(&d);
	got = vc_cache_get(c, "n3");
	assert_cached(got, objs[2]);
	json_decref(got);
	assert_string_equal(by_index(c, "job", "a", buf, sizeof(buf)), "");
	assert_string_equal(by_index(c, "job", "b", buf, sizeof(buf)), "n3");
	json_decref(objs[0]);
	json_decref(objs[1]);
	json_decref(objs[2]);

	/* An object without a name refuses the whole relist. */
	bad = json_pack("{s:{}}", "metadata");
	objs[0] = mkobj(NULL, "n9", "1", NULL, NULL);
	objs[1] = bad;
	assert_int_equal(vc_cache_replace(c, objs, 2, &d), VC_EINVAL);
	assert_null(d.items);
	assert_int_equal(d.count, 0);
	assert_int_equal(vc_cache_count(c), 2);
	assert_null(vc_cache_get(c, "n9"));
	json_decref(objs[0]);
	json_decref(bad);
	vc_cache_free(c);
}

/* ---- failure injection ----------------------------------------------------------------------- */

static const char *const probe_values[] = { "ns", "other", "j1", "j2", "j3", "n1", "n2" };

static struct vc_cache *seeded_cache(void)
{
	struct vc_cache *c = new_pod_cache();
	json_t *o;
	int i;

	for (i = 0; i < 6; i++) {
		char name[16];

		snprintf(name, sizeof(name), "p%d", i);
		o = mkobj("ns", name, "1", i % 2 ? "j1" : "j2", i < 3 ? "n1" : NULL);
		assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
		json_decref(o);
	}
	return c;
}

/* Stage objs[0..n-1] and commit, with the changes in *ch when ch is not NULL. */
static int stage_all(struct vc_cache *c, json_t **objs, size_t n, struct vc_cache_changes **ch)
{
	struct vc_cache_staging *st = NULL;
	size_t i;
	int rc;

	rc = vc_cache_stage_begin(c, &st);
	if (rc) {
		assert_null(st);
		return rc;
	}
	for (i = 0; i < n; i++) {
		rc = vc_cache_stage_add(st, objs[i]);
		if (rc) {
			assert_int_equal(vc_cache_stage_count(st), i);
			vc_cache_stage_abort(st);
			return rc;
		}
	}
	assert_int_equal(vc_cache_stage_count(st), n);
	return vc_cache_stage_commit(st, ch);
}

enum chaos_op {
	OP_UPSERT_NEW,
	OP_UPSERT_EXISTING,
	OP_DELETE,
	OP_REPLACE,
	OP_LIST,
	OP_BY_INDEX,
	OP_DELETE_OLD,
	OP_GET,
	OP_STAGE
};

static int run_op(struct vc_cache *c, enum chaos_op op, json_t **objs, size_t n)
{
	struct vc_cache_deltas d;
	struct vc_objs o;
	json_t *old = NULL;
	int rc;

	switch (op) {
	case OP_UPSERT_NEW:
	case OP_UPSERT_EXISTING:
		rc = vc_cache_upsert(c, objs[0], &old);
		json_decref(old);
		return rc;
	case OP_DELETE:
		return vc_cache_delete(c, "ns/p1", NULL);
	case OP_REPLACE:
		rc = vc_cache_replace(c, objs, n, &d);
		if (rc)
			assert_int_equal(d.count, 0);
		vc_cache_deltas_release(&d);
		return rc;
	case OP_LIST:
		rc = vc_cache_list(c, &o);
		if (!rc)
			assert_int_equal(o.count, 6);
		vc_objs_release(&o);
		return rc;
	case OP_BY_INDEX:
		rc = vc_cache_by_index(c, "job", "j1", &o);
		if (!rc)
			assert_int_equal(o.count, 3);
		vc_objs_release(&o);
		return rc;
	case OP_DELETE_OLD:
		rc = vc_cache_delete(c, "ns/p1", &old);
		if (rc)
			assert_null(old);
		else
			assert_string_equal(name_of(old), "p1");
		json_decref(old);
		return rc;
	case OP_STAGE: {
		struct vc_cache_changes *ch = NULL;
		json_t *was, *now;
		size_t i;

		rc = stage_all(c, objs, n, &ch);
		if (rc) {
			assert_null(ch);
			return rc;
		}
		/* p1 updated, x added, p5 updated, p2..p4 deleted; p0 (listed twice) unchanged. */
		vc_alloc_fail_reset();
		assert_int_equal(vc_cache_changes_count(ch), 6);
		for (i = 0; i < 6; i++) {
			assert_int_equal(vc_cache_changes_get(ch, i, &was, &now), 0);
			assert_true(i < 3 ? now != NULL : now == NULL);
			assert_true(i == 1 ? was == NULL : was != NULL);
			json_decref(was);
			json_decref(now);
		}
		vc_cache_changes_free(ch);
		return 0;
	}
	case OP_GET:
		rc = parse_warnings;
		old = vc_cache_get(c, "ns/p3");
		if (!old) {
			assert_int_equal(parse_warnings, rc + 1);
			return VC_ENOMEM;
		}
		assert_string_equal(name_of(old), "p3");
		json_decref(old);
		return 0;
	}
	return VC_EINVAL;
}

/* Fail every allocation in turn: each failure is VC_ENOMEM and leaves the cache as it was. */
static void chaos(enum chaos_op op, json_t **objs, size_t n)
{
	long budget;
	int rc;

	for (budget = 0;; budget++) {
		struct vc_cache *c = seeded_cache();
		char *before = describe(c, probe_values, VC_ARRAY_SIZE(probe_values)), *after;

		vc_alloc_fail_after(budget);
		rc = run_op(c, op, objs, n);
		vc_alloc_fail_reset();
		after = describe(c, probe_values, VC_ARRAY_SIZE(probe_values));
		if (rc == 0) {
			free(before);
			free(after);
			vc_cache_free(c);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_string_equal(before, after);
		free(before);
		free(after);
		vc_cache_free(c);
		assert_true(budget < 10000);
	}
	/* Unpacked, a delete and a get never allocate; packed ones with a result parse. */
	assert_true(budget > 0 || op == OP_DELETE ||
		    (!packed() && (op == OP_DELETE_OLD || op == OP_GET)));
}

static void test_allocation_failures(void **state)
{
	json_t *objs[5];
	size_t i;

	(void)state;
	objs[0] = mkobj("ns", "new", "5", "j3", "n2");
	chaos(OP_UPSERT_NEW, objs, 1);
	json_decref(objs[0]);
	objs[0] = mkobj("ns", "p2", "5", "j3", "n2");
	chaos(OP_UPSERT_EXISTING, objs, 1);
	json_decref(objs[0]);
	chaos(OP_DELETE, NULL, 0);
	objs[0] = mkobj("ns", "p0", "1", "j2", "n1"); /* unchanged */
	objs[1] = mkobj("ns", "p1", "7", "j3", "n2"); /* changed */
	objs[2] = mkobj("other", "x", "8", "j1", NULL);
	objs[3] = mkobj("ns", "p5", "9", "j1", NULL);
	objs[4] = mkobj("ns", "p0", "1", "j2", "n1"); /* listed twice */
	chaos(OP_REPLACE, objs, 5);
	chaos(OP_STAGE, objs, 5);
	for (i = 0; i < 5; i++)
		json_decref(objs[i]);
	chaos(OP_LIST, NULL, 0);
	chaos(OP_BY_INDEX, NULL, 0);
	chaos(OP_DELETE_OLD, NULL, 0);
	chaos(OP_GET, NULL, 0);
}

static void test_new_allocation_failures(void **state)
{
	struct vc_cache *c = (struct vc_cache *)1;

	(void)state;
	vc_alloc_fail_after(0);
	assert_int_equal(vc_cache_new(NULL, &c), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_null(c);
}

/* ---- the mutation check ---------------------------------------------------------------------- */

struct mutations {
	int count;
	char key[VC_CACHE_KEY_MAX];
};

static void record_mutation(void *ctx, const char *key)
{
	struct mutations *m = ctx;

	m->count++;
	snprintf(m->key, sizeof(m->key), "%s", key);
}

static void test_mutation_check(void **state)
{
	struct mutations m = { 0 };
	struct vc_cache_opts opts = { .indexes = pod_indexes,
				      .nindexes = VC_ARRAY_SIZE(pod_indexes),
				      .flags = VC_CACHE_CHECK_MUTATIONS,
				      .on_mutation = record_mutation,
				      .mutation_ctx = &m };
	struct vc_cache *c;
	struct vc_objs objs;
	json_t *o, *got, *list[1];

	(void)state;
	assert_int_equal(vc_cache_new(&opts, &c), 0);
	o = mkobj("ns", "a", "1", "j", NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);

	/* Reading without writing is quiet. */
	got = vc_cache_get(c, "ns/a");
	assert_int_equal(vc_cache_list(c, &objs), 0);
	vc_objs_release(&objs);
	assert_int_equal(m.count, 0);

	/* A reader that writes into its reference is caught on the next read. */
	assert_int_equal(json_object_set_new(got, "status", json_string("hacked")), 0);
	json_decref(got);
	got = vc_cache_get(c, "ns/a");
	json_decref(got);
	assert_int_equal(m.count, 1);
	assert_string_equal(m.key, "ns/a");
	assert_int_equal(vc_cache_by_index(c, "job", "j", &objs), 0);
	vc_objs_release(&objs);
	assert_int_equal(m.count, 2);

	/* ... and on a relist that replaces it, */
	list[0] = mkobj("ns", "a", "2", "j", NULL);
	assert_int_equal(vc_cache_replace(c, list, 1, NULL), 0);
	assert_int_equal(m.count, 3);
	json_decref(list[0]);

	/* ... and on an update or delete of it. */
	got = vc_cache_get(c, "ns/a");
	json_object_del(got, "kind");
	json_decref(got);
	o = mkobj("ns", "a", "3", "j", NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	assert_int_equal(m.count, 4);
	got = vc_cache_get(c, "ns/a");
	assert_int_equal(m.count, 4);
	assert_int_equal(json_object_set_new(got, "x", json_true()), 0);
	json_decref(got);
	json_decref(o);
	assert_int_equal(vc_cache_delete(c, "ns/a", NULL), 0);
	assert_int_equal(m.count, 5);

	/* An unchanged object kept across a relist keeps its snapshot. */
	o = mkobj("ns", "b", "1", NULL, NULL);
	list[0] = mkobj("ns", "b", "1", NULL, NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	assert_int_equal(vc_cache_replace(c, list, 1, NULL), 0);
	got = vc_cache_get(c, "ns/b");
	assert_ptr_equal(got, o);
	json_decref(got);
	assert_int_equal(m.count, 5);
	json_decref(o);
	json_decref(list[0]);
	vc_cache_free(c);
}

/* ---- scale and a randomized model check ------------------------------------------------------ */

static void test_fifty_thousand(void **state)
{
	struct vc_cache *c = new_pod_cache();
	enum {
		N = 50000
	};
	char name[32], node[32], job[32], key[64];
	json_t *o, *got;
	int i;

	(void)state;
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "pod-%d", i);
		snprintf(node, sizeof(node), "node-%d", i % 500);
		snprintf(job, sizeof(job), "job-%d", i / 10);
		o = mkobj(i % 2 ? "ns-odd" : "ns-even", name, "1", job, node);
		assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
		json_decref(o);
	}
	assert_int_equal(vc_cache_count(c), N);
	assert_int_equal(vc_cache_index_count(c, "namespace", "ns-odd"), N / 2);
	assert_int_equal(vc_cache_index_count(c, "node", "node-7"), N / 500);
	assert_int_equal(vc_cache_index_count(c, "job", "job-4999"), 10);
	for (i = 0; i < N; i += 997) {
		snprintf(key, sizeof(key), "%s/pod-%d", i % 2 ? "ns-odd" : "ns-even", i);
		got = vc_cache_get(c, key);
		assert_non_null(got);
		snprintf(name, sizeof(name), "pod-%d", i);
		assert_string_equal(name_of(got), name);
		json_decref(got);
	}
	for (i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "%s/pod-%d", i % 2 ? "ns-odd" : "ns-even", i);
		assert_int_equal(vc_cache_delete(c, key, NULL), 0);
	}
	assert_int_equal(vc_cache_count(c), 0);
	assert_int_equal(vc_cache_index_count(c, "namespace", "ns-odd"), 0);
	vc_cache_free(c);
}

/* xorshift64*: a fixed sequence for the model test. */
static uint64_t rng_state = 88172645463325252ULL;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ULL) >> 33) % n;
}

enum {
	MODEL_KEYS = 300
};

struct model {
	bool present[MODEL_KEYS];
	int ns[MODEL_KEYS], job[MODEL_KEYS], node[MODEL_KEYS]; /* node -1: none */
	int rv[MODEL_KEYS];
};

static json_t *model_obj(const struct model *m, int k)
{
	char ns[16], name[16], job[16], node[16], rv[16];

	snprintf(ns, sizeof(ns), "ns%d", m->ns[k]);
	snprintf(name, sizeof(name), "o%d", k);
	snprintf(job, sizeof(job), "j%d", m->job[k]);
	snprintf(node, sizeof(node), "n%d", m->node[k]);
	snprintf(rv, sizeof(rv), "%d", m->rv[k]);
	return mkobj(ns, name, rv, job, m->node[k] < 0 ? NULL : node);
}

/* Every index value holds exactly the keys the model says it should. */
static void model_verify(struct vc_cache *c, const struct model *m)
{
	static const char *const idx[] = { "namespace", "job", "node" };
	size_t total = 0, want, i;
	char value[16];
	int k, v;

	for (k = 0; k < MODEL_KEYS; k++)
		total += m->present[k];
	assert_int_equal(vc_cache_count(c), total);
	for (i = 0; i < 3; i++)
		for (v = 0; v < 8; v++) {
			snprintf(value, sizeof(value), "%s%d",
				 i == 0	  ? "ns"
				 : i == 1 ? "j"
					  : "n",
				 v);
			want = 0;
			for (k = 0; k < MODEL_KEYS; k++) {
				int have = i == 0 ? m->ns[k] : i == 1 ? m->job[k] : m->node[k];

				want += m->present[k] && have == v;
			}
			assert_int_equal(vc_cache_index_count(c, idx[i], value), want);
		}
}

static void test_random_model(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct model *m = calloc(1, sizeof(*m));
	json_t *objs[MODEL_KEYS];
	char key[32];
	int step, k, n;

	(void)state;
	assert_non_null(m);
	for (step = 0; step < 20000; step++) {
		uint32_t what = rnd(100);

		k = (int)rnd(MODEL_KEYS);
		if (what < 60) {
			/* Upsert with new field values (namespace too: a new key). */
			if (m->present[k]) {
				snprintf(key, sizeof(key), "ns%d/o%d", m->ns[k], k);
				assert_int_equal(vc_cache_delete(c, key, NULL), 0);
			}
			m->present[k] = true;
			m->ns[k] = (int)rnd(8);
			m->job[k] = (int)rnd(8);
			m->node[k] = (int)rnd(9) - 1;
			m->rv[k]++;
			objs[0] = model_obj(m, k);
			assert_int_equal(vc_cache_upsert(c, objs[0], NULL), 0);
			json_decref(objs[0]);
		} else if (what < 75) {
			/* Update in place: same key, other job and node. */
			if (!m->present[k])
				continue;
			m->job[k] = (int)rnd(8);
			m->node[k] = (int)rnd(9) - 1;
			m->rv[k]++;
			objs[0] = model_obj(m, k);
			assert_int_equal(vc_cache_upsert(c, objs[0], NULL), 0);
			json_decref(objs[0]);
		} else if (what < 95) {
			snprintf(key, sizeof(key), "ns%d/o%d", m->ns[k], k);
			assert_int_equal(vc_cache_delete(c, key, NULL),
					 m->present[k] ? 0 : VC_ENOTFOUND);
			m->present[k] = false;
		} else {
			/* A relist where about half the keys change. */
			for (n = 0, k = 0; k < MODEL_KEYS; k++) {
				if (rnd(2))
					m->present[k] = !m->present[k];
				if (!m->present[k])
					continue;
				if (rnd(2)) {
					m->job[k] = (int)rnd(8);
					m->rv[k]++;
				}
				objs[n++] = model_obj(m, k);
			}
			assert_int_equal(vc_cache_replace(c, objs, (size_t)n, NULL), 0);
			while (n > 0)
				json_decref(objs[--n]);
		}
		if (step % 500 == 0)
			model_verify(c, m);
	}
	model_verify(c, m);
	free(m);
	vc_cache_free(c);
}

/* ---- threads --------------------------------------------------------------------------------- */

struct race {
	struct vc_cache *c;
	volatile int stop;
	long reads;
};

/* Readers check that what they get is self-consistent: the name matches the key asked for. */
static void *reader(void *arg)
{
	struct race *r = arg;
	struct vc_objs objs;
	char key[32];
	json_t *o;
	size_t i;
	int k = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		snprintf(key, sizeof(key), "ns/p%d", k++ % 64);
		o = vc_cache_get(r->c, key);
		if (o) {
			if (strcmp(name_of(o), key + 3) != 0)
				abort();
			json_decref(o);
		}
		if (vc_cache_by_index(r->c, "job", "even", &objs) == 0) {
			for (i = 0; i < objs.count; i++) {
				const char *n = name_of(objs.items[i]);

				if (strtol(n + 1, NULL, 10) % 2)
					abort();
			}
			vc_objs_release(&objs);
		}
		__atomic_add_fetch(&r->reads, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_concurrent_readers_and_writer(void **state)
{
	struct race r = { .c = new_pod_cache() };
	pthread_t th[3];
	char name[16];
	json_t *o, *list[64];
	int i, k, n;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, reader, &r), 0);
	for (i = 0; i < 20000; i++) {
		k = i % 64;
		snprintf(name, sizeof(name), "p%d", k);
		if (i % 7 == 3) {
			char key[32];

			snprintf(key, sizeof(key), "ns/%s", name);
			n = vc_cache_delete(r.c, key, NULL);
			assert_true(n == 0 || n == VC_ENOTFOUND);
		} else if (i % 997 == 0) {
			for (n = 0; n < 64; n += 2) {
				snprintf(name, sizeof(name), "p%d", n);
				list[n / 2] = mkobj("ns", name, "r", "even", NULL);
			}
			assert_int_equal(vc_cache_replace(r.c, list, 32, NULL), 0);
			for (n = 0; n < 32; n++)
				json_decref(list[n]);
		} else {
			o = mkobj("ns", name, NULL, k % 2 ? "odd" : "even", NULL);
			assert_int_equal(vc_cache_upsert(r.c, o, NULL), 0);
			json_decref(o);
		}
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	assert_true(r.reads > 0);
	vc_cache_free(r.c);
}

/* ---- versions and keys (both modes) ---------------------------------------------------------- */

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_has_version_and_keys(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_cache_keys keys = { (char **)1, 5 };
	json_t *o;

	(void)state;
	assert_int_equal(vc_cache_keys(c, &keys), 0);
	assert_null(keys.items);
	assert_int_equal(keys.count, 0);
	o = mkobj("ns", "a", "7", NULL, NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	o = mkobj(NULL, "node-1", NULL, NULL, NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);
	o = mkobj("ns", "b", "", NULL, NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	json_decref(o);

	assert_true(vc_cache_has_version(c, "ns/a", "7"));
	assert_false(vc_cache_has_version(c, "ns/a", "70"));
	assert_false(vc_cache_has_version(c, "ns/a", "")); /* an empty version matches nothing */
	assert_false(vc_cache_has_version(c, "node-1", "7"));
	assert_false(vc_cache_has_version(c, "ns/b", ""));
	assert_false(vc_cache_has_version(c, "ns/zzz", "7"));
	assert_false(vc_cache_has_version(c, NULL, "7"));
	assert_false(vc_cache_has_version(c, "ns/a", NULL));
	assert_false(vc_cache_has_version(NULL, "ns/a", "7"));

	assert_int_equal(vc_cache_keys(c, &keys), 0);
	assert_int_equal(keys.count, 3);
	qsort(keys.items, keys.count, sizeof(*keys.items), cmp_cstr);
	assert_string_equal(keys.items[0], "node-1");
	assert_string_equal(keys.items[1], "ns/a");
	assert_string_equal(keys.items[2], "ns/b");
	vc_cache_keys_release(&keys);
	assert_null(keys.items);
	assert_int_equal(keys.count, 0);
	vc_cache_keys_release(NULL);

	/* One allocation: the first failure is the only one. */
	vc_alloc_fail_after(0);
	assert_int_equal(vc_cache_keys(c, &keys), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_null(keys.items);
	assert_int_equal(keys.count, 0);
	assert_int_equal(vc_cache_keys(NULL, &keys), VC_EINVAL);
	assert_int_equal(vc_cache_keys(c, NULL), VC_EINVAL);
	vc_cache_free(c);
}

/* ---- packed caches ------------------------------------------------------------------------- */

static void test_packed_reads_are_private_copies(void **state)
{
	struct vc_cache *c = new_pod_cache();
	json_t *a = mkobj("ns", "a", "1", "j", "n1"), *a2 = mkobj("ns", "a", "2", "k", NULL);
	json_t *g1, *g2, *old = (json_t *)1;
	struct vc_objs objs;

	(void)state;
	assert_true(packed());
	assert_int_equal(vc_cache_upsert(c, a, &old), 0);
	assert_null(old);
	assert_int_equal(a->refcount, 1); /* the cache keeps bytes, not a reference */
	g1 = vc_cache_get(c, "ns/a");
	g2 = vc_cache_get(c, "ns/a");
	assert_cached(g1, a);
	assert_cached(g2, a);
	assert_ptr_not_equal(g1, g2);
	/* A reader may change its copy: nobody else sees it. */
	assert_int_equal(json_object_set_new(g1, "status", json_string("mine")), 0);
	json_decref(g1);
	g1 = vc_cache_get(c, "ns/a");
	assert_true(json_equal(g1, a));
	json_decref(g1);
	json_decref(g2);

	/* Key order survives the round trip (compact, not sorted). */
	g1 = vc_cache_get(c, "ns/a");
	g2 = json_object_iter_value(json_object_iter(g1));
	assert_string_equal(json_object_iter_key(json_object_iter(g1)), "kind");
	(void)g2;
	json_decref(g1);

	assert_int_equal(vc_cache_upsert(c, a2, &old), 0);
	assert_cached(old, a);
	json_decref(old);
	assert_int_equal(vc_cache_index_count(c, "job", "j"), 0);
	assert_int_equal(vc_cache_index_count(c, "job", "k"), 1);
	assert_int_equal(vc_cache_index_count(c, "node", "n1"), 0);
	assert_int_equal(vc_cache_by_index(c, "job", "k", &objs), 0);
	assert_int_equal(objs.count, 1);
	assert_cached(objs.items[0], a2);
	vc_objs_release(&objs);

	assert_int_equal(vc_cache_delete(c, "ns/a", &old), 0);
	assert_cached(old, a2);
	json_decref(old);
	assert_int_equal(vc_cache_count(c), 0);
	assert_int_equal(vc_cache_index_count(c, "job", "k"), 0);
	assert_int_equal(vc_cache_index_count(c, "namespace", "ns"), 0);
	json_decref(a);
	json_decref(a2);
	vc_cache_free(c);
}

static void test_packed_replace(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_cache_deltas d;
	json_t *first[3], *second[3], *got;
	char buf[64];
	size_t i;

	(void)state;
	first[0] = mkobj("ns", "a", "10", "j1", NULL);
	first[1] = mkobj("ns", "b", "11", "j1", NULL);
	first[2] = mkobj(NULL, "x", NULL, "j2", NULL);
	assert_int_equal(vc_cache_replace(c, first, 3, &d), 0);
	assert_int_equal(d.count, 3);
	for (i = 0; i < 3; i++) {
		assert_null(d.items[i].old_obj);
		/* new_obj is the listed object itself, as in an unpacked cache. */
		assert_ptr_equal(d.items[i].new_obj, first[i]);
	}
	vc_cache_deltas_release(&d);

	/*
	 * a: same version, other content: unchanged, the cached bytes stay. b: gone. x: no
	 * version, same content: unchanged. y: new.
	 */
	second[0] = mkobj("ns", "a", "10", "j1", NULL);
	assert_int_equal(json_object_set_new(second[0], "status", json_string("later")), 0);
	second[1] = mkobj(NULL, "x", NULL, "j2", NULL);
	second[2] = mkobj("ns", "y", "12", "j2", NULL);
	assert_int_equal(vc_cache_replace(c, second, 3, &d), 0);
	assert_int_equal(d.count, 2);
	assert_null(d.items[0].old_obj);
	assert_ptr_equal(d.items[0].new_obj, second[2]);
	assert_cached(d.items[1].old_obj, first[1]);
	assert_null(d.items[1].new_obj);
	vc_cache_deltas_release(&d);
	got = vc_cache_get(c, "ns/a");
	assert_cached(got, first[0]);
	assert_null(json_object_get(got, "status"));
	json_decref(got);
	assert_string_equal(by_index(c, "job", "j1", buf, sizeof(buf)), "a");
	assert_string_equal(by_index(c, "job", "j2", buf, sizeof(buf)), "x,y");

	/* x without a version and with other content is an update; a with a new version too. */
	json_decref(second[0]);
	json_decref(second[1]);
	second[0] = mkobj("ns", "a", "13", "j3", NULL);
	second[1] = mkobj(NULL, "x", NULL, "j2", "n9");
	assert_int_equal(vc_cache_replace(c, second, 3, &d), 0);
	assert_int_equal(d.count, 2);
	assert_cached(d.items[0].old_obj, first[0]);
	assert_ptr_equal(d.items[0].new_obj, second[0]);
	assert_cached(d.items[1].old_obj, first[2]);
	assert_ptr_equal(d.items[1].new_obj, second[1]);
	vc_cache_deltas_release(&d);
	assert_string_equal(by_index(c, "job", "j3", buf, sizeof(buf)), "a");
	assert_string_equal(by_index(c, "node", "n9", buf, sizeof(buf)), "x");
	for (i = 0; i < 3; i++) {
		assert_int_equal(first[i]->refcount, 1);
		assert_int_equal(second[i]->refcount, 1);
		json_decref(first[i]);
		json_decref(second[i]);
	}
	vc_cache_free(c);
}

/* Every JSON type, escapes, NUL in a string, extreme numbers, deep nesting, and size. */
static void test_packed_big_object(void **state)
{
	struct vc_cache *c = new_pod_cache();
	json_t *o = mkobj("ns", "big", "1", "j", NULL), *arr, *deep, *got;
	char *blob = malloc(300001);
	int i;

	(void)state;
	assert_non_null(blob);
	for (i = 0; i < 300000; i++)
		blob[i] = (char)('a' + i % 26);
	blob[300000] = '\0';
	arr = json_array();
	for (i = 0; i < 20000; i++)
		assert_int_equal(json_array_append_new(arr, json_integer((json_int_t)i * 1000003)),
				 0);
	deep = json_string("bottom");
	for (i = 0; i < 500; i++)
		deep = json_pack("{s:o}", "d", deep);
	assert_int_equal(
		json_object_set_new(
			o, "spec",
			json_pack("{s:s, s:o, s:o, s:s, s:s%, s:I, s:I, s:f, s:f, s:b, s:b, s:n, "
				  "s:[], s:{}}",
				  "blob", blob, "numbers", arr, "deep", deep, "unicode",
				  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 \"quoted\"\\\n\t", "nul",
				  "a\0b", (size_t)3, "max", (json_int_t)INT64_MAX, "min",
				  (json_int_t)INT64_MIN, "pi", 3.141592653589793, "tiny", 5e-324,
				  "t", 1, "f", 0, "null", "empty", "obj")),
		0);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	got = vc_cache_get(c, "ns/big");
	assert_cached(got, o);
	assert_int_equal(json_string_length(json_object_get(json_object_get(got, "spec"), "nul")),
			 3);
	json_decref(got);
	free(blob);
	json_decref(o);
	vc_cache_free(c);
}

static void test_packed_ignores_mutation_check(void **state)
{
	struct mutations m = { 0 };
	struct vc_cache_opts opts = { .flags = VC_CACHE_PACKED | VC_CACHE_CHECK_MUTATIONS,
				      .on_mutation = record_mutation,
				      .mutation_ctx = &m };
	struct vc_cache *c;
	json_t *o, *got;

	(void)state;
	assert_int_equal(vc_cache_new(&opts, &c), 0);
	o = mkobj("ns", "a", "1", NULL, NULL);
	assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
	got = vc_cache_get(c, "ns/a");
	assert_int_equal(json_object_set_new(got, "status", json_string("mine")), 0);
	json_decref(got);
	got = vc_cache_get(c, "ns/a");
	assert_true(json_equal(got, o));
	json_decref(got);
	assert_int_equal(vc_cache_delete(c, "ns/a", NULL), 0);
	assert_int_equal(m.count, 0);
	json_decref(o);
	vc_cache_free(c);
}

/*
 * A slim pod as a controller caches it (managedFields stripped): 1,654 bytes of compact JSON.
 * %d is the pod's number, so every copy has its own name, uid and IP.
 */
static const char pod_json[] =
	"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"job-a-worker-%d\","
	"\"generateName\":\"job-a-worker-\",\"namespace\":\"team-ml\","
	"\"uid\":\"6f1c2a7e-%04d-4c1b-9d1e-2f5b8a9c0d1e\",\"resourceVersion\":\"%d\","
	"\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"labels\":{\"volcano.sh/job-name\":"
	"\"job-a\",\"volcano.sh/job-namespace\":\"team-ml\",\"volcano.sh/queue-name\":\"default\","
	"\"volcano.sh/task-spec\":\"worker\",\"volcano.sh/job-version\":\"0\"},"
	"\"annotations\":{\"scheduling.k8s.io/group-name\":\"job-a-7f3e\","
	"\"volcano.sh/job-name\":\"job-a\",\"volcano.sh/job-version\":\"0\","
	"\"volcano.sh/queue-name\":\"default\",\"volcano.sh/task-spec\":\"worker\","
	"\"volcano.sh/template-uid\":\"job-a-worker\"},\"ownerReferences\":[{\"apiVersion\":"
	"\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"name\":\"job-a\",\"uid\":"
	"\"0a7c2e1f-0000-4e2b-8f3c-9d1e2f3a4b5c\",\"controller\":true,\"blockOwnerDeletion\":true}]"
	"},\"spec\":{\"containers\":[{\"name\":\"worker\",\"image\":"
	"\"registry.example.com/ml/trainer:1.4.2\",\"command\":[\"python\",\"train.py\","
	"\"--epochs=10\"],\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"4Gi\"},"
	"\"requests\":{\"cpu\":\"2\",\"memory\":\"4Gi\"}},\"terminationMessagePolicy\":"
	"\"File\",\"imagePullPolicy\":"
	"\"IfNotPresent\"}],\"restartPolicy\":\"Never\",\"terminationGracePeriodSeconds\":30,"
	"\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"default\",\"nodeName\":"
	"\"node-%d\",\"schedulerName\":\"volcano\",\"priority\":0,\"enableServiceLinks\":true,"
	"\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":{\"phase\":\"Running\","
	"\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastTransitionTime\":"
	"\"2024-05-01T10:00:05Z\"},{\"type\":\"PodScheduled\",\"status\":\"True\","
	"\"lastTransitionTime\":\"2024-05-01T10:00:00Z\"}],\"hostIP\":\"10.0.0.%d\",\"podIP\":"
	"\"10.244.%d.%d\",\"startTime\":\"2024-05-01T10:00:00Z\",\"qosClass\":\"Guaranteed\"}}";

/* Heap in use now (glibc's count of allocated bytes). */
static size_t heap_used(void)
{
	return mallinfo2().uordblks;
}

/* Heap growth per object of a cache (flags) holding n copies of pod_json. */
static size_t bytes_per_pod(unsigned flags, int n)
{
	struct vc_cache_opts opts = { .indexes = pod_indexes,
				      .nindexes = VC_ARRAY_SIZE(pod_indexes),
				      .flags = flags };
	struct vc_cache *c;
	char text[2048];
	json_error_t err;
	size_t before, after;
	json_t *o;
	int i;

	assert_int_equal(vc_cache_new(&opts, &c), 0);
	before = heap_used();
	for (i = 0; i < n; i++) {
		snprintf(text, sizeof(text), pod_json, i, i, 1000 + i, i % 100, i % 250, i % 200,
			 i % 250);
		o = json_loads(text, 0, &err);
		assert_non_null(o);
		assert_int_equal(vc_cache_upsert(c, o, NULL), 0);
		json_decref(o);
	}
	after = heap_used();
	assert_int_equal(vc_cache_count(c), n);
	assert_int_equal(vc_cache_index_count(c, "job", "job-a"), n);
	vc_cache_free(c);
	return after > before ? (after - before) / (size_t)n : 0;
}

/*
 * 1,000 pods of 1.6 KB: a packed cache must grow the heap by less than two thirds of the JSON per
 * pod. Measured (gcc -O2, glibc 2.36, jansson 2.14, zlib 1.2.13, the 3 pod indexes; table slots
 * and index sets included): unpacked 13,748 bytes per pod, packed 791 (the 1,654 bytes of JSON
 * deflated with vc_cache_pack.c's dictionary, the key and version, the entry's header and index
 * values, slots); 1,991 when the JSON was kept as it is.
 */
static void test_packed_memory(void **state)
{
	char text[2048];
	size_t unpacked, packed_bytes;

	(void)state;
	snprintf(text, sizeof(text), pod_json, 0, 0, 1000, 0, 0, 0, 0);
	assert_int_equal(strlen(text), 1654);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* Sanitizers replace malloc: mallinfo2 does not see their heap. Just exercise it. */
	(void)bytes_per_pod(0, 50);
	(void)bytes_per_pod(VC_CACHE_PACKED, 50);
	(void)unpacked;
	(void)packed_bytes;
#else
	unpacked = bytes_per_pod(0, 1000);
	packed_bytes = bytes_per_pod(VC_CACHE_PACKED, 1000);
	print_message("heap per pod: unpacked %zu bytes, packed %zu bytes\n", unpacked,
		      packed_bytes);
	assert_true(packed_bytes > 300); /* the key, the version, the entry, the indexes */
	assert_true(packed_bytes < 1654 * 2 / 3);
	assert_true(unpacked > 10 * packed_bytes);
#endif
}

/* ---- staged relists -------------------------------------------------------------------------- */

/* got is what a change gives for want: unpacked, want itself; packed, a private equal parse. */
static void assert_same_obj(json_t *got, json_t *want)
{
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	if (!packed()) {
		assert_ptr_equal(got, want);
		return;
	}
	assert_ptr_not_equal(got, want);
	assert_true(json_equal(got, want));
	assert_int_equal(got->refcount, 1);
}

/* The changes are replace's deltas: the same order and the same objects. */
static void assert_changes_are_deltas(struct vc_cache_changes *ch, const struct vc_cache_deltas *d)
{
	json_t *o, *nw;
	size_t i;

	assert_int_equal(vc_cache_changes_count(ch), d->count);
	for (i = 0; i < d->count; i++) {
		assert_int_equal(vc_cache_changes_get(ch, i, &o, &nw), 0);
		assert_same_obj(o, d->items[i].old_obj);
		assert_same_obj(nw, d->items[i].new_obj);
		json_decref(o);
		json_decref(nw);
	}
}

static const char *const twin_values[] = { "ns", "other", "j1", "j2", "j3", "n1", "n2" };

/*
 * Random relists - keys listed twice, versions kept, changed or missing, contents changed under
 * one version, index values moved - applied with vc_cache_replace to one cache and staged into
 * its twin: both end up holding the same objects under the same index values, and the changes
 * are replace's deltas.
 */
static void test_stage_matches_replace(void **state)
{
	static const char *const nss[] = { "ns", "other", NULL };
	static const char *const rvs[] = { "1", "2", "3", NULL };
	static const char *const jobs[] = { "j1", "j2", "j3", NULL };
	static const char *const nodes[] = { "n1", "n2", NULL };
	struct vc_cache *a = new_pod_cache(), *b = new_pod_cache();
	struct vc_cache_changes *ch;
	struct vc_cache_deltas d;
	json_t *objs[16];
	char name[16], *da, *db;
	size_t i, n, total = 0;
	int round;

	(void)state;
	for (round = 0; round < 400; round++) {
		n = rnd(VC_ARRAY_SIZE(objs) + 1);
		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "o%u", rnd(10));
			objs[i] =
				mkobj(nss[rnd(3)], name, rvs[rnd(4)], jobs[rnd(4)], nodes[rnd(3)]);
			if (rnd(4) == 0)
				assert_int_equal(json_object_set_new(objs[i], "status",
								     json_integer(rnd(2))),
						 0);
		}
		assert_int_equal(vc_cache_replace(a, objs, n, &d), 0);
		assert_int_equal(stage_all(b, objs, n, &ch), 0);
		assert_changes_are_deltas(ch, &d);
		total += d.count;
		vc_cache_changes_free(ch);
		vc_cache_deltas_release(&d);
		da = describe(a, twin_values, VC_ARRAY_SIZE(twin_values));
		db = describe(b, twin_values, VC_ARRAY_SIZE(twin_values));
		assert_string_equal(da, db);
		free(da);
		free(db);
		for (i = 0; i < n; i++)
			json_decref(objs[i]);
	}
	assert_true(total > 400); /* the rounds did change things */
	/* Without changes asked for; an empty staging empties the cache. */
	objs[0] = mkobj("ns", "z", "1", "j1", NULL);
	assert_int_equal(stage_all(b, objs, 1, NULL), 0);
	assert_int_equal(vc_cache_count(b), 1);
	assert_int_equal(vc_cache_has_version(b, "ns/z", "1"), true);
	json_decref(objs[0]);
	assert_int_equal(stage_all(b, NULL, 0, &ch), 0);
	assert_int_equal(vc_cache_changes_count(ch), 1);
	assert_int_equal(vc_cache_count(b), 0);
	assert_int_equal(vc_cache_index_count(b, "job", "j1"), 0);
	vc_cache_changes_free(ch);
	vc_cache_free(a);
	vc_cache_free(b);
}

static void test_stage_edge_cases(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_cache_staging *st = (struct vc_cache_staging *)1;
	struct vc_cache_changes *ch = (struct vc_cache_changes *)1;
	json_t *objs[3], *bad, *o, *nw, *got;

	(void)state;
	assert_int_equal(vc_cache_stage_begin(NULL, &st), VC_EINVAL);
	assert_null(st);
	assert_int_equal(vc_cache_stage_begin(c, NULL), VC_EINVAL);
	assert_int_equal(vc_cache_stage_commit(NULL, &ch), VC_EINVAL);
	assert_null(ch);
	assert_int_equal(vc_cache_stage_count(NULL), 0);
	assert_int_equal(vc_cache_changes_count(NULL), 0);
	assert_int_equal(vc_cache_changes_drop_failed(NULL), 0);
	vc_cache_stage_abort(NULL);
	vc_cache_changes_free(NULL);

	objs[0] = mkobj("ns", "a", "1", "j1", NULL);
	objs[1] = mkobj("ns", "b", "1", "j1", NULL);
	objs[2] = mkobj("ns", "c", "1", "j2", NULL);
	assert_int_equal(vc_cache_replace(c, objs, 2, NULL), 0);

	/* A refused object is not staged; what was staged stays; an abort changes nothing. */
	assert_int_equal(vc_cache_stage_begin(c, &st), 0);
	assert_int_equal(vc_cache_stage_add(st, objs[2]), 0);
	bad = json_pack("{s:{}}", "metadata");
	assert_int_equal(vc_cache_stage_add(st, bad), VC_EINVAL);
	assert_int_equal(vc_cache_stage_add(st, NULL), VC_EINVAL);
	assert_int_equal(vc_cache_stage_add(NULL, objs[2]), VC_EINVAL);
	assert_int_equal(vc_cache_stage_count(st), 1);
	vc_cache_stage_abort(st);
	json_decref(bad);
	assert_int_equal(vc_cache_count(c), 2);
	assert_null(vc_cache_get(c, "ns/c"));

	/* Staged: c added, b gone. The cache is readable and writable between stage and commit. */
	assert_int_equal(vc_cache_stage_begin(c, &st), 0);
	assert_int_equal(vc_cache_stage_add(st, objs[0]), 0);
	assert_int_equal(vc_cache_stage_add(st, objs[2]), 0);
	got = vc_cache_get(c, "ns/b");
	assert_cached(got, objs[1]);
	json_decref(got);
	assert_int_equal(vc_cache_stage_commit(st, &ch), 0);
	assert_int_equal(vc_cache_changes_count(ch), 2);
	assert_int_equal(vc_cache_changes_get(ch, 2, &o, &nw), VC_EINVAL);
	assert_null(o);
	assert_null(nw);
	assert_int_equal(vc_cache_changes_get(ch, 0, NULL, &nw), VC_EINVAL);
	assert_int_equal(vc_cache_changes_get(NULL, 0, &o, &nw), VC_EINVAL);
	/* Asked twice, a change gives the same objects (packed: fresh parses each time). */
	assert_int_equal(vc_cache_changes_get(ch, 0, &o, &nw), 0);
	assert_null(o);
	assert_same_obj(nw, objs[2]);
	json_decref(nw);
	assert_int_equal(vc_cache_changes_get(ch, 0, &o, &nw), 0);
	assert_same_obj(nw, objs[2]);
	json_decref(nw);
	/* After another write, new objects can no longer be read; a delete's old one still can. */
	assert_int_equal(vc_cache_upsert(c, objs[1], NULL), 0);
	assert_int_equal(vc_cache_changes_get(ch, 0, &o, &nw), VC_ECONFLICT);
	assert_null(o);
	assert_null(nw);
	assert_int_equal(vc_cache_changes_get(ch, 1, &o, &nw), 0);
	assert_same_obj(o, objs[1]);
	assert_null(nw);
	json_decref(o);
	assert_int_equal(vc_cache_changes_drop_failed(ch), 0);
	vc_cache_changes_free(ch);
	assert_int_equal(vc_cache_count(c), 3);
	json_decref(objs[0]);
	json_decref(objs[1]);
	json_decref(objs[2]);
	vc_cache_free(c);
}

/*
 * Packed: a change whose parse runs out of memory is marked failed; drop_failed takes its object
 * (an add's or an update's) out of the cache again, so that the next relist reports it.
 */
static void test_stage_failed_changes_dropped(void **state)
{
	struct vc_cache *c = new_pod_cache();
	struct vc_cache_changes *ch;
	json_t *objs[3], *o, *nw;
	char buf[64];

	(void)state;
	objs[0] = mkobj("ns", "a", "1", "j1", NULL);
	objs[1] = mkobj("ns", "b", "1", "j1", NULL);
	assert_int_equal(stage_all(c, objs, 2, NULL), 0);
	json_decref(objs[0]);
	json_decref(objs[1]);
	objs[0] = mkobj("ns", "a", "2", "j2", NULL); /* an update */
	objs[1] = mkobj("ns", "c", "1", "j1", NULL); /* an add */
	objs[2] = mkobj("ns", "d", "1", "j1", NULL); /* an add; b is deleted */
	assert_int_equal(stage_all(c, objs, 3, &ch), 0);
	assert_int_equal(vc_cache_changes_count(ch), 4);
	vc_alloc_fail_after(0);
	assert_int_equal(vc_cache_changes_get(ch, 0, &o, &nw), VC_ENOMEM);
	assert_int_equal(vc_cache_changes_get(ch, 1, &o, &nw), VC_ENOMEM);
	assert_int_equal(vc_cache_changes_get(ch, 3, &o, &nw), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_null(o);
	assert_null(nw);
	/* A retry that succeeds clears the mark. */
	assert_int_equal(vc_cache_changes_get(ch, 1, &o, &nw), 0);
	assert_null(o);
	assert_same_obj(nw, objs[1]);
	json_decref(nw);
	assert_int_equal(vc_cache_changes_drop_failed(ch), 1);
	assert_string_equal(by_index(c, "job", "j1", buf, sizeof(buf)), "c,d");
	assert_string_equal(by_index(c, "job", "j2", buf, sizeof(buf)), "");
	assert_null(vc_cache_get(c, "ns/a"));
	/* The dropped change reads as the removal it now is; the others as before. */
	assert_int_equal(vc_cache_changes_get(ch, 0, &o, &nw), 0);
	assert_string_equal(rv_of(o), "1");
	assert_null(nw);
	json_decref(o);
	assert_int_equal(vc_cache_changes_get(ch, 2, &o, &nw), 0);
	assert_same_obj(nw, objs[2]);
	json_decref(nw);
	vc_cache_changes_free(ch);
	/* The next relist reports a again, as an add. */
	assert_int_equal(stage_all(c, objs, 3, &ch), 0);
	assert_int_equal(vc_cache_changes_count(ch), 1);
	assert_int_equal(vc_cache_changes_get(ch, 0, &o, &nw), 0);
	assert_null(o);
	assert_same_obj(nw, objs[0]);
	json_decref(nw);
	vc_cache_changes_free(ch);
	json_decref(objs[0]);
	json_decref(objs[1]);
	json_decref(objs[2]);
	vc_cache_free(c);
}

static int packed_group(void **state)
{
	(void)state;
	g_flags = VC_CACHE_PACKED;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_upsert_get_delete_references),
		cmocka_unit_test(test_upsert_without_name_is_refused),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_indexes_follow_writes),
		cmocka_unit_test(test_multi_valued_index_and_index_errors),
		cmocka_unit_test(test_new_refuses_bad_options),
		cmocka_unit_test(test_replace_reports_changes),
		cmocka_unit_test(test_replace_edge_cases),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_new_allocation_failures),
		cmocka_unit_test(test_mutation_check),
		cmocka_unit_test(test_fifty_thousand),
		cmocka_unit_test(test_random_model),
		cmocka_unit_test(test_concurrent_readers_and_writer),
		cmocka_unit_test(test_has_version_and_keys),
		cmocka_unit_test(test_stage_matches_replace),
		cmocka_unit_test(test_stage_edge_cases),
	};
	/* The behavioural tests again on packed caches, then what only packed caches do. */
	const struct CMUnitTest packed_tests[] = {
		cmocka_unit_test(test_upsert_without_name_is_refused),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_indexes_follow_writes),
		cmocka_unit_test(test_multi_valued_index_and_index_errors),
		cmocka_unit_test(test_replace_edge_cases),
		cmocka_unit_test(test_allocation_failures),
		cmocka_unit_test(test_fifty_thousand),
		cmocka_unit_test(test_random_model),
		cmocka_unit_test(test_concurrent_readers_and_writer),
		cmocka_unit_test(test_has_version_and_keys),
		cmocka_unit_test(test_packed_reads_are_private_copies),
		cmocka_unit_test(test_packed_replace),
		cmocka_unit_test(test_packed_big_object),
		cmocka_unit_test(test_packed_ignores_mutation_check),
		cmocka_unit_test(test_packed_memory),
		cmocka_unit_test(test_stage_matches_replace),
		cmocka_unit_test(test_stage_edge_cases),
		cmocka_unit_test(test_stage_failed_changes_dropped),
	};
	int failed;

	vc_alloc_install_json();
	vc_log_set_sink(count_log, NULL);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("packed", packed_tests, packed_group, NULL);
	return failed;
}
