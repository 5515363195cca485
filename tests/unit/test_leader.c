/*
 * Unit tests for vc_leader: client-go's tryAcquireOrRenew against a fake Lease store, driven step
 * by step on an injected clock (no test sleeps for a lease duration), the renew deadline, the
 * release on stop, the configuration and its flags, and allocation failures.
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_flags.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_leader.h"
#include "vc_log.h"
#include "vc_time.h"

#define S VC_NSEC_PER_SEC

/* ---- the clock (fake_clock_set_ns, fake_clock_advance) ---------------------------------- */

/* 2023-11-14T22:13:20.123456789Z */
#define WALL0 (INT64_C(1700000000) * S + 123456789)
#define MONO0 (INT64_C(5000) * S)

/* ---- the fake Lease store ----------------------------------------------------------------- */

struct lease_fake {
	pthread_mutex_t lock;
	json_t *lease; /* stored object, NULL when absent */
	int64_t rv;
	int gets, creates, updates, patches;
	int fail_get, fail_create, fail_update; /* next call returns this (0 = normal) */
	bool fail_get_always, fail_update_always;
	char ns[64], name[64];
};

static struct lease_fake fk;

static int lease_fail(int code, struct vc_error *err)
{
	return vc_error_set(err, code, "injected failure %d", code);
}

/* A copy with a fresh resourceVersion and a uid, stored as the current object. */
static int store(json_t *obj, json_t **out, struct vc_error *err)
{
	json_t *copy = json_deep_copy(obj), *md;
	char rv[32];

	md = vc_json_get_obj(copy, "metadata");
	if (!md)
		goto nomem;
	snprintf(rv, sizeof(rv), "%" PRId64, ++fk.rv);
	if (json_object_set_new(md, "resourceVersion", json_string(rv)) ||
	    json_object_set_new(md, "uid", json_string("0b7d1a32-uid")))
		goto nomem;
	json_decref(fk.lease);
	fk.lease = copy;
	if (out) {
		*out = json_deep_copy(copy);
		if (!*out)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	return 0;
nomem:
	json_decref(copy);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

static int fake_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const char *subresource, json_t **out, struct vc_error *err)
{
	int rc = 0;

	(void)ctx;
	(void)subresource;
	pthread_mutex_lock(&fk.lock);
	fk.gets++;
	assert_string_equal(r->resource, "leases");
	snprintf(fk.ns, sizeof(fk.ns), "%s", ns);
	snprintf(fk.name, sizeof(fk.name), "%s", name);
	*out = NULL;
	if (fk.fail_get_always || fk.fail_get) {
		rc = lease_fail(fk.fail_get ? fk.fail_get : VC_EIO, err);
		fk.fail_get = 0;
	} else if (!fk.lease) {
		rc = vc_error_set(err, VC_ENOTFOUND, "leases.coordination.k8s.io \"%s\" not found",
				  name);
	} else {
		*out = json_deep_copy(fk.lease);
		if (!*out)
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	pthread_mutex_unlock(&fk.lock);
	return rc;
}

static int fake_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *subresource, const json_t *obj, json_t **out,
		       struct vc_error *err)
{
	int rc;

	(void)ctx;
	(void)r;
	(void)ns;
	(void)name;
	(void)subresource;
	pthread_mutex_lock(&fk.lock);
	fk.creates++;
	if (fk.fail_create) {
		rc = lease_fail(fk.fail_create, err);
		fk.fail_create = 0;
	} else if (fk.lease) {
		rc = vc_error_set(err, VC_EALREADYEXISTS,
				  "leases.coordination.k8s.io already exists");
	} else {
		rc = store((json_t *)obj, out, err);
	}
	pthread_mutex_unlock(&fk.lock);
	return rc;
}

static int fake_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *subresource, const json_t *obj, json_t **out,
		       struct vc_error *err)
{
	const char *want, *have;
	int rc;

