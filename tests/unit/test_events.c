/*
 * Unit tests for vc_events: the Event objects written, client-go's correlation (counting repeats
 * by patch, aggregating similar events, the spam filter, the LRU caches), the bounded queue,
 * retries, the sender thread, and allocation failures. The clock is injected and the queue is
 * processed in the test's thread, so nothing sleeps.
 */
#include "vc_prelude.h"

#include <malloc.h>
#include <pthread.h>

#include <setjmp.h>
#include <cmocka.h>

#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_events.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

#define S VC_NSEC_PER_SEC

/* 2023-11-14T22:13:20.123456789Z */
#define WALL0 (INT64_C(1700000000) * S + 123456789)

/* ---- the fake API server (the call recorder of support/fake_api.h) ----------------------- */

static struct fake fk;

/* vc_events creates Events without a name of its own and never wants the result. */
static int events_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			 const char *subresource, const json_t *obj, json_t **out,
			 struct vc_error *err)
{
	assert_string_equal(r->resource, "events");
	assert_null(name);
	assert_null(out);
	return fake_recorder_ops.create(ctx, r, ns, name, subresource, obj, out, err);
}

static int events_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const char *subresource, enum vc_patch_type type, const json_t *patch,
			json_t **out, struct vc_error *err)
{
	assert_string_equal(r->resource, "events");
	return fake_recorder_ops.patch(ctx, r, ns, name, subresource, type, patch, out, err);
}

static const struct vc_kube_ops events_ops = {
	.create = events_create,
	.patch = events_patch,
};

/* ---- fixtures ----------------------------------------------------------------------------- */

static struct vc_kube *kube;
static json_t *cm; /* the involved object */

static int setup(void **state)
{
	(void)state;
	fake_init(&fk);
	fake_clock_set_ns(WALL0, WALL0);
	fake_log_capture();
	kube = vc_kube_new_with_ops(&events_ops, &fk);
	assert_non_null(kube);
	cm = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:{s:s}}", "apiVersion", "v1", "kind",
		       "ConfigMap", "metadata", "name", "cm1", "namespace", "team-a", "uid",
		       "4f3c-uid", "resourceVersion", "812", "data", "k", "v");
	assert_non_null(cm);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_reset_calls(&fk);
	json_decref(cm);
	vc_kube_free(kube);
	fake_release(&fk);
	vc_time_set_source(NULL, NULL, NULL);
	vc_log_set_sink(NULL, NULL);
	return 0;
}

static struct vc_events *new_recorder(const struct vc_events_config *cfg)
{
	struct vc_events_config def = { .component = "vc-controller-manager" };
	struct vc_events *rec = NULL;
	struct vc_error err;

	assert_int_equal(vc_events_new(kube, cfg ? cfg : &def, &rec, &err), 0);
	assert_non_null(rec);
	return rec;
}

static void expect_json(const json_t *got, const char *want_text)
{
	json_error_t jerr;
	json_t *want = json_loads(want_text, 0, &jerr);
	char *g;

	assert_non_null(want);
	if (!json_equal((json_t *)got, want)) {
		g = json_dumps(got, JSON_SORT_KEYS);
		print_error("got  %s\nwant %s\n", g, want_text);
		free(g);
		json_decref(want);
		fail();
	}
	json_decref(want);
}

static const char *body_str(int i, const char *path)
{
	json_t *v = vc_json_path(fk.calls[i].body, path);

	return v ? json_string_value(v) : NULL;
}

