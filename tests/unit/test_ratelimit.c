/* Unit tests for vc_ratelimit with an injected clock: no test sleeps. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_ratelimit.h"
#include "vc_time.h"

static int64_t fake_now;

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return fake_now;
}

static int setup(void **state)
{
	(void)state;
	fake_now = 1000000000LL;
	vc_time_set_source(fake_clock, fake_clock, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	vc_time_set_source(NULL, NULL, NULL);
	return 0;
}

static void test_burst_then_rate(void **state)
{
	struct vc_bucket b;
	int i;

	(void)state;
	vc_bucket_init(&b, 10, 3); /* 10/s: one token per 100 ms */
	for (i = 0; i < 3; i++)
		assert_int_equal(vc_bucket_reserve(&b), 0);
	/* The bucket is empty: the next reservations queue up 100 ms apart. */
	assert_int_equal(vc_bucket_reserve(&b), 100000000LL);
	assert_int_equal(vc_bucket_reserve(&b), 200000000LL);
	/* 250 ms later, 2.5 tokens have come in: the debt of 2 is paid, 0.5 left over. */
	fake_now += 250000000LL;
	assert_false(vc_bucket_try(&b));
	assert_int_equal(vc_bucket_reserve(&b), 50000000LL);
	/* A long pause refills only up to the burst. */
	fake_now += 60LL * 1000000000LL;
	for (i = 0; i < 3; i++)
		assert_true(vc_bucket_try(&b));
	assert_false(vc_bucket_try(&b));
	vc_bucket_release(&b);
}

static void test_unlimited(void **state)
{
	struct vc_bucket b;
	int i;

	(void)state;
	vc_bucket_init(&b, 0, 0);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(vc_bucket_reserve(&b), 0);
		assert_true(vc_bucket_try(&b));
	}
	vc_bucket_release(&b);
}

static void test_clock_going_backwards_is_harmless(void **state)
{
	struct vc_bucket b;

	(void)state;
	vc_bucket_init(&b, 1, 1);
	assert_int_equal(vc_bucket_reserve(&b), 0);
	fake_now -= 5000000000LL;
	assert_int_equal(vc_bucket_reserve(&b), 1000000000LL);
	vc_bucket_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_burst_then_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unlimited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_going_backwards_is_harmless, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
