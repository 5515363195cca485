/*
 * Unit tests for vc_workqueue: client-go's queue invariants, delayed and rate-limited adds on an
 * injected clock, shutdown and drain, payloads, allocation failures, and a threaded stress test.
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <setjmp.h>
#include <cmocka.h>

#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_time.h"
#include "vc_workqueue.h"

#define MS VC_NSEC_PER_MSEC
#define S  VC_NSEC_PER_SEC

/* Take the next ready key without blocking and check it. */
static void expect_key(struct vc_workqueue *q, const char *want)
{
	const char *key = NULL;

	assert_int_equal(vc_workqueue_try_get(q, &key, NULL), 0);
	assert_non_null(key);
	assert_string_equal(key, want);
}

static void expect_empty(struct vc_workqueue *q)
{
	const char *key = NULL;

	assert_int_equal(vc_workqueue_try_get(q, &key, NULL), -EAGAIN);
	assert_null(key);
}

static void test_fifo_order(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);

	(void)state;
	assert_non_null(q);
	assert_int_equal(vc_workqueue_add(q, "ns/a"), 0);
	assert_int_equal(vc_workqueue_add(q, "ns/b"), 0);
	assert_int_equal(vc_workqueue_add(q, "ns/c"), 0);
	assert_int_equal(vc_workqueue_len(q), 3);
	expect_key(q, "ns/a");
	expect_key(q, "ns/b");
	expect_key(q, "ns/c");
	assert_int_equal(vc_workqueue_len(q), 0);
	expect_empty(q);
	vc_workqueue_done(q, "ns/a");
	vc_workqueue_done(q, "ns/b");
	vc_workqueue_done(q, "ns/c");
	expect_empty(q);
	assert_int_equal(vc_workqueue_add(q, NULL), VC_EINVAL);
	assert_int_equal(vc_workqueue_try_get(q, NULL, NULL), VC_EINVAL);
	vc_workqueue_free(q);
}

static void test_duplicate_adds_collapse(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);

	(void)state;
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_add(q, "b"), 0);
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_len(q), 2);
	/* The key keeps the place of its first add. */
	expect_key(q, "a");
	expect_key(q, "b");
	expect_empty(q);
	vc_workqueue_done(q, "a");
	vc_workqueue_done(q, "b");
	expect_empty(q);
	vc_workqueue_free(q);
}

static void test_add_during_processing_requeues_once(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	const char *key;

	(void)state;
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_get(q, &key, NULL), 0);
	assert_string_equal(key, "a");
	/* While "a" is processed, adds mark it dirty but a second worker cannot take it. */
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_len(q), 0);
	expect_empty(q);
	/* Done puts it back exactly once. */
	vc_workqueue_done(q, key);
	assert_int_equal(vc_workqueue_len(q), 1);
	expect_key(q, "a");
	expect_empty(q);
	vc_workqueue_done(q, "a");
	expect_empty(q);
	/* Done on a key nobody holds is ignored. */
	vc_workqueue_done(q, "a");
	vc_workqueue_done(q, "never-added");
	vc_workqueue_done(q, NULL);
	expect_empty(q);
	vc_workqueue_free(q);
}

static void test_add_after_on_fake_clock(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);

	(void)state;
	assert_int_equal(vc_workqueue_add_after(q, "a", 100 * MS), 0);
	assert_int_equal(vc_workqueue_len(q), 0);
	expect_empty(q);
	fake_clock_advance(99 * MS);
	expect_empty(q);
	fake_clock_advance(1 * MS);
	assert_int_equal(vc_workqueue_len(q), 1);
	expect_key(q, "a");
	vc_workqueue_done(q, "a");
	/* A zero or negative delay is a plain add. */
	assert_int_equal(vc_workqueue_add_after(q, "b", 0), 0);
	assert_int_equal(vc_workqueue_add_after(q, "c", -5 * S), 0);
	expect_key(q, "b");
	expect_key(q, "c");
	vc_workqueue_done(q, "b");
	vc_workqueue_done(q, "c");
	expect_empty(q);
	vc_workqueue_free(q);
}