static int64_t body_int(int i, const char *path)
{
	json_t *v = vc_json_path(fk.calls[i].body, path);

	return v ? json_integer_value(v) : -1;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_first_event_creates(void **state)
{
	struct vc_events_config cfg = { .component = "vc-controller-manager", .host = "node-7" };
	struct vc_events *rec = new_recorder(&cfg);
	struct vc_events_stats st;

	(void)state;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "ExecuteAction",
					 "Start to execute action %s ", "RestartJob"),
			 0);
	assert_int_equal(fk.ncalls, 0); /* nothing is written by the caller */
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.ncalls, 1);
	assert_int_equal(fk.calls[0].verb, 'C');
	assert_string_equal(fk.calls[0].ns, "team-a");
	/* client-go's "%v.%x" of the Unix nanoseconds. */
	assert_string_equal(fk.calls[0].name, "cm1.17979cfe3d85cd15");
	expect_json(
		fk.calls[0].body,
		"{\"apiVersion\":\"v1\",\"kind\":\"Event\","
		"\"metadata\":{\"name\":\"cm1.17979cfe3d85cd15\",\"namespace\":\"team-a\"},"
		"\"involvedObject\":{\"kind\":\"ConfigMap\",\"namespace\":\"team-a\","
		"\"name\":\"cm1\",\"uid\":\"4f3c-uid\",\"apiVersion\":\"v1\","
		"\"resourceVersion\":\"812\"},"
		"\"reason\":\"ExecuteAction\",\"message\":\"Start to execute action RestartJob \","
		"\"source\":{\"component\":\"vc-controller-manager\",\"host\":\"node-7\"},"
		"\"firstTimestamp\":\"2023-11-14T22:13:20Z\","
		"\"lastTimestamp\":\"2023-11-14T22:13:20Z\",\"count\":1,\"type\":\"Normal\","
		"\"reportingComponent\":\"vc-controller-manager\","
		"\"reportingInstance\":\"node-7\"}");
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.queued, 1);
	assert_int_equal(st.created, 1);
	assert_int_equal(st.patched + st.dropped + st.filtered + st.failed, 0);
	vc_events_free(rec);
}

static void test_repeat_patches_count(void **state)
{
	struct vc_events *rec = new_recorder(NULL);
	int i;

	(void)state;
	assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate",
					 "Error creating pods: %s", "quota"),
			 0);
	assert_int_equal(vc_events_process(rec), 1);
	for (i = 2; i <= 5; i++) {
		fake_clock_advance(5 * S);
		assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate",
						 "Error creating pods: %s", "quota"),
				 0);
		assert_int_equal(vc_events_process(rec), 1);
		assert_int_equal(fk.ncalls, i);
		assert_int_equal(fk.calls[i - 1].verb, 'P');
		assert_int_equal(fk.calls[i - 1].type, VC_PATCH_STRATEGIC);
		assert_string_equal(fk.calls[i - 1].ns, "team-a");
		/* The first occurrence's name. */
		assert_string_equal(fk.calls[i - 1].name, fk.calls[0].name);
		assert_int_equal(body_int(i - 1, "count"), i);
	}
	/* client-go's two-way strategic merge patch: count, lastTimestamp and message. */
	expect_json(fk.calls[1].body, "{\"count\":2,\"lastTimestamp\":\"2023-11-14T22:13:25Z\","
				      "\"message\":\"Error creating pods: quota\"}");
	expect_json(fk.calls[4].body, "{\"count\":5,\"lastTimestamp\":\"2023-11-14T22:13:40Z\","
				      "\"message\":\"Error creating pods: quota\"}");
	vc_events_free(rec);
}

static void test_different_message_is_a_new_event(void **state)
{
	struct vc_events *rec = new_recorder(NULL);

	(void)state;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "one"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "two"), 0);
	/* Same message, other type or other reason: other events too. */
	assert_int_equal(vc_event_record(rec, cm, "Warning", "R", "one"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "S", "one"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "one"), 0);
	assert_int_equal(vc_events_process(rec), 5);
	assert_int_equal(fk.ncalls, 5);
	assert_int_equal(fk.calls[0].verb, 'C');
	assert_int_equal(fk.calls[1].verb, 'C');
	assert_int_equal(fk.calls[2].verb, 'C');
	assert_int_equal(fk.calls[3].verb, 'C');
	assert_int_equal(fk.calls[4].verb, 'P');
	/* Names are unique even within one nanosecond of the clock. */
	assert_string_equal(fk.calls[0].name, "cm1.17979cfe3d85cd15");
	assert_string_equal(fk.calls[1].name, "cm1.17979cfe3d85cd16");
	assert_string_equal(fk.calls[2].name, "cm1.17979cfe3d85cd17");
	assert_string_equal(fk.calls[3].name, "cm1.17979cfe3d85cd18");
	assert_string_equal(fk.calls[4].name, "cm1.17979cfe3d85cd15");
	assert_string_equal(body_str(1, "message"), "two");
	assert_int_equal(body_int(4, "count"), 2);
	vc_events_free(rec);
}

