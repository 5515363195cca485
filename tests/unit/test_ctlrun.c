/*
 * Unit tests for vc_ctlrun, the controller runtime: processing, Forget on success, rate-limited
 * requeues, max requeues and the drop, the log lines, process queues with payloads, queue order,
 * concurrent workers never holding one key at once, clean shutdown, allocation failures.
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <sched.h>

#include <setjmp.h>
#include <cmocka.h>

#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_ctlrun.h"
#include "vc_log.h"
#include "vc_time.h"

#define MS VC_NSEC_PER_MSEC
#define S  VC_NSEC_PER_SEC

/* ---- captured log lines ---------------------------------------------------------------------- */

static char lines[8][512];
static int nlines;

static void capture(void *ctx, int level, const char *line)
{
	const char *msg = strstr(line, "level=");

	(void)ctx;
	(void)level;
	if (nlines < 8)
		snprintf(lines[nlines], sizeof(lines[nlines]), "%s", msg ? msg : line);
	nlines++;
}

static void capture_start(void)
{
	nlines = 0;
	memset(lines, 0, sizeof(lines));
	vc_log_set_component("vc-test");
	vc_log_set_sink(capture, NULL);
}

static void capture_stop(void)
{
	vc_log_set_sink(NULL, NULL);
}

/* ---- a sync function with a script of results ------------------------------------------------ */

struct script {
	int results[16]; /* returned in turn; 0 once exhausted */
	int n, calls;
	char last[64];
};

static int scripted(void *ctx, const char *key, struct vc_error *err)
{
	struct script *s = ctx;
	int rc = s->calls < s->n ? s->results[s->calls] : 0;

	assert_string_equal(err->text, ""); /* cleared before each call */
	s->calls++;
	snprintf(s->last, sizeof(s->last), "%s", key);
	if (rc == VC_EINVALID)
		vc_error_set(err, rc, "bad %s", key);
	return rc;
}

static const struct vc_ctlrun_retry unlimited = {
	.max_requeue = -1,
	.key_label = "job",
	.retry_level = VC_LOG_ERROR,
	.retry_msg = "retrying",
	.requeue_level = VC_LOG_ERROR,
	.requeue_msg = "cannot requeue",
	.requeue_err_label = "error",
};

static struct vc_ctlrun *one_queue(struct script *s, const struct vc_ctlrun_retry *r,
				   struct vc_workqueue **wq)
{
	struct vc_ctlrun_queue_def def = { .workers = 1, .sync = scripted, .retry = r, .ctx = s };
	struct vc_ctlrun *rt = vc_ctlrun_new();

	assert_non_null(rt);
	assert_int_equal(vc_ctlrun_add(rt, &def, wq), 0);
	assert_non_null(*wq);
	return rt;
}