	(void)ctx;
	(void)r;
	(void)ns;
	(void)subresource;
	pthread_mutex_lock(&fk.lock);
	fk.updates++;
	want = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "resourceVersion");
	have = vc_json_get_str(vc_json_get_obj(fk.lease, "metadata"), "resourceVersion");
	if (fk.fail_update_always || fk.fail_update) {
		rc = lease_fail(fk.fail_update ? fk.fail_update : VC_EIO, err);
		fk.fail_update = 0;
	} else if (!fk.lease) {
		rc = vc_error_set(err, VC_ENOTFOUND, "not found");
	} else if (!want || !have || strcmp(want, have) != 0) {
		rc = vc_error_set(err, VC_ECONFLICT,
				  "Operation cannot be fulfilled on leases.coordination.k8s.io "
				  "\"%s\": the object has been modified; please apply your changes "
				  "to the latest version and try again",
				  name);
	} else {
		rc = store((json_t *)obj, out, err);
	}
	pthread_mutex_unlock(&fk.lock);
	return rc;
}

static int fake_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *subresource, enum vc_patch_type type, const json_t *patch,
		      json_t **out, struct vc_error *err)
{
	(void)ctx;
	(void)r;
	(void)ns;
	(void)name;
	(void)subresource;
	(void)type;
	(void)patch;
	(void)out;
	fk.patches++;
	return vc_error_set(err, VC_EINVAL, "unexpected patch");
}

static const struct vc_kube_ops lease_ops = {
	.get = fake_get,
	.create = fake_create,
	.update = fake_update,
	.patch = fake_patch,
};

/* Replace the stored Lease's spec, as another replica's write would (new resourceVersion). */
static void other_writes(const char *holder, int duration, const char *renew, int transitions)
{
	json_t *obj;

	pthread_mutex_lock(&fk.lock);
	obj = fk.lease ? json_deep_copy(fk.lease)
		       : json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion",
				   "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name",
				   "vc-controller-manager", "namespace", "volcano-system");
	assert_non_null(obj);
	assert_int_equal(
		json_object_set_new(obj, "spec",
				    json_pack("{s:s, s:i, s:s, s:s, s:i}", "holderIdentity", holder,
					      "leaseDurationSeconds", duration, "acquireTime",
					      "2000-01-01T00:00:00.000000Z", "renewTime", renew,
					      "leaseTransitions", transitions)),
		0);
	assert_int_equal(store(obj, NULL, NULL), 0);
	json_decref(obj);
	pthread_mutex_unlock(&fk.lock);
}

static const char *spec_str(const char *key)
{
	return vc_json_get_str(vc_json_get_obj(fk.lease, "spec"), key);
}

static int64_t spec_int(const char *key)
{
	return vc_json_get_int(vc_json_get_obj(fk.lease, "spec"), key, -999);
}

/* ---- callbacks ---------------------------------------------------------------------------- */

struct calls {
	char log[512];
	int started, stopped;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static struct calls calls;

static void note(const char *what)
{
	size_t at = strlen(calls.log);

	snprintf(calls.log + at, sizeof(calls.log) - at, "%s%s", at ? "," : "", what);
}

static void on_started(void *ctx)
{
	assert_ptr_equal(ctx, &calls);
	pthread_mutex_lock(&calls.lock);
	calls.started++;
	note("started");
	pthread_cond_broadcast(&calls.cond);
	pthread_mutex_unlock(&calls.lock);
}

static void on_stopped(void *ctx)
{
	assert_ptr_equal(ctx, &calls);
	pthread_mutex_lock(&calls.lock);
	calls.stopped++;
	note("stopped");
	pthread_mutex_unlock(&calls.lock);
}

static void on_new_leader(void *ctx, const char *identity)
{
	char buf[128];

	assert_ptr_equal(ctx, &calls);
	snprintf(buf, sizeof(buf), "new:%s", identity);
	pthread_mutex_lock(&calls.lock);
	note(buf);
	pthread_mutex_unlock(&calls.lock);
}

static const struct vc_leader_callbacks cbs = {
	.on_started_leading = on_started,
	.on_stopped_leading = on_stopped,
	.on_new_leader = on_new_leader,
	.ctx = &calls,
};

/* ---- fixtures ----------------------------------------------------------------------------- */

static struct vc_kube *kube;

static int setup(void **state)
{
	(void)state;
	json_decref(fk.lease);
	memset(&fk, 0, sizeof(fk));
	pthread_mutex_init(&fk.lock, NULL);
	memset(&calls, 0, sizeof(calls));
	pthread_mutex_init(&calls.lock, NULL);
	pthread_cond_init(&calls.cond, NULL);
	fake_clock_set_ns(WALL0, MONO0);
	fake_log_capture();
	kube = vc_kube_new_with_ops(&lease_ops, NULL);
	assert_non_null(kube);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	vc_kube_free(kube);
	kube = NULL;
	json_decref(fk.lease);
	fk.lease = NULL;
	pthread_mutex_destroy(&fk.lock);
	pthread_cond_destroy(&calls.cond);
	pthread_mutex_destroy(&calls.lock);
	vc_time_set_source(NULL, NULL, NULL);
	vc_log_set_sink(NULL, NULL);
	return 0;
}

static struct vc_leader *new_elector(const char *identity)
{
	struct vc_leader_config cfg;
	struct vc_leader *le = NULL;
	struct vc_error err;

