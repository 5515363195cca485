/*
 * Unit tests for vc_hash: FNV-1a against the reference vectors (Go's hash/fnv gives the same),
 * and the hash map against a plain array model under random operations; sets, reserve and
 * slot-position access, including allocation failures.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_hash.h"

static void test_fnv_vectors(void **state)
{
	(void)state;
	assert_true(vc_fnv1a64("") == UINT64_C(0xcbf29ce484222325));
	assert_true(vc_fnv1a64("a") == UINT64_C(0xaf63dc4c8601ec8c));
	assert_true(vc_fnv1a64("foobar") == UINT64_C(0x85944171f73967e8));
	assert_true(vc_fnv1a32("") == UINT32_C(0x811c9dc5));
	assert_true(vc_fnv1a32("a") == UINT32_C(0xe40c292c));
	assert_true(vc_fnv1a32("foobar") == UINT32_C(0xbf9cf968));
	assert_true(vc_fnv1a64_bytes(VC_FNV64_OFFSET, "foobar", 6) == vc_fnv1a64("foobar"));
	assert_true(vc_fnv1a64_bytes(vc_fnv1a64("foo"), "bar", 3) == vc_fnv1a64("foobar"));
	/* Bytes above 0x7f hash as unsigned. */
	assert_true(vc_fnv1a64("\xff") == ((VC_FNV64_OFFSET ^ 0xff) * VC_FNV64_PRIME));
	assert_true(vc_hash_mix64(0) == 0);
	assert_true(vc_hash_mix64(1) != 1);
}

static void test_str_map(void **state)
{
	struct vc_hmap m;
	char key[32];
	void *v, *old = (void *)1;
	const void *k;
	size_t pos = 0, n = 0, i;
	int vals[3] = { 1, 2, 3 };

	(void)state;
	vc_hmap_init_str(&m);
	assert_null(vc_hmap_get(&m, "x"));
	assert_false(vc_hmap_remove(&m, "x", NULL));
	assert_false(vc_hmap_next(&m, &pos, &k, &v));
	assert_int_equal(vc_hmap_put(&m, "a", &vals[0], &old), 0);
	assert_null(old);
	snprintf(key, sizeof(key), "b");
	assert_int_equal(vc_hmap_put(&m, key, &vals[1], NULL), 0);
	key[0] = 'z'; /* the map copied it */
	assert_ptr_equal(vc_hmap_get(&m, "b"), &vals[1]);
	assert_null(vc_hmap_get(&m, "z"));
	assert_int_equal(vc_hmap_put(&m, "a", &vals[2], &old), 0);
	assert_ptr_equal(old, &vals[0]);
	assert_ptr_equal(vc_hmap_get(&m, "a"), &vals[2]);
	assert_int_equal(vc_hmap_count(&m), 2);
	/* NULL values are values. */
	assert_int_equal(vc_hmap_put(&m, "n", NULL, NULL), 0);
	assert_true(vc_hmap_lookup(&m, "n", &v));
	assert_null(v);
	pos = 0;
	while (vc_hmap_next(&m, &pos, &k, NULL))
		n++;
	assert_int_equal(n, 3);
	assert_true(vc_hmap_remove(&m, "a", &v));
	assert_ptr_equal(v, &vals[2]);
	assert_false(vc_hmap_lookup(&m, "a", NULL));
	assert_int_equal(vc_hmap_count(&m), 2);
	/* Grow and shrink. */
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(vc_hmap_put(&m, key, (void *)(uintptr_t)(i + 1), NULL), 0);
	}
	assert_int_equal(vc_hmap_count(&m), 1002);
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_ptr_equal(vc_hmap_get(&m, key), (void *)(uintptr_t)(i + 1));
		if (i % 3 == 0)
			assert_true(vc_hmap_remove(&m, key, NULL));
	}
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(vc_hmap_lookup(&m, key, NULL), i % 3 != 0);
	}
	vc_hmap_clear(&m, NULL);
	assert_int_equal(vc_hmap_count(&m), 0);
	assert_null(vc_hmap_get(&m, "b"));
	vc_hmap_release(&m, NULL);
	vc_hmap_release(&m, NULL); /* reusable */
}

/* Integer keys with a deliberately bad hash: everything collides, deletion must shift runs. */
static uint64_t bad_hash(const void *key)
{
	return (uint64_t)(*(const int *)key % 4);
}

static bool int_eq(const void *stored, const void *key)
{
	return *(const int *)stored == *(const int *)key;
}