static void test_cluster_scoped_and_ref(void **state)
{
	struct vc_events *rec = new_recorder(NULL);
	struct vc_object_ref ref = { .api_version = "v1",
				     .kind = "Pod",
				     .namespace = "ns1",
				     .name = "p-0",
				     .uid = "u1",
				     .field_path = "spec.containers{main}" };
	json_t *q =
		json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "scheduling.volcano.sh/v1beta1",
			  "kind", "Queue", "metadata", "name", "default", "uid", "q-uid");

	(void)state;
	assert_int_equal(vc_event_record(rec, q, "Normal", "", "opened"), 0);
	assert_int_equal(vc_event_record_ref(rec, &ref, "Warning", "BackOff", "restarting %d", 3),
			 0);
	assert_int_equal(vc_events_process(rec), 2);
	/* Cluster-scoped: the Event lives in "default", the reference has no namespace. */
	assert_string_equal(fk.calls[0].ns, "default");
	expect_json(vc_json_get_obj(fk.calls[0].body, "involvedObject"),
		    "{\"kind\":\"Queue\",\"name\":\"default\",\"uid\":\"q-uid\","
		    "\"apiVersion\":\"scheduling.volcano.sh/v1beta1\"}");
	assert_string_equal(body_str(0, "metadata.namespace"), "default");
	assert_null(body_str(0, "reason")); /* omitempty */
	assert_string_equal(body_str(0, "reportingInstance"), "");
	assert_null(vc_json_path(fk.calls[0].body, "source.host"));
	assert_string_equal(fk.calls[1].ns, "ns1");
	assert_string_equal(body_str(1, "involvedObject.fieldPath"), "spec.containers{main}");
	assert_string_equal(body_str(1, "message"), "restarting 3");
	json_decref(q);
	vc_events_free(rec);
}

static void test_patch_not_found_creates_again(void **state)
{
	struct vc_events *rec = new_recorder(NULL);

	(void)state;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "m"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	/* Someone deleted the Event (or it expired): the patch finds nothing. */
	fake_script(&fk, 1, VC_ENOTFOUND);
	fake_clock_advance(S);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "m"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.attempts, 3);
	assert_int_equal(fk.ncalls, 2);
	assert_int_equal(fk.calls[1].verb, 'C');
	assert_string_equal(fk.calls[1].name, fk.calls[0].name);
	assert_int_equal(body_int(1, "count"), 2);
	assert_string_equal(body_str(1, "firstTimestamp"), "2023-11-14T22:13:20Z");
	assert_string_equal(body_str(1, "lastTimestamp"), "2023-11-14T22:13:21Z");
	/* And counting goes on from there. */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "m"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.calls[2].verb, 'P');
	assert_int_equal(body_int(2, "count"), 3);
	vc_events_free(rec);
}

static void test_similar_events_aggregate(void **state)
{
	struct vc_events *rec = new_recorder(NULL);
	char agg_name[128];
	int i;

	(void)state;
	for (i = 1; i <= 9; i++)
		assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate", "pod %d", i),
				 0);
	assert_int_equal(vc_events_process(rec), 9);
	assert_int_equal(fk.ncalls, 9);
	for (i = 0; i < 9; i++)
		assert_int_equal(fk.calls[i].verb, 'C');

	/* The tenth distinct message within 10 minutes: an aggregate Event. */
	fake_clock_advance(60 * S);
	assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate", "pod 10"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.ncalls, 10);
	assert_int_equal(fk.calls[9].verb, 'C');
	assert_string_equal(body_str(9, "message"), "(combined from similar events): pod 10");
	assert_int_equal(body_int(9, "count"), 1);
	assert_string_equal(body_str(9, "reason"), "FailedCreate");
	assert_string_equal(body_str(9, "type"), "Warning");
	assert_string_equal(body_str(9, "firstTimestamp"), "2023-11-14T22:14:20Z");
	snprintf(agg_name, sizeof(agg_name), "%s", fk.calls[9].name);
	assert_true(strncmp(agg_name, "cm1.", 4) == 0);

	/* Further new messages count on the aggregate. */
	fake_clock_advance(S);
	assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate", "pod 11"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.calls[10].verb, 'P');
	assert_string_equal(fk.calls[10].name, agg_name);
	expect_json(fk.calls[10].body, "{\"count\":2,\"lastTimestamp\":\"2023-11-14T22:14:21Z\","
				       "\"message\":\"(combined from similar events): pod 11\"}");

	/* A message among the ones remembered is still counted on its own Event. */
	assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate", "pod 3"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.calls[11].verb, 'P');
	assert_string_equal(fk.calls[11].name, fk.calls[2].name);
	assert_int_equal(body_int(11, "count"), 2);

	/* Another reason is another group. */
	assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedDelete", "pod 12"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.calls[12].verb, 'C');
	assert_string_equal(body_str(12, "message"), "pod 12");

	/* More than 10 minutes after the last similar event, the group starts afresh. */
	fake_clock_advance(600 * S + 1);
	assert_int_equal(vc_event_record(rec, cm, "Warning", "FailedCreate", "pod 13"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.calls[13].verb, 'C');
	assert_string_equal(body_str(13, "message"), "pod 13");
	vc_events_free(rec);
}