	vc_leader_config_defaults(&cfg, "vc-controller-manager");
	assert_int_equal(vc_leader_new(kube, &cfg, identity, &cbs, &le, &err), 0);
	assert_non_null(le);
	return le;
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_acquire_fresh(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");
	char holder[64];

	(void)state;
	assert_false(vc_leader_is_leader(le));
	assert_int_equal(vc_leader_get_leader(le, holder, sizeof(holder)), 0);
	assert_string_equal(holder, "");
	assert_int_equal(fk.gets, 0); /* nothing is sent before the first step */

	assert_true(vc_leader_step(le));
	assert_true(vc_leader_is_leader(le));
	assert_int_equal(fk.gets, 1);
	assert_int_equal(fk.creates, 1);
	assert_int_equal(fk.updates, 0);
	assert_string_equal(fk.ns, "volcano-system");
	assert_string_equal(fk.name, "vc-controller-manager");
	assert_string_equal(vc_json_get_str(fk.lease, "apiVersion"), "coordination.k8s.io/v1");
	assert_string_equal(vc_json_get_str(fk.lease, "kind"), "Lease");
	assert_string_equal(vc_json_get_str(vc_json_get_obj(fk.lease, "metadata"), "namespace"),
			    "volcano-system");
	assert_string_equal(spec_str("holderIdentity"), "host-a_1");
	assert_int_equal(spec_int("leaseDurationSeconds"), 15);
	/* MicroTime: six fractional digits, truncated. */
	assert_string_equal(spec_str("acquireTime"), "2023-11-14T22:13:20.123456Z");
	assert_string_equal(spec_str("renewTime"), "2023-11-14T22:13:20.123456Z");
	assert_int_equal(spec_int("leaseTransitions"), 0);
	assert_string_equal(calls.log, "new:host-a_1,started");
	assert_int_equal(vc_leader_get_leader(le, holder, sizeof(holder)), 0);
	assert_string_equal(holder, "host-a_1");
	assert_int_equal(vc_leader_get_leader(le, holder, 4), VC_E2BIG);
	assert_string_equal(holder, "");
	assert_string_equal(vc_leader_identity(le), "host-a_1");
	vc_leader_free(le);
}

static void test_renew(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");
	int i;

	(void)state;
	assert_true(vc_leader_step(le));
	for (i = 1; i <= 3; i++) {
		fake_clock_advance(2 * S);
		assert_true(vc_leader_step(le));
	}
	/* The fast path: a leader with a valid lease renews by PUT alone, no GET. */
	assert_int_equal(fk.gets, 1);
	assert_int_equal(fk.creates, 1);
	assert_int_equal(fk.updates, 3);
	assert_string_equal(spec_str("holderIdentity"), "host-a_1");
	assert_string_equal(spec_str("acquireTime"), "2023-11-14T22:13:20.123456Z");
	assert_string_equal(spec_str("renewTime"), "2023-11-14T22:13:26.123456Z");
	assert_int_equal(spec_int("leaseTransitions"), 0);
	assert_int_equal(calls.started, 1);
	assert_string_equal(calls.log, "new:host-a_1,started");

	/* Someone bumped the object (same record): the optimistic PUT conflicts, the slow path
	 * reads the new resourceVersion and renews. */
	other_writes("host-a_1", 15, "2023-11-14T22:13:26.123456Z", 0);
	fake_clock_advance(2 * S);
	assert_true(vc_leader_step(le));
	assert_int_equal(fk.gets, 2);
	assert_int_equal(fk.updates, 5);
	assert_string_equal(spec_str("renewTime"), "2023-11-14T22:13:28.123456Z");
	assert_non_null(strstr(fake_last_error, "failed to update lock optimistically"));
	vc_leader_free(le);
}

static void test_other_holder_wait_then_take_over(void **state)
{
	struct vc_leader *le = new_elector("host-b_2");

	(void)state;
	/* A holder whose renewTime is years in the past: remote timestamps are not trusted, the
	 * lease runs from when WE first saw this record. */
	other_writes("host-a_1", 15, "2000-01-01T00:00:00.000000Z", 3);
	assert_false(vc_leader_step(le));
	assert_false(vc_leader_is_leader(le));
	assert_int_equal(fk.updates, 0);
	assert_string_equal(calls.log, "new:host-a_1");

	fake_clock_advance(14 * S);
	assert_false(vc_leader_step(le));
	assert_int_equal(fk.updates, 0);

	/* The holder renews at 14 s: the clock restarts from this observation. */
	other_writes("host-a_1", 15, "2000-01-01T00:00:14.000000Z", 3);
	fake_clock_advance(1 * S);
	assert_false(vc_leader_step(le)); /* observed now, at 15 s */
	fake_clock_advance(14 * S);
	assert_false(vc_leader_step(le)); /* 29 s: 14 s after the observation */
	assert_int_equal(fk.updates, 0);

	/* 30 s: a full lease duration without a change. Take over. */
	fake_clock_advance(1 * S);
	assert_true(vc_leader_step(le));
	assert_true(vc_leader_is_leader(le));
	assert_int_equal(fk.updates, 1);
	assert_int_equal(fk.creates, 0);
	assert_string_equal(spec_str("holderIdentity"), "host-b_2");
	assert_int_equal(spec_int("leaseTransitions"), 4);
	assert_string_equal(spec_str("acquireTime"), "2023-11-14T22:13:50.123456Z");
	assert_string_equal(spec_str("renewTime"), "2023-11-14T22:13:50.123456Z");
	assert_int_equal(spec_int("leaseDurationSeconds"), 15);
	assert_string_equal(calls.log, "new:host-a_1,new:host-b_2,started");

	/* Its own renewals keep acquireTime and the transition count. */
	fake_clock_advance(2 * S);
	assert_true(vc_leader_step(le));
	assert_int_equal(spec_int("leaseTransitions"), 4);
	assert_string_equal(spec_str("acquireTime"), "2023-11-14T22:13:50.123456Z");
	vc_leader_free(le);
}

static void test_lease_duration_comes_from_the_record(void **state)
{
	struct vc_leader *le = new_elector("host-b_2");

	(void)state;
	/* The holder said 4 s: that is what we wait, not our own 15 s. */
	other_writes("host-a_1", 4, "2000-01-01T00:00:00.000000Z", 0);
	assert_false(vc_leader_step(le));
	fake_clock_advance(3 * S);
	assert_false(vc_leader_step(le));
	fake_clock_advance(1 * S);
	assert_true(vc_leader_step(le));
	assert_int_equal(spec_int("leaseDurationSeconds"), 15);
	assert_int_equal(spec_int("leaseTransitions"), 1);
	vc_leader_free(le);
}

static void test_conflict_loses_the_race(void **state)
{
	struct vc_leader *le = new_elector("host-b_2");

	(void)state;
	/* Create race: the Lease appeared between our GET and our POST. */
	fk.fail_create = VC_EALREADYEXISTS;
	assert_false(vc_leader_step(le));
	assert_false(vc_leader_is_leader(le));
	assert_int_equal(fk.creates, 1);
	assert_non_null(strstr(fake_last_error, "error initially creating leader election record"));

	/* Update race on an expired lease: another candidate's PUT won. */
	other_writes("host-a_1", 15, "2000-01-01T00:00:00.000000Z", 0);
	assert_false(vc_leader_step(le));
	fake_clock_advance(15 * S);
	fk.fail_update = VC_ECONFLICT;
	assert_false(vc_leader_step(le));
	assert_false(vc_leader_is_leader(le));
	assert_int_equal(fk.updates, 1);
	assert_int_equal(calls.started, 0);
	assert_non_null(strstr(fake_last_error, "failed to update lock"));
	assert_string_equal(spec_str("holderIdentity"), "host-a_1");

	/* A GET failure is not leadership either. */
	fk.fail_get = VC_ESERVER;
	assert_false(vc_leader_step(le));
	assert_non_null(strstr(fake_last_error, "error retrieving resource lock"));

	/* Next time round the race can be won. */
	assert_true(vc_leader_step(le));
	assert_int_equal(spec_int("leaseTransitions"), 1);
	vc_leader_free(le);
}

static void test_renew_deadline_exceeded(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");
	int gets, updates;

	(void)state;
	assert_true(vc_leader_step(le));
	fk.fail_update_always = true;
	fk.fail_get_always = true;
	fake_clock_advance(2 * S);
	assert_true(vc_leader_step(le)); /* 2 s without a renewal: still leading */
	fake_clock_advance(7 * S);
	assert_true(vc_leader_step(le)); /* 9 s */
	assert_int_equal(calls.stopped, 0);
	fake_clock_advance(S - 1);
	assert_true(vc_leader_step(le)); /* 10 s - 1 ns */
	fake_clock_advance(1);
	assert_false(vc_leader_step(le)); /* 10 s: the renew deadline */
	assert_false(vc_leader_is_leader(le));
	assert_int_equal(calls.stopped, 1);
	assert_string_equal(calls.log, "new:host-a_1,started,stopped");
	assert_non_null(strstr(fake_last_error, "reason=renew-deadline-exceeded"));

	/* The elector is finished: no more requests, no more callbacks. */
	gets = fk.gets;
	updates = fk.updates;
	fk.fail_update_always = false;
	fk.fail_get_always = false;
	fake_clock_advance(2 * S);
	assert_false(vc_leader_step(le));
	assert_int_equal(fk.gets, gets);
	assert_int_equal(fk.updates, updates);
	assert_int_equal(vc_leader_start(le), VC_EINVAL);
	assert_int_equal(calls.stopped, 1);
	vc_leader_free(le);
}

static void test_lease_taken_stops_leading_at_once(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");

	(void)state;
	assert_true(vc_leader_step(le));
	/* Another replica wrote itself in (we were paused, say). */
	other_writes("host-c_3", 15, "2023-11-14T22:13:21.000000Z", 1);
	fake_clock_advance(2 * S);
	assert_false(vc_leader_step(le));
	assert_false(vc_leader_is_leader(le));
	assert_int_equal(calls.stopped, 1);
	assert_string_equal(calls.log, "new:host-a_1,started,new:host-c_3,stopped");
	assert_non_null(strstr(fake_last_error, "reason=held-by-another"));
	assert_string_equal(spec_str("holderIdentity"), "host-c_3");
	/* Stopping does not release a Lease we do not hold. */
	vc_leader_stop(le);
	assert_string_equal(spec_str("holderIdentity"), "host-c_3");
	vc_leader_free(le);
}

static void test_release_on_stop(void **state)
{
	struct vc_leader *a = new_elector("host-a_1"), *b = new_elector("host-b_2");
	int updates;

	(void)state;
	assert_true(vc_leader_step(a));
	assert_false(vc_leader_step(b));
	fake_clock_advance(2 * S);
	assert_true(vc_leader_step(a));
	assert_int_equal(spec_int("leaseTransitions"), 0);

	updates = fk.updates;
	fake_clock_advance(S);
	vc_leader_stop(a);
	assert_int_equal(fk.updates, updates + 1);
	assert_false(vc_leader_is_leader(a));
	assert_string_equal(spec_str("holderIdentity"), "");
	assert_int_equal(spec_int("leaseDurationSeconds"), 1);
	assert_int_equal(spec_int("leaseTransitions"), 0);
	assert_string_equal(spec_str("renewTime"), "2023-11-14T22:13:23.123456Z");
	assert_string_equal(spec_str("acquireTime"), "2023-11-14T22:13:23.123456Z");
	assert_int_equal(calls.stopped, 0); /* a stop the daemon asked for is not a loss */
	vc_leader_stop(a);		    /* idempotent */
	assert_int_equal(fk.updates, updates + 1);
	assert_false(vc_leader_step(a));

	/* The standby takes a released Lease at its next retry, not after 15 s. */
	fake_clock_advance(S);
	assert_true(vc_leader_step(b));
	assert_string_equal(spec_str("holderIdentity"), "host-b_2");
	assert_int_equal(spec_int("leaseTransitions"), 1);
	vc_leader_free(a);
	vc_leader_free(b);
}

static void test_no_release_without_release_on_cancel(void **state)
{
	struct vc_leader_config cfg;
	struct vc_leader *le = NULL;
	int updates;

	(void)state;
	vc_leader_config_defaults(&cfg, "vc-scheduler");
	cfg.release_on_cancel = false;
	assert_int_equal(vc_leader_new(kube, &cfg, "host-a_1", NULL, &le, NULL), 0);
	assert_true(vc_leader_step(le));
	assert_string_equal(fk.name, "vc-scheduler");
	updates = fk.updates;
	vc_leader_free(le);
	assert_int_equal(fk.updates, updates);
	assert_string_equal(spec_str("holderIdentity"), "host-a_1");
}

static void test_malformed_lease_is_taken_over(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");
	json_t *obj;

	(void)state;
	/* A Lease with no spec at all (made by hand, say): no holder, take it at once. */
	obj = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "coordination.k8s.io/v1", "kind",
			"Lease", "metadata", "name", "vc-controller-manager", "namespace",
			"volcano-system");
	assert_int_equal(store(obj, NULL, NULL), 0);
	json_decref(obj);
	assert_true(vc_leader_step(le));
	assert_int_equal(spec_int("leaseTransitions"), 1);
	/* holderIdentity of the wrong type counts as no holder too. */
	obj = json_deep_copy(fk.lease);
	json_object_set_new(vc_json_get_obj(obj, "spec"), "holderIdentity", json_integer(7));
	assert_int_equal(store(obj, NULL, NULL), 0);
	json_decref(obj);
	fake_clock_advance(2 * S);
	assert_true(vc_leader_step(le));
	assert_string_equal(spec_str("holderIdentity"), "host-a_1");
	vc_leader_free(le);
}

static void test_next_delay(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");
	int64_t d;
	int i;

	(void)state;
	other_writes("host-z_9", 15, "2000-01-01T00:00:00.000000Z", 0);
	assert_false(vc_leader_step(le));
	for (i = 0; i < 1000; i++) {
		d = vc_leader_next_delay_ns(le);
		assert_true(d >= 2 * S);
		assert_true(d < 2 * S + (int64_t)(1.2 * 2 * S));
	}
	fake_clock_advance(15 * S);
	assert_true(vc_leader_step(le));
	assert_int_equal(vc_leader_next_delay_ns(le), 2 * S);
	vc_leader_free(le);
}

static void test_thread_start_stop(void **state)
{
	struct vc_leader *le = new_elector("host-a_1");
	struct timespec ts;

	(void)state;
	assert_int_equal(vc_leader_start(le), 0);
	assert_int_equal(vc_leader_start(le), VC_EINVAL);
	/* The first step runs at once; wait for its callback (bounded, not a lease duration). */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&calls.lock);
	while (!calls.started) {
		if (pthread_cond_timedwait(&calls.cond, &calls.lock, &ts) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&calls.lock);
	assert_int_equal(calls.started, 1);
	assert_true(vc_leader_is_leader(le));
	vc_leader_stop(le);
	assert_false(vc_leader_is_leader(le));
	assert_string_equal(spec_str("holderIdentity"), "");
	assert_int_equal(vc_leader_start(le), VC_EINVAL);
	vc_leader_free(le);
}

/* ---- configuration ------------------------------------------------------------------------ */

struct daemon_cfg {
	const char *kubeconfig;
	struct vc_leader_config le;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, NULL, 0, 0, offsetof(struct daemon_cfg, kubeconfig), "k" },
	VC_LEADER_FLAGS(struct daemon_cfg, le, "vc-controller-manager"),
};