static void test_custom_model(void **state)
{
	enum {
		N = 64
	};
	int keys[N], present[N] = { 0 };
	struct vc_hmap m;
	unsigned seed = 12345;
	size_t i, round, count = 0, pos;
	const void *k;
	void *v;

	(void)state;
	for (i = 0; i < N; i++)
		keys[i] = (int)i;
	vc_hmap_init(&m, bad_hash, int_eq);
	for (round = 0; round < 20000; round++) {
		int r;

		seed = seed * 1103515245u + 12345u;
		r = (int)((seed >> 8) % N);
		if ((seed >> 20) & 1) {
			assert_int_equal(vc_hmap_put(&m, &keys[r], &present[r], NULL), 0);
			count += !present[r];
			present[r] = 1;
		} else {
			assert_int_equal(vc_hmap_remove(&m, &keys[r], &v), present[r] != 0);
			if (present[r])
				assert_ptr_equal(v, &present[r]);
			count -= present[r] != 0;
			present[r] = 0;
		}
		assert_int_equal(vc_hmap_count(&m), count);
		for (i = 0; i < N; i++)
			assert_int_equal(vc_hmap_lookup(&m, &keys[i], NULL), present[i] != 0);
	}
	pos = 0;
	i = 0;
	while (vc_hmap_next(&m, &pos, &k, &v)) {
		assert_ptr_equal(v, &present[*(const int *)k]);
		i++;
	}
	assert_int_equal(i, count);
	vc_hmap_release(&m, NULL);
}

static void test_put_enomem(void **state)
{
	struct vc_hmap m;
	char key[16];
	long n;

	(void)state;
	for (n = 0;; n++) {
		int rc = 0, i;

		vc_hmap_init_str(&m);
		vc_alloc_fail_after(n);
		for (i = 0; i < 20 && !rc; i++) {
			snprintf(key, sizeof(key), "k%d", i);
			rc = vc_hmap_put(&m, key, NULL, NULL);
		}
		vc_alloc_fail_reset();
		if (!rc) {
			vc_hmap_release(&m, NULL);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		/* The failed put left the map as it was. */
		assert_int_equal(vc_hmap_count(&m), (size_t)(i - 1));
		assert_false(vc_hmap_lookup(&m, key, NULL));
		vc_hmap_release(&m, NULL);
	}
	assert_true(n > 0);
}

/* A set's items: their own keys (found by name), hashed like a string map's keys. */
#define ITEM_NAME 32

struct item {
	char name[ITEM_NAME];
};

static uint64_t item_hash(const void *key)
{
	return vc_hash_mix64(vc_fnv1a64(key));
}

static bool item_eq(const void *stored, const void *key)
{
	return strcmp(((const struct item *)stored)->name, key) == 0;
}

/* Name items[0..n-1] prefix0, prefix1, ... */
static void name_items(struct item *items, size_t n, const char *prefix)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(items[i].name, ITEM_NAME, "%s%zu", prefix, i);
}

static void test_set(void **state)
{
	struct item a = { "a" }, a2 = { "a" }, b = { "b" };
	struct vc_hmap m;
	const void *k;
	void *v, *old = (void *)1;
	size_t pos = 0;

	(void)state;
	vc_hmap_init_set(&m, item_hash, item_eq);
	assert_int_equal(vc_hmap_find(&m, item_hash("a"), "a"), VC_HMAP_NONE);
	assert_int_equal(vc_hmap_insert(&m, item_hash("a"), NULL, &a), 0);
	pos = vc_hmap_find(&m, item_hash("a"), "a");
	assert_int_not_equal(pos, VC_HMAP_NONE);
	assert_ptr_equal(vc_hmap_at(&m, pos), &a);
	assert_ptr_equal(vc_hmap_get(&m, "a"), &a);
	/* Replace in place by an item with the same key. */
	vc_hmap_set_at(&m, pos, &a2);
	assert_ptr_equal(vc_hmap_get(&m, "a"), &a2);
	assert_int_equal(vc_hmap_count(&m), 1);
	/* put stores the item under its key. */
	assert_int_equal(vc_hmap_put(&m, "b", &b, &old), 0);
	assert_null(old);
	assert_int_equal(vc_hmap_put(&m, "a", &a, &old), 0);
	assert_ptr_equal(old, &a2);
	/* Iteration yields each item as key and value. */
	pos = 0;
	while (vc_hmap_next(&m, &pos, &k, &v)) {
		assert_ptr_equal(k, v);
		assert_true(v == &a || v == &b);
	}
	assert_true(vc_hmap_remove(&m, "b", &v));
	assert_ptr_equal(v, &b);
	assert_int_equal(m.cap, 8);
	/* The last removal frees the table; the set stays usable. */
	vc_hmap_remove_at(&m, vc_hmap_find(&m, item_hash("a"), "a"));
	assert_int_equal(vc_hmap_count(&m), 0);
	assert_null(m.slots);
	assert_int_equal(m.cap, 0);
	assert_null(vc_hmap_get(&m, "a"));
	assert_int_equal(vc_hmap_insert(&m, item_hash("b"), NULL, &b), 0);
	assert_ptr_equal(vc_hmap_get(&m, "b"), &b);
	vc_hmap_release(&m, NULL);

	/* A map keeps its smallest table when emptied. */
	vc_hmap_init_str(&m);
	assert_int_equal(vc_hmap_insert(&m, item_hash("x"), "x", &a), 0);
	assert_ptr_equal(vc_hmap_get(&m, "x"), &a);
	vc_hmap_remove_at(&m, vc_hmap_find(&m, item_hash("x"), "x"));
	assert_int_equal(vc_hmap_count(&m), 0);
	assert_int_equal(m.cap, 8);
	assert_non_null(m.slots);
	vc_hmap_release(&m, NULL);
}