static void test_spam_filter(void **state)
{
	struct vc_events *rec;
	struct vc_events_stats st;
	json_t *other;
	int i;

	(void)state;
	/* 25 events about one object go through (distinct reasons: no aggregation). */
	rec = new_recorder(NULL);
	for (i = 0; i < 26; i++) {
		char reason[16];

		snprintf(reason, sizeof(reason), "R%d", i);
		assert_int_equal(vc_event_record(rec, cm, "Normal", reason, "m"), 0);
	}
	assert_int_equal(vc_events_process(rec), 26);
	assert_int_equal(fk.ncalls, 25);
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.filtered, 1);
	assert_int_equal(st.created, 25);

	/* Repeats count against the same bucket (client-go filters after counting). */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R0", "m"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.ncalls, 25);

	/* Another object has its own bucket. */
	other = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
			  "metadata", "name", "cm2", "namespace", "team-a");
	assert_int_equal(vc_event_record(rec, other, "Normal", "R0", "m"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.ncalls, 26);
	json_decref(other);

	/* One token comes back every 5 minutes. */
	fake_clock_advance(299 * S);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R99", "m"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.ncalls, 26);
	fake_clock_advance(2 * S);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R98", "m"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R97", "m"), 0);
	assert_int_equal(vc_events_process(rec), 2);
	assert_int_equal(fk.ncalls, 27);
	assert_string_equal(body_str(26, "reason"), "R98");
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.filtered, 4);
	vc_events_free(rec);
}

static void test_queue_full_drops_without_blocking(void **state)
{
	struct vc_events_config cfg = { .component = "vc-scheduler", .queue_len = 3 };
	struct vc_events *rec = new_recorder(&cfg);
	struct vc_events_stats st;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "m%d", i), 0);
	/* No sender is running: the fourth cannot wait, it is dropped at once. */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "m3"), -EAGAIN);
	assert_non_null(strstr(fake_last_error,
			       "unable to record event: too many queued events, dropped event"));
	assert_non_null(strstr(fake_last_error, "ConfigMap=team-a/cm1"));
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.queued, 3);
	assert_int_equal(st.dropped, 1);
	assert_int_equal(vc_events_process(rec), 3);
	assert_int_equal(fk.ncalls, 3);
	assert_string_equal(body_str(2, "message"), "m2");
	/* Room again. */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "m4"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	vc_events_free(rec);
}

static void test_bad_input(void **state)
{
	struct vc_events *rec = new_recorder(NULL);
	struct vc_events_config cfg = { 0 };
	struct vc_object_ref ref = { .kind = "Pod" };
	struct vc_events *none = NULL;
	struct vc_error err;
	json_t *nokind = json_pack("{s:{s:s}}", "metadata", "name", "x");

	(void)state;
	assert_int_equal(vc_event_record(rec, cm, "Info", "R", "m"), VC_EINVAL);
	assert_non_null(strstr(fake_last_error, "unsupported event type"));
	assert_int_equal(vc_event_record(rec, cm, NULL, "R", "m"), VC_EINVAL);
	assert_int_equal(vc_event_record(rec, nokind, "Normal", "R", "m"), VC_EINVAL);
	assert_non_null(strstr(fake_last_error, "could not construct reference"));
	assert_int_equal(vc_event_record_ref(rec, &ref, "Normal", "R", "m"), VC_EINVAL);
	assert_int_equal(vc_event_record(rec, NULL, "Normal", "R", "m"), VC_EINVAL);
	assert_int_equal(vc_event_record(NULL, cm, "Normal", "R", "m"), VC_EINVAL);
	assert_int_equal(vc_events_process(rec), 0);

	assert_int_equal(vc_events_new(kube, &cfg, &none, &err), VC_EINVAL);
	assert_string_equal(err.text, "the event recorder needs a source component");
	assert_null(none);
	cfg.component = "c";
	cfg.spam_burst = -1;
	assert_int_equal(vc_events_new(kube, &cfg, &none, &err), VC_EINVAL);
	assert_int_equal(vc_events_new(NULL, &cfg, &none, &err), VC_EINVAL);
	assert_int_equal(vc_events_new(kube, &cfg, NULL, &err), VC_EINVAL);

	/* After stop, records are refused. */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "queued"), 0);
	vc_events_stop(rec, 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "late"), VC_ESHUTDOWN);
	assert_int_equal(vc_events_start(rec), VC_EINVAL);
	assert_int_equal(fk.ncalls, 0);
	json_decref(nokind);
	vc_events_free(rec);
	vc_events_free(NULL);
}