static void test_flags_and_defaults(void **state)
{
	const char *argv[] = { "prog",
			       "--leader-elect-lease-duration=4s",
			       "--leader-elect-renew-deadline",
			       "3s",
			       "--leader-elect-retry-period=1s",
			       "--lock-object-namespace=",
			       "--leader-elect-resource-namespace=kube-system" };
	const char *argv0[] = { "prog" };
	struct vc_leader_config d;
	struct daemon_cfg c;
	struct vc_error err;
	int first;

	(void)state;
	assert_int_equal(
		vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &c, 1, (char **)argv0, &first, &err),
		0);
	vc_leader_config_defaults(&d, "vc-controller-manager");
	assert_true(c.le.leader_elect);
	assert_int_equal(c.le.lease_duration_ns, d.lease_duration_ns);
	assert_int_equal(c.le.lease_duration_ns, 15 * S);
	assert_int_equal(c.le.renew_deadline_ns, 10 * S);
	assert_int_equal(c.le.retry_period_ns, 2 * S);
	assert_string_equal(c.le.resource_lock, "leases");
	assert_string_equal(c.le.resource_name, "vc-controller-manager");
	assert_string_equal(c.le.resource_namespace, "volcano-system");
	assert_string_equal(c.le.lock_object_namespace, "volcano-system");
	assert_string_equal(vc_leader_config_namespace(&c.le), "volcano-system");
	assert_int_equal(vc_leader_config_validate(&c.le, &err), 0);
	assert_true(d.release_on_cancel);

	assert_int_equal(vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &c, VC_ARRAY_SIZE(argv),
					(char **)argv, &first, &err),
			 0);
	assert_int_equal(c.le.lease_duration_ns, 4 * S);
	assert_int_equal(c.le.renew_deadline_ns, 3 * S);
	assert_int_equal(c.le.retry_period_ns, 1 * S);
	/* An empty --lock-object-namespace lets --leader-elect-resource-namespace through. */
	assert_string_equal(vc_leader_config_namespace(&c.le), "kube-system");
	assert_int_equal(vc_leader_config_validate(&c.le, &err), 0);
	/* The deprecated flag wins when set, as in Volcano. */
	c.le.lock_object_namespace = "vc";
	assert_string_equal(vc_leader_config_namespace(&c.le), "vc");
	c.le.lock_object_namespace = NULL;
	c.le.resource_namespace = "";
	assert_null(vc_leader_config_namespace(&c.le));
}