static void test_add_after_keeps_earliest(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);

	(void)state;
	/* A later time for a waiting key is ignored; an earlier one wins. */
	assert_int_equal(vc_workqueue_add_after(q, "a", 1 * S), 0);
	assert_int_equal(vc_workqueue_add_after(q, "a", 10 * S), 0);
	assert_int_equal(vc_workqueue_add_after(q, "b", 10 * S), 0);
	assert_int_equal(vc_workqueue_add_after(q, "b", 2 * S), 0);
	fake_clock_advance(1 * S);
	expect_key(q, "a");
	expect_empty(q);
	fake_clock_advance(1 * S);
	expect_key(q, "b");
	vc_workqueue_done(q, "a");
	vc_workqueue_done(q, "b");
	/* Each waited once: nothing else comes later. */
	fake_clock_advance(60 * S);
	expect_empty(q);
	vc_workqueue_free(q);
}

static void test_add_after_order(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	static const char *const want[] = { "a", "d", "b", "c", "e" };
	size_t i;

	(void)state;
	assert_int_equal(vc_workqueue_add_after(q, "c", 300 * MS), 0);
	assert_int_equal(vc_workqueue_add_after(q, "a", 100 * MS), 0);
	assert_int_equal(vc_workqueue_add_after(q, "b", 200 * MS), 0);
	/* Same ready time as "a": the earlier delayed add goes first. */
	assert_int_equal(vc_workqueue_add_after(q, "d", 100 * MS), 0);
	assert_int_equal(vc_workqueue_add_after(q, "e", 400 * MS), 0);
	fake_clock_advance(1 * S);
	for (i = 0; i < VC_ARRAY_SIZE(want); i++)
		expect_key(q, want[i]);
	expect_empty(q);
	for (i = 0; i < VC_ARRAY_SIZE(want); i++)
		vc_workqueue_done(q, want[i]);
	vc_workqueue_free(q);
}

static void test_add_after_and_add_both_happen(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);

	(void)state;
	/* As in client-go, a direct add does not cancel a waiting one. */
	assert_int_equal(vc_workqueue_add_after(q, "a", 1 * S), 0);
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	expect_key(q, "a");
	vc_workqueue_done(q, "a");
	expect_empty(q);
	fake_clock_advance(1 * S);
	expect_key(q, "a");
	vc_workqueue_done(q, "a");
	/* A waiting key that comes due while queued collapses into the queued entry. */
	assert_int_equal(vc_workqueue_add_after(q, "b", 1 * S), 0);
	assert_int_equal(vc_workqueue_add(q, "b"), 0);
	fake_clock_advance(1 * S);
	assert_int_equal(vc_workqueue_len(q), 1);
	expect_key(q, "b");
	vc_workqueue_done(q, "b");
	expect_empty(q);
	vc_workqueue_free(q);
}

static void test_rate_limited_exponential(void **state)
{
	struct vc_workqueue_opts o;
	struct vc_workqueue *q;
	static const int64_t want[] = { 1 * S, 2 * S, 4 * S, 8 * S, 10 * S, 10 * S };
	int64_t d;
	size_t i;

	(void)state;
	vc_workqueue_opts_init(&o);
	o.base_delay_ns = 1 * S;
	o.max_delay_ns = 10 * S;
	o.qps = 0;
	q = vc_workqueue_new(&o);
	assert_non_null(q);
	for (i = 0; i < VC_ARRAY_SIZE(want); i++) {
		assert_int_equal(vc_workqueue_num_requeues(q, "a"), i);
		d = -1;
		assert_int_equal(vc_workqueue_add_rate_limited(q, "a", &d), 0);
		assert_int_equal(d, want[i]);
	}
	assert_int_equal(vc_workqueue_num_requeues(q, "a"), 6);
	/* Forget resets the backoff; other keys have their own counts. */
	vc_workqueue_forget(q, "a");
	assert_int_equal(vc_workqueue_num_requeues(q, "a"), 0);
	assert_int_equal(vc_workqueue_add_rate_limited(q, "a", &d), 0);
	assert_int_equal(d, 1 * S);
	assert_int_equal(vc_workqueue_add_rate_limited(q, "b", &d), 0);
	assert_int_equal(d, 1 * S);
	/* The key waits: the first rate-limited add of this round made it due in 1 s. */
	fake_clock_advance(999 * MS);
	expect_empty(q);
	fake_clock_advance(1 * MS);
	expect_key(q, "a");
	expect_key(q, "b");
	vc_workqueue_done(q, "a");
	vc_workqueue_done(q, "b");
	assert_int_equal(vc_workqueue_num_requeues(q, "b"), 1);
	vc_workqueue_forget(q, "b");
	vc_workqueue_forget(q, "unknown");
	assert_int_equal(vc_workqueue_num_requeues(q, "unknown"), 0);
	vc_workqueue_free(q);
}

