/*
 * Unit tests for controller/job_pool: every call of a batch runs once, on the pool's threads and
 * the submitter's; the threads end once idle (their stacks, malloc caches and libcurl handles
 * were resident after a pod storm: bench/README.md, "Memory after the pod storm") and come back
 * for the next batch.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>
#include <time.h>

#include "job_internal.h"
#include "vc_alloc.h"
#include "support/threads.h"

static void nap_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000L * 1000 };

	nanosleep(&ts, NULL);
}

struct batch {
	int calls[64];
	int running, peak;
	int hold; /* each call waits until this many run at once (or 2 s pass) */
};

static void call(void *arg, size_t i)
{
	struct batch *b = arg;
	int now = __atomic_add_fetch(&b->running, 1, __ATOMIC_SEQ_CST), k;

	if (now >= b->hold)
		__atomic_store_n(&b->peak, now, __ATOMIC_SEQ_CST);
	/* Once hold calls ran at once, peak says so and nobody waits any more. */
	for (k = 0; k < 2000 && __atomic_load_n(&b->peak, __ATOMIC_SEQ_CST) < b->hold; k++)
		nap_ms(1);
	__atomic_add_fetch(&b->calls[i], 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&b->running, 1, __ATOMIC_SEQ_CST);
}

static void run_batch(struct job_pool *p, size_t n, int hold)
{
	struct batch b;
	size_t i;

	memset(&b, 0, sizeof(b));
	b.hold = hold;
	job_pool_run(p, n, call, &b);
	for (i = 0; i < n; i++)
		assert_int_equal(b.calls[i], 1);
	assert_int_equal(b.running, 0);
	if (hold > 1)
		assert_true(b.peak >= hold); /* the calls ran in parallel */
}

static void test_every_call_once(void **state)
{
	struct job_pool *p = job_pool_new(4);

	(void)state;
	assert_non_null(p);
	run_batch(p, 64, 0);
	run_batch(p, 5, 5); /* 4 threads and the submitter */
	run_batch(p, 1, 0);
	job_pool_free(p);
	/* No threads: inline. */
	p = job_pool_new(0);
	assert_non_null(p);
	run_batch(p, 10, 0);
	job_pool_free(p);
}

static void test_idle_threads_end(void **state)
{
	int before = threads_now();
	struct job_pool *p = job_pool_new(8);

	(void)state;
	assert_non_null(p);
	run_batch(p, 8, 8);
	/* Idle threads end: none is left a while after the batch. */
	assert_int_equal(threads_settle(before), before);
	/* and come back for the next batch. */
	run_batch(p, 8, 8);
	job_pool_free(p);
	assert_int_equal(threads_now(), before);
}

static void test_new_out_of_memory(void **state)
{
	int n;

	(void)state;
	for (n = 0; n < 8; n++) {
		struct job_pool *p;

		vc_alloc_fail_after(n);
		p = job_pool_new(4);
		vc_alloc_fail_reset();
		if (p) {
			run_batch(p, 16, 0);
			job_pool_free(p);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_call_once),
		cmocka_unit_test(test_idle_threads_end),
		cmocka_unit_test(test_new_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