static void test_retries(void **state)
{
	struct vc_events_config cfg = {
		.component = "c", .max_tries = 3, .retry_sleep_ns = 1000 /* 1 us */
	};
	struct vc_events *rec = new_recorder(&cfg);
	struct vc_events_stats st;

	(void)state;
	/* Transport failures are retried... */
	fake_script(&fk, 2, VC_EIO, VC_ETIMEDOUT);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "a"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.attempts, 3);
	assert_int_equal(fk.ncalls, 1);
	assert_non_null(
		strstr(fake_last_error, "unable to write event (may retry after sleeping)"));

	/* ...up to max_tries. */
	fk.fail_always = VC_EIO;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "b"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.attempts, 6);
	assert_non_null(strstr(fake_last_error, "unable to write event (retry limit exceeded!)"));

	/* An answer from the server is final. */
	fk.fail_always = VC_EUNPROCESSABLE;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "c"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.attempts, 7);
	assert_non_null(strstr(fake_last_error, "server rejected event (will not retry!)"));
	fk.fail_always = VC_ESERVER;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "d"), 0);
	assert_int_equal(vc_events_process(rec), 1);
	assert_int_equal(fk.attempts, 8);

	fk.fail_always = 0;
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.created, 1);
	assert_int_equal(st.failed, 3);
	vc_events_free(rec);
}

static void test_lru_eviction(void **state)
{
	struct vc_events_config cfg = { .component = "c", .cache_size = 2 };
	struct vc_events *rec = new_recorder(&cfg);

	(void)state;
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "a"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "b"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "b"), 0); /* patch: b is cached */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "c"), 0);
	/* "a" left the two-entry logger cache: it is created anew rather than counted. */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "a"), 0);
	assert_int_equal(vc_events_process(rec), 5);
	assert_int_equal(fk.ncalls, 5);
	assert_int_equal(fk.calls[2].verb, 'P');
	assert_int_equal(fk.calls[4].verb, 'C');
	assert_string_not_equal(fk.calls[4].name, fk.calls[0].name);
	assert_int_equal(body_int(4, "count"), 1);
	vc_events_free(rec);
}

static void test_thread_flush_stop(void **state)
{
	struct vc_events *rec = new_recorder(NULL);
	struct vc_events_stats st;
	int i;

	(void)state;
	assert_int_equal(vc_events_start(rec), 0);
	assert_int_equal(vc_events_start(rec), VC_EINVAL);
	for (i = 0; i < 5; i++)
		assert_int_equal(vc_event_record(rec, cm, "Normal", "Sync", "same"), 0);
	assert_int_equal(vc_events_flush(rec, 10 * S), 0);
	assert_int_equal(vc_events_process(rec), 0); /* the thread owns the queue */
	pthread_mutex_lock(&fk.lock);
	assert_int_equal(fk.ncalls, 5);
	assert_int_equal(fk.calls[0].verb, 'C');
	assert_int_equal(fk.calls[4].verb, 'P');
	assert_int_equal(body_int(4, "count"), 5);
	pthread_mutex_unlock(&fk.lock);
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.created, 1);
	assert_int_equal(st.patched, 4);

	/* A stop with a drain budget writes what is queued. */
	assert_int_equal(vc_event_record(rec, cm, "Normal", "Sync", "last"), 0);
	vc_events_stop(rec, 10 * S);
	assert_int_equal(fk.ncalls, 6);
	vc_events_stop(rec, 10 * S);
	vc_events_free(rec);
}