static void expect_invalid(const struct vc_leader_config *cfg, const char *msg)
{
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(vc_leader_config_validate(cfg, &err), VC_EINVAL);
	assert_string_equal(err.text, msg);
}

static void test_validate(void **state)
{
	struct vc_leader_config c;
	struct vc_leader *le = NULL;
	struct vc_error err;

	(void)state;
	vc_leader_config_defaults(&c, "x");
	c.lease_duration_ns = 0;
	expect_invalid(&c, "[leaderElection.leaseDuration: Invalid value: 0s: must be greater than "
			   "zero, leaderElection.leaseDuration: Invalid value: 10s: LeaseDuration "
			   "must be greater than RenewDeadline]");
	c.leader_elect = false;
	assert_int_equal(vc_leader_config_validate(&c, NULL), 0);

	vc_leader_config_defaults(&c, "x");
	c.retry_period_ns = -S;
	expect_invalid(&c, "leaderElection.retryPeriod: Invalid value: -1s: must be greater than "
			   "zero");
	vc_leader_config_defaults(&c, "");
	c.resource_lock = "";
	c.lock_object_namespace = "";
	c.resource_namespace = NULL;
	expect_invalid(&c, "[leaderElection.resourceLock: Invalid value: \"\": resourceLock is "
			   "required, leaderElection.resourceNamespace: Invalid value: \"\": "
			   "resourceNamespace is required, leaderElection.resourceName: Invalid "
			   "value: \"\": resourceName is required]");
	vc_leader_config_defaults(&c, "x");
	c.renew_deadline_ns = 15 * S; /* equal passes component-base, not client-go */
	expect_invalid(&c, "leaseDuration must be greater than renewDeadline");
	vc_leader_config_defaults(&c, "x");
	c.renew_deadline_ns = 2400 * VC_NSEC_PER_MSEC;
	expect_invalid(&c, "renewDeadline must be greater than retryPeriod*JitterFactor");
	vc_leader_config_defaults(&c, "x");
	c.lease_duration_ns = 900 * VC_NSEC_PER_MSEC;
	c.renew_deadline_ns = 800 * VC_NSEC_PER_MSEC;
	c.retry_period_ns = 100 * VC_NSEC_PER_MSEC;
	expect_invalid(&c, "leaseDuration must be at least one second");
	vc_leader_config_defaults(&c, "x");
	c.resource_lock = "endpoints";
	expect_invalid(&c, "couldn't create resource lock: Invalid lock-type endpoints");
	assert_int_equal(vc_leader_config_validate(NULL, NULL), VC_EINVAL);

	/* vc_leader_new validates even when leader_elect is off, and checks its arguments. */
	c.leader_elect = false;
	assert_int_equal(vc_leader_new(kube, &c, "id", NULL, &le, &err), VC_EINVAL);
	assert_null(le);
	assert_string_equal(err.text, "couldn't create resource lock: Invalid lock-type endpoints");
	vc_leader_config_defaults(&c, "x");
	assert_int_equal(vc_leader_new(kube, &c, "", NULL, &le, &err), VC_EINVAL);
	assert_int_equal(vc_leader_new(NULL, &c, "id", NULL, &le, &err), VC_EINVAL);
	assert_int_equal(vc_leader_new(kube, NULL, "id", NULL, &le, &err), VC_EINVAL);
	assert_int_equal(vc_leader_new(kube, &c, "id", NULL, NULL, &err), VC_EINVAL);
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static void test_identity(void **state)
{
	char host[256], *a, *b;
	const char *u;
	size_t i, hl;
	struct vc_leader *le;

	(void)state;
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	hl = strlen(host);
	a = vc_leader_new_identity();
	b = vc_leader_new_identity();
	assert_non_null(a);
	assert_non_null(b);
	assert_string_not_equal(a, b);
	assert_int_equal(strlen(a), hl + 1 + 36);
	assert_memory_equal(a, host, hl);
	assert_int_equal(a[hl], '_');
	u = a + hl + 1;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23)
			assert_int_equal(u[i], '-');
		else
			assert_true(is_hex(u[i]));
	}
	assert_int_equal(u[14], '4');
	assert_non_null(strchr("89ab", u[19]));
	vc_free(a);
	vc_free(b);

	/* NULL identity: the elector makes one. */
	le = new_elector(NULL);
	assert_memory_equal(vc_leader_identity(le), host, hl);
	assert_int_equal(strlen(vc_leader_identity(le)), hl + 37);
	vc_leader_free(le);
}

