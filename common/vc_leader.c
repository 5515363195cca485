/*
 * vc_leader.c - leader election on a Lease: client-go's LeaderElector with a LeaseLock.
 *
 * The state that one step reads and writes (the observed record, the cached Lease object) is
 * touched only by the stepping thread; `lock` guards what other threads read (leading, the
 * observed holder) and the start/stop flags.
 */
#include "vc_leader.h"

#include <pthread.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_events.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* The election record kept in a Lease's spec (client-go's LeaderElectionRecord). */
struct lease_record {
	const char *holder; /* never NULL once set: "" when the Lease has no holder */
	int64_t duration_s;
	const char *acquire; /* MicroTime text as stored, or NULL when absent */
	const char *renew;
	int64_t transitions;
};

struct vc_leader {
	struct vc_kube *kube;
	char *ns;
	char *name;
	char *identity;
	int64_t lease_ns;
	int64_t renew_ns;
	int64_t retry_ns;
	bool release_on_cancel;
	struct vc_leader_callbacks cb;
	struct vc_events *rec;

	/* Step state: only the stepping thread. */
	struct lease_record observed;
	bool have_observed;
	int64_t observed_time; /* monotonic ns when observed last changed */
	json_t *lease;	       /* the Lease as last read or written: the base of a PUT */
	char *reported;	       /* the holder last given to on_new_leader */
	int64_t last_renew;    /* monotonic ns of the last successful acquire or renew */
	bool announced;	       /* "attempting to acquire" was logged */
	uint64_t rng;

	/* Shared with other threads. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	bool started;
	bool stopping; /* the thread must end */
	bool done;     /* leadership lost or stopped: no more steps */
	bool leading;
	char *holder; /* copy of observed.holder for vc_leader_get_leader */
};

/* ---- configuration ------------------------------------------------------------------------ */

void vc_leader_config_defaults(struct vc_leader_config *cfg, const char *name)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->leader_elect = true;
	cfg->lease_duration_ns = 15 * VC_NSEC_PER_SEC;
	cfg->renew_deadline_ns = 10 * VC_NSEC_PER_SEC;
	cfg->retry_period_ns = 2 * VC_NSEC_PER_SEC;
	cfg->resource_lock = VC_LEADER_RESOURCE_LOCK;
	cfg->resource_name = name;
	cfg->resource_namespace = VC_LEADER_DEFAULT_NAMESPACE;
	cfg->lock_object_namespace = VC_LEADER_DEFAULT_NAMESPACE;
	cfg->release_on_cancel = true;
}

const char *vc_leader_config_namespace(const struct vc_leader_config *cfg)
{
	if (cfg->lock_object_namespace && cfg->lock_object_namespace[0])
		return cfg->lock_object_namespace;
	if (cfg->resource_namespace && cfg->resource_namespace[0])
		return cfg->resource_namespace;
	return NULL;
}

static bool is_empty(const char *s)
{
	return !s || !s[0];
}

/* Append one field error to the aggregate in b (Go's errors.NewAggregate joins with ", "). */
static int agg_add(struct vc_buf *b, int *count, const char *field, const char *value,
		   const char *detail)
{
	int rc;

	rc = vc_buf_addf(b, "%sleaderElection.%s: Invalid value: %s: %s", *count ? ", " : "", field,
			 value, detail);
	(*count)++;
	return rc;
}

static int add_duration_error(struct vc_buf *b, int *count, const char *field, int64_t ns,
			      const char *detail)
{
	char d[VC_DURATION_STR_MAX];

	if (vc_duration_format(ns, d, sizeof(d)))
		d[0] = '\0';
	return agg_add(b, count, field, d, detail);
}