static void test_rate_limited_defaults(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	char key[32];
	int64_t d;
	int i;

	(void)state;
	/* 5 ms * 2^n reaches the 1000 s cap at n = 18. */
	for (i = 0; i < 20; i++) {
		assert_int_equal(vc_workqueue_add_rate_limited(q, "x", &d), 0);
		if (i < 18)
			assert_int_equal(d, (5 * MS) << i);
		else
			assert_int_equal(d, 1000 * S);
	}
	vc_workqueue_forget(q, "x");
	/* The bucket (10 qps, burst 100) had 80 tokens left: new keys get the 5 ms base ... */
	for (i = 0; i < 80; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		assert_int_equal(vc_workqueue_add_rate_limited(q, key, &d), 0);
		assert_int_equal(d, 5 * MS);
	}
	/* ... until it is empty, then one token per 100 ms. */
	assert_int_equal(vc_workqueue_add_rate_limited(q, "late1", &d), 0);
	assert_int_equal(d, 100 * MS);
	assert_int_equal(vc_workqueue_add_rate_limited(q, "late2", &d), 0);
	assert_int_equal(d, 200 * MS);
	vc_workqueue_free(q);
}

struct getter {
	struct vc_workqueue *q;
	int rc;
	char key[32];
};

static void *getter_main(void *arg)
{
	struct getter *g = arg;
	const char *key = NULL;

	g->rc = vc_workqueue_get(g->q, &key, NULL);
	if (g->rc == 0) {
		snprintf(g->key, sizeof(g->key), "%s", key);
		vc_workqueue_done(g->q, key);
	}
	return NULL;
}

static void test_blocked_get_wakes_on_clock(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	struct getter g = { .q = q };
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, getter_main, &g), 0);
	/* The getter may block before or after this add; both paths must deliver. */
	assert_int_equal(vc_workqueue_add_after(q, "a", 10 * S), 0);
	fake_clock_advance(10 * S - 1);
	vc_workqueue_tick(q);
	/* One nanosecond early: not ready for anyone. */
	expect_empty(q);
	fake_clock_advance(1);
	vc_workqueue_tick(q);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(g.rc, 0);
	assert_string_equal(g.key, "a");
	vc_workqueue_free(q);
}

static void test_blocked_get_wakes_on_add(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	struct getter g = { .q = q };
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, getter_main, &g), 0);
	assert_int_equal(vc_workqueue_add(q, "ns/job"), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(g.rc, 0);
	assert_string_equal(g.key, "ns/job");
	vc_workqueue_free(q);
}

static void test_shutdown_wakes_all_getters(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	struct getter g[3];
	pthread_t t[3];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		g[i] = (struct getter){ .q = q, .rc = 1 };
		assert_int_equal(pthread_create(&t[i], NULL, getter_main, &g[i]), 0);
	}
	/* A delayed key must not keep anyone waiting past shutdown. */
	assert_int_equal(vc_workqueue_add_after(q, "later", 5 * S), 0);
	assert_false(vc_workqueue_shutting_down(q));
	vc_workqueue_shutdown(q);
	assert_true(vc_workqueue_shutting_down(q));
	for (i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(g[i].rc, VC_ESHUTDOWN);
	}
	assert_int_equal(vc_workqueue_add(q, "a"), VC_ESHUTDOWN);
	assert_int_equal(vc_workqueue_add_after(q, "a", 1 * S), VC_ESHUTDOWN);
	assert_int_equal(vc_workqueue_add_rate_limited(q, "a", NULL), VC_ESHUTDOWN);
	assert_int_equal(vc_workqueue_num_requeues(q, "a"), 0);
	vc_workqueue_shutdown(q);
	vc_workqueue_free(q);
}

