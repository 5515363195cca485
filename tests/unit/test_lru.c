/*
 * test_lru.c - the LRU map of vc_lru.h: get and put, replacement, eviction order, capacity and
 * allocation failure.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_lru.h"

static int freed;

static void free_val(void *val)
{
	freed++;
	vc_free(val);
}

static int *val(int v)
{
	int *p = vc_malloc(sizeof(*p));

	assert_non_null(p);
	*p = v;
	return p;
}

static int get(struct vc_lru *l, const char *key)
{
	struct vc_lru_node *n = vc_lru_find(l, key);

	return n ? *(int *)n->val : -1;
}

static int setup(void **state)
{
	(void)state;
	freed = 0;
	vc_alloc_fail_reset();
	return 0;
}

static void test_get_put_replace(void **state)
{
	struct vc_lru l;

	(void)state;
	assert_int_equal(vc_lru_init(&l, 4, free_val), 0);
	assert_null(vc_lru_find(&l, "a"));
	assert_int_equal(vc_lru_put(&l, "a", val(1)), 0);
	assert_int_equal(vc_lru_put(&l, "b", val(2)), 0);
	assert_int_equal(get(&l, "a"), 1);
	assert_int_equal(get(&l, "b"), 2);
	assert_int_equal(l.count, 2);
	/* Replacing frees the old value and keeps one entry. */
	assert_int_equal(vc_lru_put(&l, "a", val(3)), 0);
	assert_int_equal(freed, 1);
	assert_int_equal(get(&l, "a"), 3);
	assert_int_equal(l.count, 2);
	vc_lru_release(&l);
	assert_int_equal(freed, 3);
	vc_lru_release(&l); /* a released map is a no-op */
	assert_int_equal(freed, 3);
}

static void test_evict_order(void **state)
{
	struct vc_lru l;

	(void)state;
	assert_int_equal(vc_lru_init(&l, 3, free_val), 0);
	assert_int_equal(vc_lru_put(&l, "a", val(1)), 0);
	assert_int_equal(vc_lru_put(&l, "b", val(2)), 0);
	assert_int_equal(vc_lru_put(&l, "c", val(3)), 0);
	/* Finding "a" makes it the most recent: "b" is the least recent now. */
	assert_int_equal(get(&l, "a"), 1);
	assert_int_equal(vc_lru_put(&l, "d", val(4)), 0);
	assert_int_equal(freed, 1);
	assert_int_equal(l.count, 3);
	assert_int_equal(get(&l, "b"), -1);
	/* Putting an existing key makes it the most recent too: "c" goes next. */
	assert_int_equal(vc_lru_put(&l, "a", val(5)), 0);
	assert_int_equal(vc_lru_put(&l, "e", val(6)), 0);
	assert_int_equal(get(&l, "c"), -1);
	assert_int_equal(get(&l, "a"), 5);
	assert_int_equal(get(&l, "d"), 4);
	assert_int_equal(get(&l, "e"), 6);
	vc_lru_release(&l);
}

static void test_capacity(void **state)
{
	struct vc_lru l;
	char key[16];
	int i;

	(void)state;
	/* 0 counts as 1. */
	assert_int_equal(vc_lru_init(&l, 0, free_val), 0);
	assert_int_equal(vc_lru_put(&l, "a", val(1)), 0);
	assert_int_equal(vc_lru_put(&l, "b", val(2)), 0);
	assert_int_equal(l.count, 1);
	assert_int_equal(get(&l, "a"), -1);
	assert_int_equal(get(&l, "b"), 2);
	vc_lru_release(&l);
	/* More entries than the initial 16 buckets: every one stays findable. */
	assert_int_equal(vc_lru_init(&l, 100, free_val), 0);
	for (i = 0; i < 150; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(vc_lru_put(&l, key, val(i)), 0);
	}
	assert_int_equal(l.count, 100);
	for (i = 0; i < 150; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(get(&l, key), i < 50 ? -1 : i);
	}
	vc_lru_release(&l);
	assert_int_equal(freed, 2 + 150);
}

static void test_alloc_failure(void **state)
{
	struct vc_lru l;
	int *v;

	(void)state;
	vc_alloc_fail_after(0);
	assert_int_equal(vc_lru_init(&l, 2, free_val), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_int_equal(vc_lru_init(&l, 2, free_val), 0);
	assert_int_equal(vc_lru_put(&l, "a", val(1)), 0);
	assert_int_equal(vc_lru_put(&l, "b", val(2)), 0);
	/* The node with its key copy: the value stays the caller's and nothing is evicted. */
	v = val(3);
	vc_alloc_fail_after(0);
	assert_int_equal(vc_lru_put(&l, "c", v), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_int_equal(freed, 0);
	assert_int_equal(l.count, 2);
	assert_int_equal(get(&l, "a"), 1);
	assert_int_equal(get(&l, "b"), 2);
	/* Replacing allocates nothing. */
	vc_alloc_fail_after(0);
	assert_int_equal(vc_lru_put(&l, "a", v), 0);
	vc_alloc_fail_reset();
	assert_int_equal(get(&l, "a"), 3);
	vc_lru_release(&l);
	assert_int_equal(freed, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_get_put_replace, setup),
		cmocka_unit_test_setup(test_evict_order, setup),
		cmocka_unit_test_setup(test_capacity, setup),
		cmocka_unit_test_setup(test_alloc_failure, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