/* component-base's ValidateLeaderElectionConfiguration: every problem, as an aggregate. */
static int validate_component_base(const struct vc_leader_config *cfg, struct vc_error *err)
{
	struct vc_buf b;
	int count = 0, rc = 0;

	vc_buf_init(&b, VC_ERROR_TEXT_LEN);
	if (cfg->lease_duration_ns <= 0)
		rc |= add_duration_error(&b, &count, "leaseDuration", cfg->lease_duration_ns,
					 "must be greater than zero");
	if (cfg->renew_deadline_ns <= 0)
		rc |= add_duration_error(&b, &count, "renewDeadline", cfg->renew_deadline_ns,
					 "must be greater than zero");
	if (cfg->retry_period_ns <= 0)
		rc |= add_duration_error(&b, &count, "retryPeriod", cfg->retry_period_ns,
					 "must be greater than zero");
	if (cfg->lease_duration_ns < cfg->renew_deadline_ns)
		rc |= add_duration_error(&b, &count, "leaseDuration", cfg->renew_deadline_ns,
					 "LeaseDuration must be greater than RenewDeadline");
	if (is_empty(cfg->resource_lock))
		rc |= agg_add(&b, &count, "resourceLock", "\"\"", "resourceLock is required");
	if (!vc_leader_config_namespace(cfg))
		rc |= agg_add(&b, &count, "resourceNamespace", "\"\"",
			      "resourceNamespace is required");
	if (is_empty(cfg->resource_name))
		rc |= agg_add(&b, &count, "resourceName", "\"\"", "resourceName is required");
	if (count == 0) {
		vc_buf_release(&b);
		return 0;
	}
	/* A truncated text (rc != 0) is still the best message there is. */
	(void)rc;
	if (count == 1)
		vc_error_set(err, VC_EINVAL, "%s", vc_buf_str(&b));
	else
		vc_error_set(err, VC_EINVAL, "[%s]", vc_buf_str(&b));
	vc_buf_release(&b);
	return VC_EINVAL;
}

int vc_leader_config_validate(const struct vc_leader_config *cfg, struct vc_error *err)
{
	int rc;

	if (!cfg)
		return vc_error_set(err, VC_EINVAL, "no leader election configuration");
	if (!cfg->leader_elect)
		return 0;
	rc = validate_component_base(cfg, err);
	if (rc)
		return rc;
	/* client-go's NewLeaderElector. */
	if (cfg->lease_duration_ns <= cfg->renew_deadline_ns)
		return vc_error_set(err, VC_EINVAL,
				    "leaseDuration must be greater than renewDeadline");
	if ((double)cfg->renew_deadline_ns <=
	    VC_LEADER_JITTER_FACTOR * (double)cfg->retry_period_ns)
		return vc_error_set(err, VC_EINVAL,
				    "renewDeadline must be greater than retryPeriod*JitterFactor");
	if (cfg->lease_duration_ns < VC_NSEC_PER_SEC)
		return vc_error_set(err, VC_EINVAL, "leaseDuration must be at least one second");
	/* resourcelock.New. */
	if (strcmp(cfg->resource_lock, VC_LEADER_RESOURCE_LOCK) != 0)
		return vc_error_set(err, VC_EINVAL,
				    "couldn't create resource lock: Invalid lock-type %s",
				    cfg->resource_lock);
	return 0;
}

char *vc_leader_new_identity(void)
{
	char host[256];
	uint8_t u[16];
	ssize_t n;

	if (gethostname(host, sizeof(host)) != 0)
		return NULL;
	host[sizeof(host) - 1] = '\0';
	n = getrandom(u, sizeof(u), 0);
	if (n != (ssize_t)sizeof(u))
		return NULL;
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	return vc_asprintf(
		"%s_%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", host,
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		u[13], u[14], u[15]);
}

/* ---- the election record ------------------------------------------------------------------ */

/* Free the strings of a record made by record_copy (the others are views). */
static void record_release(struct lease_record *r)
{
	vc_free((char *)r->holder);
	vc_free((char *)r->acquire);
	vc_free((char *)r->renew);
	memset(r, 0, sizeof(*r));
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d;

	if (!s)
		return NULL;
	d = vc_strdup(s);
	if (!d)
		*failed = true;
	return d;
}