static void test_shutdown_drains_queue(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	const char *key;

	(void)state;
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	assert_int_equal(vc_workqueue_add(q, "b"), 0);
	assert_int_equal(vc_workqueue_add(q, "c"), 0);
	assert_int_equal(vc_workqueue_add_after(q, "delayed", 1 * S), 0);
	expect_key(q, "a");
	/* "a" is dirty again when the queue shuts down: done still requeues it. */
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	vc_workqueue_shutdown(q);
	fake_clock_advance(2 * S);
	expect_key(q, "b");
	vc_workqueue_done(q, "a");
	expect_key(q, "c");
	expect_key(q, "a");
	/* The delayed key never becomes ready after shutdown. */
	assert_int_equal(vc_workqueue_get(q, &key, NULL), VC_ESHUTDOWN);
	assert_int_equal(vc_workqueue_try_get(q, &key, NULL), VC_ESHUTDOWN);
	assert_int_equal(vc_workqueue_len(q), 0);
	vc_workqueue_done(q, "a");
	vc_workqueue_done(q, "b");
	vc_workqueue_done(q, "c");
	vc_workqueue_free(q);
}

struct drainer {
	struct vc_workqueue *q;
	int done_called;    /* set by the test thread just before done */
	int seen_at_return; /* done_called as the drainer saw it when drain returned */
};

static void *drainer_main(void *arg)
{
	struct drainer *d = arg;

	vc_workqueue_shutdown_drain(d->q);
	d->seen_at_return = __atomic_load_n(&d->done_called, __ATOMIC_SEQ_CST);
	return NULL;
}

static void test_shutdown_drain_waits_for_done(void **state)
{
	struct vc_workqueue *q = vc_workqueue_new(NULL);
	struct drainer d = { .q = q };
	pthread_t t;
	int i;

	(void)state;
	assert_int_equal(vc_workqueue_add(q, "a"), 0);
	expect_key(q, "a");
	assert_int_equal(pthread_create(&t, NULL, drainer_main, &d), 0);
	while (!vc_workqueue_shutting_down(q))
		sched_yield();
	/* Give a wrong drain every chance to return before done. */
	for (i = 0; i < 1000; i++)
		sched_yield();
	__atomic_store_n(&d.done_called, 1, __ATOMIC_SEQ_CST);
	vc_workqueue_done(q, "a");
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(d.seen_at_return, 1);
	/* With nothing in flight, drain returns at once. */
	vc_workqueue_shutdown_drain(q);
	vc_workqueue_free(q);
}

/* Payloads: a bounded list of event numbers, as the job controller keeps pending events. */
#define EVENTS_MAX 3

struct events {
	int n;
	int dropped;
	int ev[EVENTS_MAX];
};

static int payloads_live;

static struct events *events_new(int ev)
{
	struct events *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->n = 1;
	e->ev[0] = ev;
	payloads_live++;
	return e;
}

static void events_free(void *p)
{
	if (p)
		payloads_live--;
	free(p);
}

static int events_merge(void **pending, void *incoming)
{
	struct events *p = *pending, *in = incoming;
	int i;

	if (!p) {
		*pending = in;
		return 0;
	}
	for (i = 0; i < in->n; i++) {
		if (p->n < EVENTS_MAX)
			p->ev[p->n++] = in->ev[i];
		else
			p->dropped++;
	}
	events_free(in);
	return 0;
}

static int merge_fails(void **pending, void *incoming)
{
	(void)pending;
	events_free(incoming);
	return VC_EINVALID;
}