static void test_reserve(void **state)
{
	struct item items[100];
	struct vc_hmap m;
	size_t i;

	(void)state;
	vc_hmap_init_set(&m, item_hash, item_eq);
	/* Even n = 0 gets the smallest table. */
	assert_int_equal(vc_hmap_reserve(&m, 0), 0);
	assert_int_equal(m.cap, 8);
	assert_int_equal(vc_hmap_reserve(&m, 6), 0);
	assert_int_equal(m.cap, 8);
	assert_int_equal(vc_hmap_reserve(&m, 7), 0);
	assert_int_equal(m.cap, 16);
	/* Load factor 3/4: 100 entries need 256 slots. */
	assert_int_equal(vc_hmap_reserve(&m, 100), 0);
	assert_int_equal(m.cap, 256);
	/* Never shrinks. */
	assert_int_equal(vc_hmap_reserve(&m, 1), 0);
	assert_int_equal(m.cap, 256);
	/* Reserved room takes insertions without allocating. */
	name_items(items, 100, "i");
	vc_alloc_fail_after(0);
	for (i = 0; i < 100; i++)
		assert_int_equal(vc_hmap_insert(&m, item_hash(items[i].name), NULL, &items[i]), 0);
	vc_alloc_fail_reset();
	assert_int_equal(vc_hmap_count(&m), 100);
	assert_int_equal(m.cap, 256);
	for (i = 0; i < 100; i++)
		assert_ptr_equal(vc_hmap_get(&m, items[i].name), &items[i]);
	vc_hmap_release(&m, NULL);
}

/*
 * A set and a map (and a reserved set) fed the same operations by slot position hold the same
 * entries in the same iteration order: both modes share one table engine, and the cache's
 * visible list order depends on it.
 */
static void test_set_map_same_order(void **state)
{
	enum {
		N = 300
	};
	struct item items[N];
	int present[N] = { 0 };
	struct vc_hmap set, map;
	unsigned seed = 777;
	size_t round, p1, p2, ps, pm;
	const void *k;
	void *v, *vm;

	(void)state;
	name_items(items, N, "item-");
	vc_hmap_init_set(&set, item_hash, item_eq);
	vc_hmap_init_str(&map);
	for (round = 0; round < 30000; round++) {
		int r;
		uint64_t h;

		seed = seed * 1103515245u + 12345u;
		r = (int)((seed >> 8) % N);
		h = item_hash(items[r].name);
		p1 = vc_hmap_find(&set, h, items[r].name);
		p2 = vc_hmap_find(&map, h, items[r].name);
		assert_int_equal(p1, p2);
		assert_int_equal(p1 != VC_HMAP_NONE, present[r]);
		/* Phases of mostly insertions and mostly removals: growth and shrinking. */
		if (((seed >> 20) % 100) < ((round / 3000) % 2 ? 25u : 75u)) {
			if (!present[r]) {
				assert_int_equal(vc_hmap_insert(&set, h, NULL, &items[r]), 0);
				assert_int_equal(vc_hmap_insert(&map, h, items[r].name, &items[r]),
						 0);
			}
			present[r] = 1;
		} else if (present[r]) {
			vc_hmap_remove_at(&set, p1);
			vc_hmap_remove_at(&map, p2);
			present[r] = 0;
		}
		assert_int_equal(vc_hmap_count(&set), vc_hmap_count(&map));
		if (vc_hmap_count(&set))
			assert_int_equal(set.cap, map.cap);
		ps = pm = 0;
		while (vc_hmap_next(&set, &ps, &k, &v)) {
			assert_true(vc_hmap_next(&map, &pm, NULL, &vm));
			assert_ptr_equal(v, vm);
			assert_int_equal(ps, pm);
		}
		assert_false(vc_hmap_next(&map, &pm, NULL, &vm));
	}
	vc_hmap_release(&set, NULL);
	vc_hmap_release(&map, NULL);
}

