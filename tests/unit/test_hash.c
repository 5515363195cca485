/*
 * Unit tests for vc_hash: FNV-1a against the reference vectors (Go's hash/fnv gives the same),
 * and the hash map against a plain array model under random operations.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv_vectors),
		cmocka_unit_test(test_str_map),
		cmocka_unit_test(test_custom_model),
		cmocka_unit_test(test_put_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