static void test_payload_coalescing(void **state)
{
	struct vc_workqueue_opts o;
	struct vc_workqueue *q;
	struct events *e;
	const char *key;
	void *p;

	(void)state;
	payloads_live = 0;
	vc_workqueue_opts_init(&o);
	o.payload_free = events_free;
	q = vc_workqueue_new(&o);
	assert_int_equal(vc_workqueue_add_with(q, "a", events_merge, events_new(1)), 0);
	assert_int_equal(vc_workqueue_add_with(q, "a", events_merge, events_new(2)), 0);
	assert_int_equal(vc_workqueue_add(q, "b"), 0);
	assert_int_equal(vc_workqueue_len(q), 2);
	assert_int_equal(vc_workqueue_try_get(q, &key, &p), 0);
	assert_string_equal(key, "a");
	e = p;
	assert_non_null(e);
	assert_int_equal(e->n, 2);
	assert_int_equal(e->ev[0], 1);
	assert_int_equal(e->ev[1], 2);
	events_free(e);
	/* While "a" is processed, new events accumulate (bounded by the merge) for the next round.
	 */
	assert_int_equal(vc_workqueue_add_with(q, "a", events_merge, events_new(3)), 0);
	assert_int_equal(vc_workqueue_add_with(q, "a", events_merge, events_new(4)), 0);
	assert_int_equal(vc_workqueue_add_with(q, "a", events_merge, events_new(5)), 0);
	assert_int_equal(vc_workqueue_add_with(q, "a", events_merge, events_new(6)), 0);
	assert_int_equal(vc_workqueue_try_get(q, &key, &p), 0);
	assert_string_equal(key, "b");
	assert_null(p);
	vc_workqueue_done(q, "b");
	vc_workqueue_done(q, "a");
	assert_int_equal(vc_workqueue_try_get(q, &key, &p), 0);
	assert_string_equal(key, "a");
	e = p;
	assert_int_equal(e->n, 3);
	assert_int_equal(e->ev[2], 5);
	assert_int_equal(e->dropped, 1);
	events_free(e);
	vc_workqueue_done(q, "a");

	/* A NULL merge replaces the pending payload; get without a payload slot frees it. */
	assert_int_equal(vc_workqueue_add_with(q, "c", NULL, events_new(7)), 0);
	assert_int_equal(vc_workqueue_add_with(q, "c", NULL, events_new(8)), 0);
	assert_int_equal(payloads_live, 1);
	assert_int_equal(vc_workqueue_try_get(q, &key, NULL), 0);
	assert_int_equal(payloads_live, 0);
	vc_workqueue_done(q, "c");

	/* A failing merge: its code comes back and the key is not added. */
	assert_int_equal(vc_workqueue_add_with(q, "d", merge_fails, events_new(9)), VC_EINVALID);
	assert_int_equal(payloads_live, 0);
	expect_empty(q);

	/* Delayed and rate-limited adds carry payloads too. */
	assert_int_equal(vc_workqueue_add_after_with(q, "e", 1 * S, events_merge, events_new(10)),
			 0);
	assert_int_equal(
		vc_workqueue_add_rate_limited_with(q, "e", NULL, events_merge, events_new(11)), 0);
	expect_empty(q);
	fake_clock_advance(1 * S);
	assert_int_equal(vc_workqueue_try_get(q, &key, &p), 0);
	e = p;
	assert_int_equal(e->n, 2);
	assert_int_equal(e->ev[0], 10);
	assert_int_equal(e->ev[1], 11);
	events_free(e);
	vc_workqueue_done(q, "e");
	vc_workqueue_forget(q, "e");

	/* Pending payloads are freed by shutdown-time adds and by vc_workqueue_free. */
	assert_int_equal(vc_workqueue_add_with(q, "f", events_merge, events_new(12)), 0);
	assert_int_equal(vc_workqueue_add_after_with(q, "g", 1 * S, events_merge, events_new(13)),
			 0);
	vc_workqueue_shutdown(q);
	assert_int_equal(vc_workqueue_add_with(q, "f", events_merge, events_new(14)), VC_ESHUTDOWN);
	assert_int_equal(vc_workqueue_add_with(q, NULL, events_merge, events_new(15)), VC_EINVAL);
	assert_int_equal(payloads_live, 2);
	vc_workqueue_free(q);
	assert_int_equal(payloads_live, 0);
}

/*
 * Every add must either succeed or fail with VC_ENOMEM and leave the queue as it was. The loop
 * replays the same script with the Nth allocation failing, and checks what a reader sees.
 */