static void test_insert_reserve_enomem(void **state)
{
	struct item items[20];
	struct vc_hmap m;
	long n;
	int i, rc, own;

	(void)state;
	name_items(items, 20, "k");
	for (own = 0; own < 2; own++) {
		for (n = 0;; n++) {
			rc = 0;
			if (own)
				vc_hmap_init_str(&m);
			else
				vc_hmap_init_set(&m, item_hash, item_eq);
			vc_alloc_fail_after(n);
			for (i = 0; i < 20 && !rc; i++)
				rc = vc_hmap_insert(&m, item_hash(items[i].name), items[i].name,
						    &items[i]);
			vc_alloc_fail_reset();
			if (!rc) {
				vc_hmap_release(&m, NULL);
				break;
			}
			assert_int_equal(rc, VC_ENOMEM);
			/* The failed insertion left the map as it was. */
			assert_int_equal(vc_hmap_count(&m), (size_t)(i - 1));
			assert_false(vc_hmap_lookup(&m, items[i - 1].name, NULL));
			assert_ptr_equal(vc_hmap_get(&m, items[0].name), i > 1 ? &items[0] : NULL);
			vc_hmap_release(&m, NULL);
		}
		assert_true(n > 0);
	}
	/* A failed reserve leaves the table as it was. */
	vc_hmap_init_set(&m, item_hash, item_eq);
	vc_alloc_fail_after(0);
	assert_int_equal(vc_hmap_reserve(&m, 10), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_int_equal(m.cap, 0);
	assert_null(m.slots);
	assert_int_equal(vc_hmap_insert(&m, item_hash("k0"), NULL, &items[0]), 0);
	vc_alloc_fail_after(0);
	assert_int_equal(vc_hmap_reserve(&m, 10), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_int_equal(m.cap, 8);
	assert_ptr_equal(vc_hmap_get(&m, "k0"), &items[0]);
	assert_int_equal(vc_hmap_reserve(&m, SIZE_MAX), VC_ENOMEM);
	assert_int_equal(m.cap, 8);
	vc_hmap_release(&m, NULL);
}

/* Removing by position, even when shrinking the table runs out of memory, never fails. */
static void test_remove_at_shrink_enomem(void **state)
{
	struct item items[64];
	struct vc_hmap m;
	size_t i;

	(void)state;
	vc_hmap_init_set(&m, item_hash, item_eq);
	name_items(items, 64, "r");
	for (i = 0; i < 64; i++)
		assert_int_equal(vc_hmap_insert(&m, item_hash(items[i].name), NULL, &items[i]), 0);
	assert_int_equal(m.cap, 128);
	vc_alloc_fail_after(0);
	for (i = 0; i < 60; i++)
		vc_hmap_remove_at(&m, vc_hmap_find(&m, item_hash(items[i].name), items[i].name));
	vc_alloc_fail_reset();
	assert_int_equal(m.cap, 128); /* stayed large */
	for (i = 0; i < 64; i++)
		assert_int_equal(vc_hmap_lookup(&m, items[i].name, NULL), i >= 60);
	for (; i-- > 60;)
		vc_hmap_remove_at(&m, vc_hmap_find(&m, item_hash(items[i].name), items[i].name));
	assert_null(m.slots);
	vc_hmap_release(&m, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv_vectors),
		cmocka_unit_test(test_str_map),
		cmocka_unit_test(test_custom_model),
		cmocka_unit_test(test_put_enomem),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_set_map_same_order),
		cmocka_unit_test(test_insert_reserve_enomem),
		cmocka_unit_test(test_remove_at_shrink_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