static void test_stop_interrupts_retries(void **state)
{
	struct vc_events_config cfg = { .component = "c", .retry_sleep_ns = 3600 * S };
	struct vc_events *rec = new_recorder(&cfg);
	struct vc_events_stats st;

	(void)state;
	fk.fail_always = VC_EIO;
	assert_int_equal(vc_events_start(rec), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "a"), 0);
	assert_int_equal(vc_event_record(rec, cm, "Normal", "R", "b"), 0);
	/* The sender sleeps an hour between tries; stop cuts that short. */
	vc_events_stop(rec, 0);
	vc_events_get_stats(rec, &st);
	assert_int_equal(st.failed, 2);
	assert_int_equal(st.created, 0);
	fk.fail_always = 0;
	vc_events_free(rec);
}

/* Every allocation failing in turn through new, record, correlate, write and free. */
static void test_alloc_failures(void **state)
{
	struct vc_events_config cfg = { .component = "vc-controller-manager", .host = "h" };
	struct vc_events *rec;
	long n, failures;
	int rc, i;

	(void)state;
	for (n = 0;; n++) {
		fake_clock_set_ns(WALL0, WALL0);
		fake_reset_calls(&fk);
		rec = NULL;
		vc_alloc_fail_after(n);
		rc = vc_events_new(kube, &cfg, &rec, NULL);
		if (rc == 0) {
			(void)vc_event_record(rec, cm, "Normal", "R", "one");
			(void)vc_event_record(rec, cm, "Normal", "R", "one");
			for (i = 0; i < 10; i++)
				(void)vc_event_record(rec, cm, "Warning", "S", "similar %d", i);
			(void)vc_events_process(rec);
			vc_events_free(rec);
		} else {
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(rec);
		}
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (failures == 0 && rc == 0)
			break;
		assert_true(n < 100000);
	}
	/* The clean run: create, patch, 9 creates, 1 aggregate. */
	assert_int_equal(fk.ncalls, 12);
	assert_int_equal(fk.calls[1].verb, 'P');
	assert_int_equal(body_int(1, "count"), 2);
	assert_string_equal(body_str(11, "message"), "(combined from similar events): similar 9");
}

/*
 * What the correlation caches keep per event: keys and aggregated messages as digests, not as
 * the joined strings (200-400 bytes each). 2,000 events of distinct pods, each with its own
 * message, as a pod storm's FailedScheduling warnings: every one takes an entry in each of the
 * three caches. With the strings the recorder kept 1,030 bytes per event; with digests, the
 * aggregator's set grown one message at a time and the LRU's key in its node's block, 528.
 */
static void test_cache_memory(void **state)
{
	const int n = 2000;
	struct vc_events *rec = new_recorder(NULL);
	size_t before, after, per;
	char name[64], uid[64];
	json_t *pod;
	int i;

	(void)state;
	before = mallinfo2().uordblks;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "job-%04d-w-%d", i / 10, i % 10);
		snprintf(uid, sizeof(uid), "5284d39a-74d8-4dd1-ba43-%012d", i);
		pod = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s}}", "apiVersion", "v1", "kind",
				"Pod", "metadata", "name", name, "namespace", "bench", "uid", uid,
				"resourceVersion", "812");
		assert_non_null(pod);
		assert_int_equal(vc_event_record(rec, pod, "Warning", "FailedScheduling",
						 "0/%d nodes are unavailable: %d Insufficient cpu, "
						 "%d node(s) had untolerated taint.",
						 i + 3, i + 1, 2),
				 0);
		json_decref(pod);
		assert_int_equal(vc_events_process(rec), 1);
	}
	fake_reset_calls(&fk); /* what the fake kept of the requests */
	after = mallinfo2().uordblks;
	per = after > before ? (after - before) / (size_t)n : 0;
	print_message("heap per event in the correlation caches: %zu bytes\n", per);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* Sanitizers replace malloc: mallinfo2 does not see their heap. */
	assert_true(per > 200);
	assert_true(per < 700);
#endif
	vc_events_free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_event_creates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeat_patches_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_different_message_is_a_new_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_cluster_scoped_and_ref, setup, teardown),
		cmocka_unit_test_setup_teardown(test_patch_not_found_creates_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_similar_events_aggregate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spam_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_full_drops_without_blocking, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lru_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_flush_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_interrupts_retries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_memory, setup, teardown),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