static void test_alloc_failure(void **state)
{
	struct vc_workqueue_opts o;
	long n;
	bool clean = false;

	(void)state;
	vc_workqueue_opts_init(&o);
	o.payload_free = events_free;
	payloads_live = 0;
	for (n = 0; !clean; n++) {
		struct vc_workqueue *q;
		struct events *ev = events_new(1);
		bool ok[4], xok[100];
		const char *key;
		void *p;
		char k[16];
		int i, rc;

		vc_alloc_fail_after(n);
		q = vc_workqueue_new(&o);
		if (!q) {
			vc_alloc_fail_reset();
			events_free(ev);
			continue;
		}
		rc = vc_workqueue_add(q, "a");
		assert_true(rc == 0 || rc == VC_ENOMEM);
		ok[0] = rc == 0;
		rc = vc_workqueue_add_after(q, "b", 1 * S);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		ok[1] = rc == 0;
		rc = vc_workqueue_add_rate_limited(q, "c", NULL);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		ok[2] = rc == 0;
		rc = vc_workqueue_add_with(q, "d", events_merge, ev);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		ok[3] = rc == 0;
		/* Enough keys to grow the hash table. */
		for (i = 0; i < 100; i++) {
			snprintf(k, sizeof(k), "x%d", i);
			rc = vc_workqueue_add(q, k);
			assert_true(rc == 0 || rc == VC_ENOMEM);
			xok[i] = rc == 0;
		}
		clean = vc_alloc_failures() == 0;
		vc_alloc_fail_reset();

		/* A failed rate-limited add does not count as a requeue. */
		assert_int_equal(vc_workqueue_num_requeues(q, "c"), ok[2] ? 1 : 0);
		/* Immediate adds in order, then the delayed ones by time ("c" 5 ms, "b" 1 s). */
		fake_clock_advance(2 * S);
		if (ok[0])
			expect_key(q, "a");
		if (ok[3]) {
			assert_int_equal(vc_workqueue_try_get(q, &key, &p), 0);
			assert_string_equal(key, "d");
			assert_ptr_equal(p, ev);
			events_free(p);
		}
		for (i = 0; i < 100; i++) {
			if (xok[i]) {
				snprintf(k, sizeof(k), "x%d", i);
				expect_key(q, k);
			}
		}
		if (ok[2])
			expect_key(q, "c");
		if (ok[1])
			expect_key(q, "b");
		expect_empty(q);
		vc_workqueue_free(q);
		assert_int_equal(payloads_live, 0);
	}
	assert_true(n > 5);
}

/*
 * Stress: producers add (plainly, with payloads, with short real delays) keys while workers
 * process them. Checked: no key is ever held by two workers; every add is followed by a
 * processing that started after it; every payload is delivered exactly once.
 */
#define STRESS_KEYS	 2000
#define STRESS_PRODUCERS 4
#define STRESS_WORKERS	 4
#define STRESS_ADDS	 20000

struct stress {
	struct vc_workqueue *q;
	int inflight[STRESS_KEYS];
	uint64_t last_add[STRESS_KEYS];	  /* logical time an add started */
	uint64_t last_start[STRESS_KEYS]; /* logical time a processing started */
	uint64_t clock;
	long payload_sent;
	long payload_delivered;
	long overlaps;
	long processed;
	long add_errors;
	unsigned seed;
};

static int sum_merge(void **pending, void *incoming)
{
	long *p = *pending, *in = incoming;

	if (!p) {
		*pending = in;
		return 0;
	}
	*p += *in;
	free(in);
	return 0;
}

static void atomic_max(uint64_t *slot, uint64_t v)
{
	uint64_t cur = __atomic_load_n(slot, __ATOMIC_SEQ_CST);

	while (cur < v && !__atomic_compare_exchange_n(slot, &cur, v, false, __ATOMIC_SEQ_CST,
						       __ATOMIC_SEQ_CST))
		;
}