/* dst = a deep copy of src; on failure dst is untouched and VC_ENOMEM returned. */
static int record_copy(struct lease_record *dst, const struct lease_record *src)
{
	struct lease_record r = { 0 };
	bool failed = false;

	r.holder = dup_or_null(src->holder ? src->holder : "", &failed);
	r.acquire = dup_or_null(src->acquire, &failed);
	r.renew = dup_or_null(src->renew, &failed);
	r.duration_s = src->duration_s;
	r.transitions = src->transitions;
	if (failed) {
		record_release(&r);
		return VC_ENOMEM;
	}
	record_release(dst);
	*dst = r;
	return 0;
}

/* Read the record from a Lease (borrowed). Absent fields read as zero, "" or NULL. */
static int record_from_lease(const json_t *lease, struct lease_record *out)
{
	const json_t *spec = vc_json_get_obj(lease, "spec");
	struct lease_record r = { 0 };
	const char *holder = vc_json_get_str(spec, "holderIdentity");

	r.holder = holder ? holder : "";
	r.acquire = vc_json_get_str(spec, "acquireTime");
	r.renew = vc_json_get_str(spec, "renewTime");
	r.duration_s = vc_json_get_int(spec, "leaseDurationSeconds", 0);
	r.transitions = vc_json_get_int(spec, "leaseTransitions", 0);
	return record_copy(out, &r);
}