/* Every allocation failing in turn through new, acquire, renew, take-over, release and free. */
static void test_alloc_failures(void **state)
{
	struct vc_leader_config cfg;
	struct vc_leader *le;
	long n, failures;
	int rc;

	(void)state;
	vc_leader_config_defaults(&cfg, "vc-controller-manager");
	for (n = 0;; n++) {
		json_decref(fk.lease);
		fk.lease = NULL;
		fake_clock_set_ns(WALL0, MONO0);
		other_writes("host-z_9", 15, "2000-01-01T00:00:00.000000Z", 0);
		le = NULL;
		vc_alloc_fail_after(n);
		rc = vc_leader_new(kube, &cfg, "host-a_1", &cbs, &le, NULL);
		if (rc == 0) {
			(void)vc_leader_step(le);
			fake_clock_advance(15 * S);
			(void)vc_leader_step(le);
			fake_clock_advance(2 * S);
			(void)vc_leader_step(le);
			vc_leader_free(le);
		} else {
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(le);
		}
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (failures == 0 && rc == 0)
			break;
		assert_true(n < 10000);
	}
	/* The final, unfailed run got through to the release. */
	assert_string_equal(spec_str("holderIdentity"), "");
	assert_int_equal(spec_int("leaseTransitions"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_acquire_fresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renew, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_holder_wait_then_take_over, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lease_duration_comes_from_the_record, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conflict_loses_the_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_renew_deadline_exceeded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lease_taken_stops_leading_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_release_on_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_release_without_release_on_cancel, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed_lease_is_taken_over, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_next_delay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_start_stop, setup, teardown),
		cmocka_unit_test(test_flags_and_defaults),
		cmocka_unit_test_setup_teardown(test_validate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