static void test_success_forgets(void **state)
{
	struct script s = { .results = { VC_EIO }, .n = 1 };
	struct vc_workqueue *wq;
	struct vc_ctlrun *rt = one_queue(&s, &unlimited, &wq);

	(void)state;
	capture_start();
	assert_int_equal(vc_ctlrun_run_once(rt), 0); /* nothing queued */
	assert_int_equal(vc_workqueue_add(wq, "ns/a"), 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_int_equal(s.calls, 1);
	assert_string_equal(s.last, "ns/a");
	assert_int_equal(vc_workqueue_num_requeues(wq, "ns/a"), 1);
	assert_int_equal(nlines, 1);
	assert_string_equal(lines[0], "level=error comp=vc-test msg=\"retrying\" job=ns/a "
				      "error=\"input/output error\"");
	/* The retry waits for its rate-limited delay (5 ms), then succeeds and forgets. */
	assert_int_equal(vc_ctlrun_run_once(rt), 0);
	fake_clock_advance(5 * MS);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_int_equal(s.calls, 2);
	assert_int_equal(vc_workqueue_num_requeues(wq, "ns/a"), 0);
	assert_int_equal(nlines, 1);
	/* Done was called: a new add is taken again. */
	assert_int_equal(vc_workqueue_add(wq, "ns/a"), 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_int_equal(s.calls, 3);
	capture_stop();
	vc_ctlrun_free(rt);
}

static void test_rate_limited_requeue(void **state)
{
	struct script s = { .results = { VC_EIO, VC_EIO, VC_EINVALID, VC_EIO }, .n = 4 };
	struct vc_workqueue *wq;
	struct vc_ctlrun *rt = one_queue(&s, &unlimited, &wq);
	int64_t delays[] = { 5 * MS, 10 * MS, 20 * MS, 40 * MS };
	int i;

	(void)state;
	capture_start();
	assert_int_equal(vc_workqueue_add(wq, "k"), 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	for (i = 0; i < 4; i++) {
		/* Exponential: not before the delay, at once after it. */
		fake_clock_advance(delays[i] - 1);
		assert_int_equal(vc_ctlrun_run_once(rt), 0);
		fake_clock_advance(1);
		assert_int_equal(vc_ctlrun_run_once(rt), 1);
	}
	assert_int_equal(s.calls, 5);
	assert_int_equal(vc_workqueue_num_requeues(wq, "k"), 0);
	assert_int_equal(nlines, 4);
	/* The sync function's message wins over the code's. */
	assert_string_equal(lines[2], "level=error comp=vc-test msg=\"retrying\" job=k "
				      "error=\"bad k\"");
	capture_stop();
	vc_ctlrun_free(rt);
}

static void test_max_requeue_drops(void **state)
{
	static const struct vc_ctlrun_retry two = {
		.max_requeue = 2,
		.key_label = "command",
		.retry_level = VC_LOG_WARN,
		.retry_msg = "will retry",
		.requeue_level = VC_LOG_ERROR,
		.requeue_msg = "cannot requeue",
		.requeue_err_label = "error",
		.drop_msg = "dropping",
	};
	struct script s = { .results = { VC_EIO, VC_EIO, VC_EIO, VC_EIO }, .n = 4 };
	struct vc_workqueue *wq;
	struct vc_ctlrun *rt = one_queue(&s, &two, &wq);

	(void)state;
	capture_start();
	assert_int_equal(vc_workqueue_add(wq, "c"), 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	fake_clock_advance(5 * MS);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	fake_clock_advance(10 * MS);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	/* Third failure after two retries: dropped and forgotten, nothing queued. */
	assert_int_equal(s.calls, 3);
	assert_int_equal(vc_workqueue_num_requeues(wq, "c"), 0);
	fake_clock_advance(1000 * S);
	assert_int_equal(vc_ctlrun_run_once(rt), 0);
	assert_int_equal(nlines, 3);
	assert_string_equal(lines[1], "level=warn comp=vc-test msg=\"will retry\" command=c "
				      "error=\"input/output error\"");
	assert_string_equal(lines[2], "level=error comp=vc-test msg=\"dropping\" command=c "
				      "error=\"input/output error\"");
	/* Added again, it starts from a fresh count. */
	assert_int_equal(vc_workqueue_add(wq, "c"), 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_int_equal(vc_workqueue_num_requeues(wq, "c"), 1);
	capture_stop();
	vc_ctlrun_free(rt);
}

static void test_should_retry_and_quiet_policy(void **state)
{
	static const struct vc_ctlrun_retry quiet = {
		.max_requeue = -1,
		.key_label = "command",
		.requeue_level = VC_LOG_WARN,
		.requeue_msg = "cannot requeue command",
		.requeue_err_label = "err",
	};
	struct script s = { .results = { VC_EIO }, .n = 1 };
	struct vc_workqueue *wq;
	struct vc_ctlrun *rt = one_queue(&s, &quiet, &wq);
	struct vc_error err;

	(void)state;
	capture_start();
	assert_true(vc_ctlrun_should_retry(wq, "x", -1));
	assert_true(vc_ctlrun_should_retry(wq, "x", 1));
	assert_false(vc_ctlrun_should_retry(wq, "x", 0));
	assert_int_equal(vc_workqueue_add(wq, "x"), 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_false(vc_ctlrun_should_retry(wq, "x", 1));
	assert_int_equal(nlines, 0); /* no retry line */
	/* After shutdown a failed requeue is silent; otherwise it is logged with its label. */
	vc_ctlrun_stop(rt);
	vc_error_clear(&err);
	vc_ctlrun_handle_err(wq, "x", VC_EIO, &err, &quiet);
	assert_int_equal(nlines, 0);
	vc_ctlrun_free(rt);
	/* A requeue that fails for memory is logged at the policy's level with its labels. */
	rt = one_queue(&s, &quiet, &wq);
	vc_alloc_fail_after(0);
	vc_ctlrun_handle_err(wq, "y", VC_EIO, &err, &quiet);
	vc_alloc_fail_reset();
	assert_int_equal(vc_workqueue_num_requeues(wq, "y"), 0);
	assert_int_equal(nlines, 1);
	assert_string_equal(lines[0], "level=warn comp=vc-test msg=\"cannot requeue command\" "
				      "command=y err=\"out of memory\"");
	capture_stop();
	vc_ctlrun_free(rt);
}

/* ---- process queues, queue order, run_pending ------------------------------------------------ */

struct seen {
	char keys[8][16];
	char payloads[8][16];
	int n;
};

static void record(void *ctx, const char *key, void *payload)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", key);
		snprintf(s->payloads[s->n], sizeof(s->payloads[0]), "%s",
			 payload ? (char *)payload : "-");
	}
	s->n++;
	vc_free(payload);
}

static void test_process_queue_and_order(void **state)
{
	struct script sc = { 0 };
	struct seen seen = { 0 };
	struct vc_workqueue_opts o;
	struct vc_ctlrun_queue_def first = { .sync = scripted, .retry = &unlimited, .ctx = &sc };
	struct vc_ctlrun_queue_def second = { .opts = &o, .process = record, .ctx = &seen };
	struct vc_workqueue *q1, *q2;
	struct vc_ctlrun *rt = vc_ctlrun_new();

	(void)state;
	vc_workqueue_opts_init(&o);
	o.payload_free = vc_free;
	assert_int_equal(vc_ctlrun_add(rt, &first, &q1), 0);
	assert_int_equal(vc_ctlrun_add(rt, &second, &q2), 0);
	assert_int_equal(vc_workqueue_add_with(q2, "p", NULL, vc_strdup("one")), 0);
	assert_int_equal(vc_workqueue_add(q2, "q"), 0);
	assert_int_equal(vc_workqueue_add(q1, "c"), 0);
	/* run_once takes the first queue first. */
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_int_equal(sc.calls, 1);
	assert_int_equal(seen.n, 0);
	assert_int_equal(vc_ctlrun_run_once(rt), 1);
	assert_int_equal(seen.n, 1);
	assert_string_equal(seen.keys[0], "p");
	assert_string_equal(seen.payloads[0], "one");
	/* run_pending ticks the clocks and drains everything, delayed keys included. */
	assert_int_equal(vc_workqueue_add_after(q1, "d", 1 * S), 0);
	assert_int_equal(vc_ctlrun_run_pending(rt), 1); /* "q" */
	assert_string_equal(seen.payloads[1], "-");
	fake_clock_advance(1 * S);
	assert_int_equal(vc_ctlrun_run_pending(rt), 1);
	assert_string_equal(sc.last, "d");
	assert_int_equal(vc_ctlrun_run_pending(rt), 0);
	/* A payload left in a queue is freed with it. */
	assert_int_equal(vc_workqueue_add_with(q2, "r", NULL, vc_strdup("left")), 0);
	vc_ctlrun_free(rt);
}

static void test_bad_definitions(void **state)
{
	struct script sc = { 0 };
	struct vc_ctlrun_queue_def none = { .workers = 1 };
	struct vc_ctlrun_queue_def both = { .sync = scripted,
					    .retry = &unlimited,
					    .process = record };
	struct vc_ctlrun_queue_def no_retry = { .sync = scripted };
	struct vc_ctlrun_queue_def ok = { .sync = scripted, .retry = &unlimited, .ctx = &sc };
	struct vc_workqueue *wq = (struct vc_workqueue *)&sc;
	struct vc_ctlrun *rt = vc_ctlrun_new();
	int i;

	(void)state;
	assert_int_equal(vc_ctlrun_add(rt, &none, &wq), VC_EINVAL);
	assert_null(wq);
	assert_int_equal(vc_ctlrun_add(rt, &both, NULL), VC_EINVAL);
	assert_int_equal(vc_ctlrun_add(rt, &no_retry, NULL), VC_EINVAL);
	assert_int_equal(vc_ctlrun_add(NULL, &ok, NULL), VC_EINVAL);
	for (i = 0; i < VC_CTLRUN_MAX_QUEUES; i++)
		assert_int_equal(vc_ctlrun_add(rt, &ok, NULL), 0);
	assert_int_equal(vc_ctlrun_add(rt, &ok, NULL), VC_EINVAL);
	assert_int_equal(vc_ctlrun_start(rt), 0);
	assert_int_equal(vc_ctlrun_threads(rt), VC_CTLRUN_MAX_QUEUES); /* workers 0 -> 1 */
	assert_int_equal(vc_ctlrun_start(rt), VC_EINVAL);
	vc_ctlrun_stop(rt);
	vc_ctlrun_stop(rt);
	assert_int_equal(vc_ctlrun_threads(rt), 0);
	vc_ctlrun_free(rt);
	vc_ctlrun_stop(NULL);
	vc_ctlrun_free(NULL);
	assert_int_equal(vc_ctlrun_threads(NULL), 0);
}

/* ---- threads -----------------------------------------------------------------------------------
 */

#define NKEYS	16
#define ROUNDS	200
#define WORKERS 4

struct stress {
	int busy[NKEYS];   /* workers inside the key now */
	int worked[NKEYS]; /* times worked */
	int overlaps;
	int failures_left; /* the first ones fail, to exercise requeues */
};

static int stress_sync(void *ctx, const char *key, struct vc_error *err)
{
	struct stress *s = ctx;
	int k = (int)strtol(key, NULL, 10), i;

	(void)err;
	if (__atomic_add_fetch(&s->busy[k], 1, __ATOMIC_SEQ_CST) != 1)
		__atomic_add_fetch(&s->overlaps, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < 3; i++)
		sched_yield();
	__atomic_add_fetch(&s->worked[k], 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&s->busy[k], 1, __ATOMIC_SEQ_CST);
	return __atomic_sub_fetch(&s->failures_left, 1, __ATOMIC_SEQ_CST) >= 0 ? VC_EIO : 0;
}

static void test_concurrent_workers(void **state)
{
	static const struct vc_ctlrun_retry quiet = { .max_requeue = 3, .key_label = "k" };
	struct stress s = { .failures_left = 20 };
	struct vc_workqueue_opts o;
	struct vc_ctlrun_queue_def def = {
		.opts = &o, .workers = WORKERS, .sync = stress_sync, .retry = &quiet, .ctx = &s
	};
	struct vc_ctlrun *rt = vc_ctlrun_new();
	struct vc_workqueue *wq;
	char key[16];
	int r, k, total = 0;

	(void)state;
	vc_workqueue_opts_init(&o);
	o.base_delay_ns = 0; /* retries at once */
	o.qps = 0;
	assert_int_equal(vc_ctlrun_add(rt, &def, &wq), 0);
	assert_int_equal(vc_ctlrun_start(rt), 0);
	assert_int_equal(vc_ctlrun_threads(rt), WORKERS);
	for (r = 0; r < ROUNDS; r++)
		for (k = 0; k < NKEYS; k++) {
			snprintf(key, sizeof(key), "%d", k);
			assert_int_equal(vc_workqueue_add(wq, key), 0);
		}
	/* Stop drains what is queued, then joins; adds afterwards are ignored. */
	vc_ctlrun_stop(rt);
	assert_int_equal(vc_workqueue_add(wq, "0"), VC_ESHUTDOWN);
	assert_int_equal(s.overlaps, 0);
	for (k = 0; k < NKEYS; k++) {
		assert_int_equal(s.busy[k], 0);
		assert_true(s.worked[k] >= 1);
		total += s.worked[k];
	}
	assert_true(total <= ROUNDS * NKEYS + 20);
	vc_ctlrun_free(rt);
}

/* A worker blocked in Get wakes at stop; a started runtime stops cleanly with nothing queued. */
static void test_clean_shutdown(void **state)
{
	struct script sc = { 0 };
	struct vc_ctlrun_queue_def def = {
		.workers = 3, .sync = scripted, .retry = &unlimited, .ctx = &sc
	};
	struct vc_ctlrun *rt = vc_ctlrun_new();
	struct vc_workqueue *wq;

	(void)state;
	assert_int_equal(vc_ctlrun_add(rt, &def, &wq), 0);
	assert_int_equal(vc_ctlrun_add(rt, &def, NULL), 0);
	assert_int_equal(vc_ctlrun_start(rt), 0);
	assert_int_equal(vc_ctlrun_threads(rt), 6);
	/* A delayed key is dropped at shutdown. */
	assert_int_equal(vc_workqueue_add_after(wq, "later", 3600 * S), 0);
	vc_ctlrun_stop(rt);
	assert_true(vc_workqueue_shutting_down(wq));
	assert_int_equal(sc.calls, 0);
	assert_int_equal(vc_ctlrun_start(rt), VC_EINVAL);
	vc_ctlrun_free(rt);
	/* Stopped before it was started: fine, and free stops again harmlessly. */
	rt = vc_ctlrun_new();
	assert_int_equal(vc_ctlrun_add(rt, &def, NULL), 0);
	vc_ctlrun_stop(rt);
	vc_ctlrun_free(rt);
}

static void test_alloc_failure(void **state)
{
	struct script sc = { .results = { VC_EIO }, .n = 1 };
	struct vc_ctlrun_queue_def def = { .sync = scripted, .retry = &unlimited, .ctx = &sc };
	long n;
	bool clean = false;

	(void)state;
	capture_start();
	for (n = 0; !clean; n++) {
		struct vc_ctlrun *rt;
		struct vc_workqueue *wq = NULL;
		int rc, rc2 = VC_ENOMEM, rs = VC_ENOMEM;

		sc.calls = 0;
		vc_alloc_fail_after(n);
		rt = vc_ctlrun_new();
		rc = rt ? vc_ctlrun_add(rt, &def, &wq) : VC_ENOMEM;
		if (!rc)
			rc2 = vc_workqueue_add(wq, "a");
		if (!rc && !rc2)
			rs = vc_ctlrun_start(rt);
		clean = vc_alloc_failures() == 0;
		vc_alloc_fail_reset();
		assert_true(rc == 0 || rc == VC_ENOMEM);
		assert_true(rc || wq);
		assert_true(rc2 == 0 || rc2 == VC_ENOMEM);
		assert_true(rs == 0 || rs == VC_ENOMEM);
		if (!rc && !rc2 && rs == VC_ENOMEM) {
			/* Nothing started: the owner may still work the queue itself, or retry. */
			assert_int_equal(vc_ctlrun_threads(rt), 0);
			assert_int_equal(vc_ctlrun_run_once(rt), 1);
			assert_int_equal(sc.calls, 1);
			assert_int_equal(vc_ctlrun_start(rt), 0);
		}
		vc_ctlrun_stop(rt);
		vc_ctlrun_free(rt);
	}
	capture_stop();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_success_forgets, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_rate_limited_requeue, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_max_requeue_drops, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_should_retry_and_quiet_policy,
						fake_clock_setup, fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_process_queue_and_order, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test(test_bad_definitions),
		cmocka_unit_test(test_concurrent_workers),
		cmocka_unit_test_setup_teardown(test_clean_shutdown, fake_clock_setup,
						fake_clock_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failure, fake_clock_setup,
						fake_clock_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