static void *producer_main(void *arg)
{
	struct stress *s = arg;
	unsigned seed = __atomic_add_fetch(&s->seed, 7919, __ATOMIC_SEQ_CST);
	char key[16];
	int i;

	for (i = 0; i < STRESS_ADDS; i++) {
		int k = (int)(rand_r(&seed) % STRESS_KEYS), how = (int)(rand_r(&seed) % 4), rc;
		uint64_t t = __atomic_add_fetch(&s->clock, 1, __ATOMIC_SEQ_CST);
		long *amount;

		snprintf(key, sizeof(key), "k%d", k);
		atomic_max(&s->last_add[k], t);
		switch (how) {
		case 0:
			amount = malloc(sizeof(*amount));
			assert_non_null(amount);
			*amount = 1;
			__atomic_add_fetch(&s->payload_sent, 1, __ATOMIC_SEQ_CST);
			rc = vc_workqueue_add_with(s->q, key, sum_merge, amount);
			break;
		case 1:
			rc = vc_workqueue_add_after(s->q, key, (int64_t)(rand_r(&seed) % 3) * MS);
			break;
		default:
			rc = vc_workqueue_add(s->q, key);
			break;
		}
		if (rc)
			__atomic_add_fetch(&s->add_errors, 1, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void *worker_main(void *arg)
{
	struct stress *s = arg;
	const char *key;
	void *p;

	while (vc_workqueue_get(s->q, &key, &p) == 0) {
		int k = (int)strtol(key + 1, NULL, 10);
		uint64_t t = __atomic_add_fetch(&s->clock, 1, __ATOMIC_SEQ_CST);

		if (__atomic_exchange_n(&s->inflight[k], 1, __ATOMIC_SEQ_CST))
			__atomic_add_fetch(&s->overlaps, 1, __ATOMIC_SEQ_CST);
		atomic_max(&s->last_start[k], t);
		if (p) {
			__atomic_add_fetch(&s->payload_delivered, *(long *)p, __ATOMIC_SEQ_CST);
			free(p);
		}
		__atomic_add_fetch(&s->processed, 1, __ATOMIC_SEQ_CST);
		sched_yield();
		__atomic_store_n(&s->inflight[k], 0, __ATOMIC_SEQ_CST);
		vc_workqueue_done(s->q, key);
	}
	return NULL;
}

static bool all_caught_up(struct stress *s)
{
	int k;

	for (k = 0; k < STRESS_KEYS; k++) {
		uint64_t a = __atomic_load_n(&s->last_add[k], __ATOMIC_SEQ_CST);

		if (a && __atomic_load_n(&s->last_start[k], __ATOMIC_SEQ_CST) < a)
			return false;
	}
	return true;
}

static void test_stress_invariants(void **state)
{
	static struct stress s;
	struct vc_workqueue_opts o;
	pthread_t prod[STRESS_PRODUCERS], work[STRESS_WORKERS];
	struct timespec pause = { 0, 1000000 };
	int i, waited;

	(void)state;
	/* Real clock here: delayed adds really wait a few milliseconds. */
	vc_time_set_source(NULL, NULL, NULL);
	memset(&s, 0, sizeof(s));
	vc_workqueue_opts_init(&o);
	o.payload_free = free;
	s.q = vc_workqueue_new(&o);
	assert_non_null(s.q);
	for (i = 0; i < STRESS_WORKERS; i++)
		assert_int_equal(pthread_create(&work[i], NULL, worker_main, &s), 0);
	for (i = 0; i < STRESS_PRODUCERS; i++)
		assert_int_equal(pthread_create(&prod[i], NULL, producer_main, &s), 0);
	for (i = 0; i < STRESS_PRODUCERS; i++)
		assert_int_equal(pthread_join(prod[i], NULL), 0);
	/* Every add is eventually processed: wait (10 s at most) until each key caught up. */
	for (waited = 0; !all_caught_up(&s) && waited < 10000; waited++)
		nanosleep(&pause, NULL);
	vc_workqueue_shutdown_drain(s.q);
	for (i = 0; i < STRESS_WORKERS; i++)
		assert_int_equal(pthread_join(work[i], NULL), 0);

	assert_int_equal(s.add_errors, 0);
	assert_int_equal(s.overlaps, 0);
	assert_true(all_caught_up(&s));
	assert_int_equal(s.payload_delivered, s.payload_sent);
	/* Adds collapse: never more processings than adds. */
	assert_true(s.processed > 0);
	assert_true(s.processed <= (long)STRESS_PRODUCERS * STRESS_ADDS);
	assert_int_equal(vc_workqueue_len(s.q), 0);
	vc_workqueue_free(s.q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fifo_order, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_adds_collapse, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_add_during_processing_requeues_once,
						fake_clock_setup, fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_add_after_on_fake_clock, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_add_after_keeps_earliest, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_add_after_order, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_add_after_and_add_both_happen,
						fake_clock_setup, fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited_exponential, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited_defaults, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_blocked_get_wakes_on_clock, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_blocked_get_wakes_on_add, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_shutdown_wakes_all_getters, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_shutdown_drains_queue, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_shutdown_drain_waits_for_done,
						fake_clock_setup, fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_payload_coalescing, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failure, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_stress_invariants, fake_clock_setup,
						fake_clock_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