static bool str_eq_null(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static bool record_equal(const struct lease_record *a, const struct lease_record *b)
{
	return str_eq_null(a->holder, b->holder) && a->duration_s == b->duration_s &&
	       str_eq_null(a->acquire, b->acquire) && str_eq_null(a->renew, b->renew) &&
	       a->transitions == b->transitions;
}

/* The Lease spec for r (client-go's LeaderElectionRecordToLeaseSpec). New reference or NULL. */
static json_t *record_to_spec(const struct lease_record *r)
{
	json_t *spec = json_object();

	if (!spec)
		return NULL;
	if (json_object_set_new(spec, "holderIdentity", json_string(r->holder)) ||
	    json_object_set_new(spec, "leaseDurationSeconds", json_integer(r->duration_s)) ||
	    (r->acquire && json_object_set_new(spec, "acquireTime", json_string(r->acquire))) ||
	    (r->renew && json_object_set_new(spec, "renewTime", json_string(r->renew))) ||
	    json_object_set_new(spec, "leaseTransitions", json_integer(r->transitions))) {
		json_decref(spec);
		return NULL;
	}
	return spec;
}

/* ---- talking to the API server ------------------------------------------------------------ */

/* Remember lease (stolen) as the base of the next PUT. */
static void keep_lease(struct vc_leader *le, json_t *lease)
{
	json_decref(le->lease);
	le->lease = lease;
}

/* Attach spec to obj (both stolen, either may be NULL after a failed allocation), send it with
 * POST (create) or PUT, and keep the answer (or obj when the answer is no object) as the base of
 * the next PUT. */
static int send_lease(struct vc_leader *le, json_t *obj, json_t *spec, bool create,
		      struct vc_error *err)
{
	json_t *out = NULL;
	int rc;

	if (!obj || !spec) {
		json_decref(obj);
		json_decref(spec);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	if (json_object_set_new(obj, "spec", spec)) {
		json_decref(obj);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	if (create)
		rc = vc_kube_create(le->kube, &vc_gvr_leases, le->ns, NULL, NULL, obj, &out, err);
	else
		rc = vc_kube_update(le->kube, &vc_gvr_leases, le->ns, le->name, NULL, obj, &out,
				    err);
	if (rc) {
		json_decref(obj);
		return rc;
	}
	if (out && json_is_object(out)) {
		json_decref(obj);
		keep_lease(le, out);
	} else {
		json_decref(out);
		keep_lease(le, obj);
	}
	return 0;
}

/* PUT the cached Lease with its spec replaced by r. */
static int update_lease(struct vc_leader *le, const struct lease_record *r, struct vc_error *err)
{
	json_t *obj, *spec;

	if (!le->lease)
		return vc_error_set(err, VC_EINVAL, "no lease object to update");
	obj = json_deep_copy(le->lease);
	spec = record_to_spec(r);
	return send_lease(le, obj, spec, false, err);
}

static int create_lease(struct vc_leader *le, const struct lease_record *r, struct vc_error *err)
{
	json_t *obj, *spec;

	spec = record_to_spec(r);
	obj = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "coordination.k8s.io/v1", "kind",
			"Lease", "metadata", "name", le->name, "namespace", le->ns);
	return send_lease(le, obj, spec, true, err);
}

/* ---- one step ----------------------------------------------------------------------------- */

static bool holder_is_me(const struct vc_leader *le)
{
	return le->have_observed && le->observed.holder &&
	       strcmp(le->observed.holder, le->identity) == 0;
}

/* The observed lease has not expired: client-go's isLeaseValid, on our monotonic clock. */
static bool lease_valid(const struct vc_leader *le, int64_t now)
{
	int64_t d = le->observed.duration_s;

	if (d < 0)
		d = 0;
	if (d > INT64_MAX / VC_NSEC_PER_SEC / 2)
		d = INT64_MAX / VC_NSEC_PER_SEC / 2;
	return le->observed_time + d * VC_NSEC_PER_SEC > now;
}

/* observed = r, seen at now. The copy for other threads is swapped under the lock. */
static int set_observed(struct vc_leader *le, const struct lease_record *r, int64_t now)
{
	char *holder;
	int rc;

	holder = vc_strdup(r->holder ? r->holder : "");
	if (!holder)
		return VC_ENOMEM;
	rc = record_copy(&le->observed, r);
	if (rc) {
		vc_free(holder);
		return rc;
	}
	le->have_observed = true;
	le->observed_time = now;
	pthread_mutex_lock(&le->lock);
	vc_free(le->holder);
	le->holder = holder;
	pthread_mutex_unlock(&le->lock);
	return 0;
}

static bool try_acquire_or_renew(struct vc_leader *le, int64_t now)
{
	struct lease_record want = { 0 }, old = { 0 };
	char now_str[VC_TIME_STR_MAX];
	struct vc_error err;
	int64_t wall = vc_time_now_ns();
	json_t *got = NULL;
	bool ok = false;
	int rc;

	vc_error_clear(&err);
	if (vc_time_format_rfc3339_micro(wall / VC_NSEC_PER_SEC, (int32_t)(wall % VC_NSEC_PER_SEC),
					 now_str, sizeof(now_str)))
		return false;
	want.holder = le->identity;
	want.duration_s = le->lease_ns / VC_NSEC_PER_SEC;
	want.acquire = now_str;
	want.renew = now_str;

	/* A leader whose lease is still valid renews without reading it first. */
	if (le->lease && holder_is_me(le) && lease_valid(le, now)) {
		want.acquire = le->observed.acquire;
		want.transitions = le->observed.transitions;
		rc = update_lease(le, &want, &err);
		if (rc == 0)
			return set_observed(le, &want, now) == 0;
		VC_WARN("failed to update lock optimistically, falling back to slow path",
			"lease=%s/%s err=\"%s\"", le->ns, le->name, err.text);
		want.acquire = now_str;
		want.transitions = 0;
		vc_error_clear(&err);
	}

	/* 1. Obtain or create the record. */
	rc = vc_kube_get(le->kube, &vc_gvr_leases, le->ns, le->name, NULL, &got, &err);
	if (rc == VC_ENOTFOUND) {
		json_decref(got);
		rc = create_lease(le, &want, &err);
		if (rc) {
			VC_ERROR("error initially creating leader election record",
				 "lease=%s/%s err=\"%s\"", le->ns, le->name, err.text);
			return false;
		}
		return set_observed(le, &want, now) == 0;
	}
	if (rc || !json_is_object(got)) {
		VC_ERROR("error retrieving resource lock", "lease=%s/%s err=\"%s\"", le->ns,
			 le->name, rc ? err.text : "not an object");
		json_decref(got);
		return false;
	}
	if (record_from_lease(got, &old)) {
		json_decref(got);
		return false;
	}
	keep_lease(le, got);

	/* 2. The record changed since we looked last: the lease runs from now on our clock. */
	if (!le->have_observed || !record_equal(&old, &le->observed)) {
		if (set_observed(le, &old, now))
			goto out;
	}
	if (old.holder[0] && lease_valid(le, now) && !holder_is_me(le)) {
		VC_LOG(VC_LOG_V(4), "lock is held by another and has not yet expired",
		       "lease=%s/%s holder=%s", le->ns, le->name, old.holder);
		goto out;
	}

	/* 3. Take it over, or renew it. */
	if (holder_is_me(le)) {
		want.acquire = old.acquire;
		want.transitions = old.transitions;
	} else {
		want.transitions = old.transitions + 1;
	}
	rc = update_lease(le, &want, &err);
	if (rc) {
		VC_ERROR("failed to update lock", "lease=%s/%s err=\"%s\"", le->ns, le->name,
			 err.text);
		goto out;
	}
	ok = set_observed(le, &want, now) == 0;
out:
	record_release(&old);
	return ok;
}

static void record_lease_event(struct vc_leader *le, const char *what)
{
	if (!le->rec || !le->lease)
		return;
	(void)vc_event_record(le->rec, le->lease, "Normal", "LeaderElection", "%s %s", le->identity,
			      what);
}

bool vc_leader_step(struct vc_leader *le)
{
	bool ok, started = false, stopped = false, taken = false, leading;
	char *report = NULL;
	int64_t now;

	pthread_mutex_lock(&le->lock);
	if (le->done) {
		pthread_mutex_unlock(&le->lock);
		return false;
	}
	pthread_mutex_unlock(&le->lock);

	if (!le->announced) {
		VC_INFO("attempting to acquire leader lease", "lease=%s/%s identity=%s", le->ns,
			le->name, le->identity);
		le->announced = true;
	}
	now = vc_time_mono_ns();
	ok = try_acquire_or_renew(le, now);

	pthread_mutex_lock(&le->lock);
	if (ok) {
		le->last_renew = now;
		if (!le->leading) {
			le->leading = true;
			started = true;
		}
	} else if (le->leading) {
		taken = le->have_observed && !holder_is_me(le);
		if (taken || now - le->last_renew >= le->renew_ns) {
			le->leading = false;
			le->done = true;
			stopped = true;
		}
	}
	leading = le->leading;
	pthread_mutex_unlock(&le->lock);

	/* client-go's maybeReportTransition. */
	if (le->have_observed && !str_eq_null(le->observed.holder, le->reported)) {
		report = vc_strdup(le->observed.holder);
		if (report) {
			vc_free(le->reported);
			le->reported = report;
		}
	}
	if (report) {
		VC_INFO("new leader elected", "lease=%s/%s holder=%s", le->ns, le->name, report);
		if (le->cb.on_new_leader)
			le->cb.on_new_leader(le->cb.ctx, report);
	}
	if (started) {
		VC_INFO("successfully acquired lease", "lease=%s/%s identity=%s", le->ns, le->name,
			le->identity);
		record_lease_event(le, "became leader");
		if (le->cb.on_started_leading)
			le->cb.on_started_leading(le->cb.ctx);
	}
	if (stopped) {
		VC_ERROR("failed to renew lease", "lease=%s/%s identity=%s reason=%s", le->ns,
			 le->name, le->identity,
			 taken ? "held-by-another" : "renew-deadline-exceeded");
		record_lease_event(le, "stopped leading");
		if (le->cb.on_stopped_leading)
			le->cb.on_stopped_leading(le->cb.ctx);
	}
	return leading;
}

/* xorshift64*: jitter only, no need for more. */
static uint64_t next_random(struct vc_leader *le)
{
	uint64_t x = le->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	le->rng = x;
	return x * UINT64_C(2685821657736338717);
}

int64_t vc_leader_next_delay_ns(struct vc_leader *le)
{
	double share;

	if (vc_leader_is_leader(le))
		return le->retry_ns;
	share = (double)(next_random(le) >> 11) / (double)(UINT64_C(1) << 53);
	return le->retry_ns + (int64_t)(share * VC_LEADER_JITTER_FACTOR * (double)le->retry_ns);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

int vc_leader_new(struct vc_kube *kube, const struct vc_leader_config *cfg, const char *identity,
		  const struct vc_leader_callbacks *cb, struct vc_leader **out,
		  struct vc_error *err)
{
	struct vc_leader_config check;
	pthread_condattr_t attr;
	struct vc_leader *le;
	uint64_t seed = 0;
	int rc;

	if (!out)
		return vc_error_set(err, VC_EINVAL, "no output for the elector");
	*out = NULL;
	if (!kube || !cfg)
		return vc_error_set(err, VC_EINVAL, "leader election needs a client and a config");
	check = *cfg;
	check.leader_elect = true;
	rc = vc_leader_config_validate(&check, err);
	if (rc)
		return rc;
	if (identity && !identity[0])
		return vc_error_set(err, VC_EINVAL, "leader election identity is empty");

	le = vc_calloc(1, sizeof(*le));
	if (!le)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	le->kube = kube;
	le->ns = vc_strdup(vc_leader_config_namespace(cfg));
	le->name = vc_strdup(cfg->resource_name);
	le->identity = identity ? vc_strdup(identity) : vc_leader_new_identity();
	if (!le->ns || !le->name || !le->identity)
		goto fail_strings;
	le->lease_ns = cfg->lease_duration_ns;
	le->renew_ns = cfg->renew_deadline_ns;
	le->retry_ns = cfg->retry_period_ns;
	le->release_on_cancel = cfg->release_on_cancel;
	if (cb)
		le->cb = *cb;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
		seed = (uint64_t)vc_time_mono_ns();
	le->rng = seed ? seed : UINT64_C(0x9e3779b97f4a7c15);

	rc = pthread_mutex_init(&le->lock, NULL);
	if (rc)
		goto fail_strings;
	rc = pthread_condattr_init(&attr);
	if (rc)
		goto fail_mutex;
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(&le->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (rc)
		goto fail_mutex;
	*out = le;
	return 0;

fail_mutex:
	pthread_mutex_destroy(&le->lock);
fail_strings:
	vc_free(le->ns);
	vc_free(le->name);
	vc_free(le->identity);
	vc_free(le);
	if (rc)
		return vc_error_set(err, -rc, "cannot initialise the elector: %s", strerror(rc));
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

void vc_leader_set_recorder(struct vc_leader *le, struct vc_events *rec)
{
	le->rec = rec;
}

static void *leader_main(void *arg)
{
	struct vc_leader *le = arg;
	struct timespec ts;
	int64_t delay, deadline;

	pthread_mutex_lock(&le->lock);
	while (!le->stopping && !le->done) {
		pthread_mutex_unlock(&le->lock);
		(void)vc_leader_step(le);
		delay = vc_leader_next_delay_ns(le);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		deadline = ts.tv_sec * VC_NSEC_PER_SEC + ts.tv_nsec + delay;
		ts.tv_sec = deadline / VC_NSEC_PER_SEC;
		ts.tv_nsec = deadline % VC_NSEC_PER_SEC;
		pthread_mutex_lock(&le->lock);
		while (!le->stopping) {
			if (pthread_cond_timedwait(&le->cond, &le->lock, &ts) == ETIMEDOUT)
				break;
		}
	}
	pthread_mutex_unlock(&le->lock);
	return NULL;
}

int vc_leader_start(struct vc_leader *le)
{
	int rc;

	pthread_mutex_lock(&le->lock);
	if (le->started || le->stopping || le->done) {
		pthread_mutex_unlock(&le->lock);
		return VC_EINVAL;
	}
	rc = pthread_create(&le->thread, NULL, leader_main, le);
	if (rc == 0)
		le->started = true;
	pthread_mutex_unlock(&le->lock);
	return -rc;
}

/* Give the Lease up (client-go's release): only when we hold it. */
static void release_lease(struct vc_leader *le)
{
	struct lease_record want = { 0 };
	char now_str[VC_TIME_STR_MAX];
	struct vc_error err;
	int64_t wall = vc_time_now_ns();

	if (!holder_is_me(le) || !le->lease)
		return;
	if (vc_time_format_rfc3339_micro(wall / VC_NSEC_PER_SEC, (int32_t)(wall % VC_NSEC_PER_SEC),
					 now_str, sizeof(now_str)))
		return;
	want.holder = "";
	want.duration_s = 1;
	want.acquire = now_str;
	want.renew = now_str;
	want.transitions = le->observed.transitions;
	vc_error_clear(&err);
	if (update_lease(le, &want, &err)) {
		VC_ERROR("failed to release lock", "lease=%s/%s err=\"%s\"", le->ns, le->name,
			 err.text);
		return;
	}
	(void)set_observed(le, &want, vc_time_mono_ns());
	VC_INFO("released leader lease", "lease=%s/%s identity=%s", le->ns, le->name, le->identity);
}

void vc_leader_stop(struct vc_leader *le)
{
	bool join;

	if (!le)
		return;
	pthread_mutex_lock(&le->lock);
	if (le->stopping) {
		pthread_mutex_unlock(&le->lock);
		return;
	}
	le->stopping = true;
	join = le->started;
	pthread_cond_broadcast(&le->cond);
	pthread_mutex_unlock(&le->lock);
	if (join)
		pthread_join(le->thread, NULL);
	if (le->release_on_cancel)
		release_lease(le);
	pthread_mutex_lock(&le->lock);
	le->leading = false;
	le->done = true;
	pthread_mutex_unlock(&le->lock);
}

bool vc_leader_is_leader(struct vc_leader *le)
{
	bool leading;

	pthread_mutex_lock(&le->lock);
	leading = le->leading;
	pthread_mutex_unlock(&le->lock);
	return leading;
}

const char *vc_leader_identity(const struct vc_leader *le)
{
	return le->identity;
}

int vc_leader_get_leader(struct vc_leader *le, char *buf, size_t len)
{
	const char *h;
	int rc = 0;

	pthread_mutex_lock(&le->lock);
	h = le->holder ? le->holder : "";
	if (strlen(h) >= len) {
		if (len)
			buf[0] = '\0';
		rc = VC_E2BIG;
	} else {
		memcpy(buf, h, strlen(h) + 1);
	}
	pthread_mutex_unlock(&le->lock);
	return rc;
}

void vc_leader_free(struct vc_leader *le)
{
	if (!le)
		return;
	vc_leader_stop(le);
	pthread_cond_destroy(&le->cond);
	pthread_mutex_destroy(&le->lock);
	record_release(&le->observed);
	json_decref(le->lease);
	vc_free(le->reported);
	vc_free(le->holder);
	vc_free(le->ns);
	vc_free(le->name);
	vc_free(le->identity);
	vc_free(le);
}
