/*
 * vc_events.c - the Event recorder: a bounded queue, client-go's EventCorrelator (aggregator,
 * event logger, spam filter: three LRU caches, vc_lru.h), and the sender that creates or patches
 * Events.
 *
 * Locks: `lock` guards the queue, the flags and the counters; `corr_lock` is held while one event
 * is correlated and written, so the caches have one user at a time whichever thread processes.
 */
#include "vc_events.h"

#include <pthread.h>
#include <sys/random.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_lru.h"
#include "vc_log.h"
#include "vc_ratelimit.h"
#include "vc_time.h"

/* Longest message accepted (the rest of an Event is small; etcd refuses objects over 1.5 MiB). */
#define MESSAGE_CAP ((size_t)1 << 20)
/* Separates the fields of a cache key, so ("ab","c") and ("a","bc") stay apart. */
#define KEY_SEP "\x1f"

/*
 * The caches' keys and the aggregator's messages are kept as 128-bit digests (two FNV-1a
 * passes from different offsets) instead of the strings: a cache key joins the component, the
 * object's kind, namespace, name, uid and API version, the reason and the message (200-400
 * bytes), and the two recorders' six caches of 4,096 entries each held ~6 MB of such strings
 * after a pod storm (bench/README.md, "Memory after the pod storm", fourth pass). Two events
 * whose keys differ share a digest with a probability of about 2^-128 per pair.
 */
struct key_digest {
	uint64_t a, b;
};
/* The second pass's offset basis: any value other than FNV's own. */
#define DIGEST_OFFSET2 UINT64_C(0x6c62272e07bb0142)
/* A digest written as a key: 32 hex digits. */
#define DIGEST_HEX (32 + 1)

/* ---- cache values ------------------------------------------------------------------------- */

/*
 * The aggregator's record: the distinct messages seen for one source/object/type/reason, each
 * as its digest (message_digest): client-go keeps the strings, but only ever compares them.
 */
struct agg_record {
	int64_t last_ns;
	size_t n, cap;
	struct key_digest *keys; /* cap slots, at most aggregate_max_events */
};

/* The event logger's record: the Event that repeats of one event are counted on. */
struct log_record {
	int64_t count;
	int64_t first_ns;
	char *name;
};

static void agg_clear(struct agg_record *a)
{
	a->n = 0;
}

static void agg_free(void *val)
{
	struct agg_record *a = val;

	if (!a)
		return;
	agg_clear(a);
	vc_free(a->keys);
	vc_free(a);
}

static void log_free(void *val)
{
	struct log_record *r = val;

	if (!r)
		return;
	vc_free(r->name);
	vc_free(r);
}

static void bucket_free(void *val)
{
	struct vc_bucket *b = val;

	if (!b)
		return;
	vc_bucket_release(b);
	vc_free(b);
}

/* ---- events waiting to be written --------------------------------------------------------- */

struct pending {
	char *ns;   /* the Event's namespace */
	char *name; /* the Event's name */
	struct {
		char *api_version, *kind, *ns, *name, *uid, *rv, *field_path;
	} obj; /* involvedObject; NULL fields are absent */
	char *type;
	char *reason;
	char *message;
	int64_t first_ns;
	int64_t last_ns;
	int64_t count;
};

static void pending_free(struct pending *p)
{
	if (!p)
		return;
	vc_free(p->ns);
	vc_free(p->name);
	vc_free(p->obj.api_version);
	vc_free(p->obj.kind);
	vc_free(p->obj.ns);
	vc_free(p->obj.name);
	vc_free(p->obj.uid);
	vc_free(p->obj.rv);
	vc_free(p->obj.field_path);
	vc_free(p->type);
	vc_free(p->reason);
	vc_free(p->message);
	vc_free(p);
}

/* A copy of s, NULL for NULL or "" (Go's omitempty); *failed is set when memory runs out. */
static char *dup_opt(const char *s, bool *failed)
{
	char *d;

	if (!s || !s[0])
		return NULL;
	d = vc_strdup(s);
	if (!d)
		*failed = true;
	return d;
}

struct vc_events {
	struct vc_kube *kube;
	char *component;
	char *host; /* NULL when none */
	size_t queue_len;
	int spam_burst;
	double spam_qps;
	size_t agg_max;
	int64_t agg_interval;
	int max_tries;
	int64_t retry_sleep;

	pthread_mutex_t lock;
	pthread_cond_t wake; /* the queue got an event, or stopping */
	pthread_cond_t idle; /* the queue is empty and nothing is being written */
	struct pending **ring;
	size_t head, count;
	bool started;
	bool closed;   /* no more records */
	bool stopping; /* the sender must end */
	bool busy;     /* an event is being handled */
	int64_t drain_deadline;
	int64_t last_name_ns;
	uint64_t rng;
	struct vc_events_stats stats;
	pthread_t thread;

	pthread_mutex_t corr_lock;
	struct vc_lru agg, log, spam;
};

static int64_t real_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * VC_NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec abs_time(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = ns / VC_NSEC_PER_SEC;
	ts.tv_nsec = ns % VC_NSEC_PER_SEC;
	return ts;
}

/* A name suffix: the time in ns, made unique within this recorder (client-go's "%x"). */
static int64_t unique_ns(struct vc_events *rec, int64_t t)
{
	pthread_mutex_lock(&rec->lock);
	if (t <= rec->last_name_ns)
		t = rec->last_name_ns + 1;
	rec->last_name_ns = t;
	pthread_mutex_unlock(&rec->lock);
	return t;
}

static char *event_name(const char *obj_name, int64_t ns)
{
	return vc_asprintf("%s.%" PRIx64, obj_name, (uint64_t)ns);
}

/* ---- recording ---------------------------------------------------------------------------- */

static bool valid_type(const char *type)
{
	return type && (strcmp(type, "Normal") == 0 || strcmp(type, "Warning") == 0);
}

static int record_ref(struct vc_events *rec, const struct vc_object_ref *ref, const char *type,
		      const char *reason, const char *fmt, va_list ap) VC_PRINTF(5, 0);

static int record_ref(struct vc_events *rec, const struct vc_object_ref *ref, const char *type,
		      const char *reason, const char *fmt, va_list ap)
{
	struct pending *p;
	struct vc_buf msg;
	bool failed = false;
	int64_t t;
	int rc;

	if (!rec || !ref || !fmt)
		return VC_EINVAL;
	if (!valid_type(type)) {
		VC_ERROR("unsupported event type", "type=%s reason=%s", type ? type : "",
			 reason ? reason : "");
		return VC_EINVAL;
	}
	if (!ref->kind || !ref->kind[0] || !ref->name || !ref->name[0]) {
		VC_ERROR("could not construct reference, will not report event",
			 "kind=%s name=%s type=%s reason=%s", ref->kind ? ref->kind : "",
			 ref->name ? ref->name : "", type, reason ? reason : "");
		return VC_EINVAL;
	}
	vc_buf_init(&msg, MESSAGE_CAP);
	rc = vc_buf_vaddf(&msg, fmt, ap);
	if (rc) {
		vc_buf_release(&msg);
		VC_ERROR("cannot format event message", "%s=%s/%s reason=%s err=\"%s\"", ref->kind,
			 ref->namespace ? ref->namespace : "", ref->name, reason ? reason : "",
			 vc_strerror(rc));
		return rc;
	}
	p = vc_calloc(1, sizeof(*p));
	if (!p) {
		vc_buf_release(&msg);
		return VC_ENOMEM;
	}
	p->message = vc_buf_take(&msg);
	if (!p->message)
		failed = true;
	t = vc_time_now_ns();
	p->ns = vc_strdup(ref->namespace && ref->namespace[0] ? ref->namespace : "default");
	p->name = event_name(ref->name, unique_ns(rec, t));
	p->obj.api_version = dup_opt(ref->api_version, &failed);
	p->obj.kind = dup_opt(ref->kind, &failed);
	p->obj.ns = dup_opt(ref->namespace, &failed);
	p->obj.name = dup_opt(ref->name, &failed);
	p->obj.uid = dup_opt(ref->uid, &failed);
	p->obj.rv = dup_opt(ref->resource_version, &failed);
	p->obj.field_path = dup_opt(ref->field_path, &failed);
	p->type = vc_strdup(type);
	p->reason = vc_strdup(reason ? reason : "");
	p->first_ns = p->last_ns = t;
	p->count = 1;
	if (failed || !p->ns || !p->name || !p->type || !p->reason) {
		pending_free(p);
		return VC_ENOMEM;
	}

	pthread_mutex_lock(&rec->lock);
	if (rec->closed) {
		pthread_mutex_unlock(&rec->lock);
		pending_free(p);
		return VC_ESHUTDOWN;
	}
	if (rec->count >= rec->queue_len) {
		rec->stats.dropped++;
		pthread_mutex_unlock(&rec->lock);
		VC_ERROR("unable to record event: too many queued events, dropped event",
			 "%s=%s/%s type=%s reason=%s", p->obj.kind, p->obj.ns ? p->obj.ns : "",
			 p->obj.name, p->type, p->reason);
		pending_free(p);
		return -EAGAIN;
	}
	rec->ring[(rec->head + rec->count) % rec->queue_len] = p;
	rec->count++;
	rec->stats.queued++;
	pthread_cond_signal(&rec->wake);
	pthread_mutex_unlock(&rec->lock);
	return 0;
}

int vc_event_record_ref(struct vc_events *rec, const struct vc_object_ref *ref, const char *type,
			const char *reason, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = record_ref(rec, ref, type, reason, fmt, ap);
	va_end(ap);
	return rc;
}

int vc_event_recordv(struct vc_events *rec, const json_t *obj, const char *type, const char *reason,
		     const char *fmt, va_list ap)
{
	struct vc_object_ref ref = { 0 };
	const json_t *md;

	if (!rec || !obj)
		return VC_EINVAL;
	md = vc_json_get_obj(obj, "metadata");
	ref.api_version = vc_json_get_str(obj, "apiVersion");
	ref.kind = vc_json_get_str(obj, "kind");
	ref.namespace = vc_json_get_str(md, "namespace");
	ref.name = vc_json_get_str(md, "name");
	ref.uid = vc_json_get_str(md, "uid");
	ref.resource_version = vc_json_get_str(md, "resourceVersion");
	return record_ref(rec, &ref, type, reason, fmt, ap);
}

int vc_event_record(struct vc_events *rec, const json_t *obj, const char *type, const char *reason,
		    const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vc_event_recordv(rec, obj, type, reason, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- correlation (client-go's EventCorrelator) -------------------------------------------- */

static void digest_add(struct key_digest *d, const char *s, size_t n)
{
	d->a = vc_fnv1a64_bytes(d->a, s, n);
	d->b = vc_fnv1a64_bytes(d->b, s, n);
}

static struct key_digest message_digest(const char *message)
{
	struct key_digest d = { VC_FNV64_OFFSET, DIGEST_OFFSET2 };

	if (message)
		digest_add(&d, message, strlen(message));
	return d;
}

/*
 * The key of fields joined (NULL counts as empty) with KEY_SEP between them, in order, as its
 * digest's 32 hex digits in b.
 */
static int key_join(struct vc_buf *b, const char *const *fields, size_t n)
{
	struct key_digest d = { VC_FNV64_OFFSET, DIGEST_OFFSET2 };
	char hex[DIGEST_HEX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			digest_add(&d, KEY_SEP, 1);
		if (fields[i])
			digest_add(&d, fields[i], strlen(fields[i]));
	}
	snprintf(hex, sizeof(hex), "%016" PRIx64 "%016" PRIx64, d.a, d.b);
	return vc_buf_adds(b, hex);
}

/* getSpamKey: source and involved object. */
static int spam_key(const struct vc_events *rec, const struct pending *p, struct vc_buf *b)
{
	const char *const f[] = { rec->component, rec->host,  p->obj.kind,	 p->obj.ns,
				  p->obj.name,	  p->obj.uid, p->obj.api_version };

	return key_join(b, f, VC_ARRAY_SIZE(f));
}

/* EventAggregatorByReasonFunc's aggregate key: also type, reason and the reporter. */
static int aggregate_key(const struct vc_events *rec, const struct pending *p, struct vc_buf *b)
{
	const char *const f[] = { rec->component, rec->host,	  p->obj.kind,	      p->obj.ns,
				  p->obj.name,	  p->obj.uid,	  p->obj.api_version, p->type,
				  p->reason,	  rec->component, rec->host };

	return key_join(b, f, VC_ARRAY_SIZE(f));
}

/* getEventKey: everything that makes two events the same, the message included. */
static int event_key(const struct vc_events *rec, const struct pending *p, struct vc_buf *b)
{
	const char *const f[] = { rec->component, rec->host,	      p->obj.kind,
				  p->obj.ns,	  p->obj.name,	      p->obj.field_path,
				  p->obj.uid,	  p->obj.api_version, p->type,
				  p->reason,	  p->message };

	return key_join(b, f, VC_ARRAY_SIZE(f));
}

/*
 * EventAggregate: note p's message among the similar events; when it is one too many, turn p
 * into the aggregate event. *use_agg tells which key the event logger must use.
 */
static int aggregate(struct vc_events *rec, struct pending *p, const char *agg_key, int64_t now,
		     bool *use_agg)
{
	struct vc_lru_node *n = vc_lru_find(&rec->agg, agg_key);
	struct agg_record *a = n ? n->val : NULL;
	struct key_digest md;
	char *message, *name;
	size_t i;

	*use_agg = false;
	if (!a) {
		a = vc_calloc(1, sizeof(*a));
		if (!a || vc_lru_put(&rec->agg, agg_key, a)) {
			agg_free(a);
			return VC_ENOMEM;
		}
	} else if (now - a->last_ns > rec->agg_interval) {
		agg_clear(a);
	}
	a->last_ns = now;
	md = message_digest(p->message);
	for (i = 0; i < a->n; i++) {
		if (a->keys[i].a == md.a && a->keys[i].b == md.b)
			break;
	}
	if (i < a->n)
		return 0;     /* a message already in the set never crosses the threshold */
	if (a->n == a->cap) { /* most objects have one message: grow one at a time */
		struct key_digest *grown = vc_realloc(a->keys, (a->n + 1) * sizeof(*a->keys));

		if (!grown)
			return VC_ENOMEM;
		a->keys = grown;
		a->cap = a->n + 1;
	}
	a->keys[a->n++] = md;
	if (a->n < rec->agg_max)
		return 0;
	/* Do not let the set grow past the maximum: forget the message that crossed it. */
	a->n--;

	message = vc_asprintf("%s%s", VC_EVENTS_AGGREGATE_PREFIX, p->message);
	name = event_name(p->obj.name, unique_ns(rec, now));
	if (!message || !name) {
		vc_free(message);
		vc_free(name);
		return VC_ENOMEM;
	}
	vc_free(p->message);
	p->message = message;
	vc_free(p->name);
	p->name = name;
	p->first_ns = p->last_ns = now;
	p->count = 1;
	*use_agg = true;
	return 0;
}

/* eventObserve: a repeat takes the first occurrence's name, start and count + 1. */
static int observe(struct vc_events *rec, struct pending *p, const char *key, bool *patch)
{
	struct vc_lru_node *n = vc_lru_find(&rec->log, key);
	struct log_record *last = n ? n->val : NULL, *r;
	char *name;

	*patch = false;
	if (last && last->count > 0) {
		name = vc_strdup(last->name);
		if (!name)
			return VC_ENOMEM;
		vc_free(p->name);
		p->name = name;
		p->first_ns = last->first_ns;
		p->count = last->count + 1;
		*patch = true;
	}
	r = vc_calloc(1, sizeof(*r));
	if (!r)
		return VC_ENOMEM;
	r->count = p->count;
	r->first_ns = p->first_ns;
	r->name = vc_strdup(p->name);
	if (!r->name || vc_lru_put(&rec->log, key, r)) {
		log_free(r);
		return VC_ENOMEM;
	}
	return 0;
}

/* EventSourceObjectSpamFilter: true when the event must be skipped. */
static int spam_filtered(struct vc_events *rec, const char *key, bool *skip)
{
	struct vc_lru_node *n = vc_lru_find(&rec->spam, key);
	struct vc_bucket *b;

	if (!n) {
		b = vc_calloc(1, sizeof(*b));
		if (!b)
			return VC_ENOMEM;
		vc_bucket_init(b, rec->spam_qps, rec->spam_burst);
		if (vc_lru_put(&rec->spam, key, b)) {
			bucket_free(b);
			return VC_ENOMEM;
		}
	} else {
		b = n->val;
	}
	*skip = !vc_bucket_try(b);
	return 0;
}

/* EventCorrelate: 0 to write p (with a patch when *patch), 1 to skip it, or VC_ENOMEM. */
static int correlate(struct vc_events *rec, struct pending *p, bool *patch)
{
	struct vc_buf agg_key, ev_key, sp_key;
	bool use_agg = false, skip = false;
	int rc;

	*patch = false;
	vc_buf_init(&agg_key, 0);
	vc_buf_init(&ev_key, 0);
	vc_buf_init(&sp_key, 0);
	if (aggregate_key(rec, p, &agg_key) || event_key(rec, p, &ev_key) ||
	    spam_key(rec, p, &sp_key)) {
		rc = VC_ENOMEM;
		goto out;
	}
	rc = aggregate(rec, p, vc_buf_str(&agg_key), vc_time_now_ns(), &use_agg);
	if (!rc)
		rc = observe(rec, p, vc_buf_str(use_agg ? &agg_key : &ev_key), patch);
	if (!rc)
		rc = spam_filtered(rec, vc_buf_str(&sp_key), &skip);
	if (!rc && skip)
		rc = 1;
out:
	vc_buf_release(&agg_key);
	vc_buf_release(&ev_key);
	vc_buf_release(&sp_key);
	return rc;
}

/* UpdateState: remember what the server now holds for p's own key. */
static void update_state(struct vc_events *rec, const struct pending *p)
{
	struct log_record *r;
	struct vc_buf key;

	vc_buf_init(&key, 0);
	r = vc_calloc(1, sizeof(*r));
	if (!r || event_key(rec, p, &key))
		goto fail;
	r->count = p->count;
	r->first_ns = p->first_ns;
	r->name = vc_strdup(p->name);
	if (!r->name || vc_lru_put(&rec->log, vc_buf_str(&key), r))
		goto fail;
	vc_buf_release(&key);
	return;
fail:
	log_free(r);
	vc_buf_release(&key);
}

/* ---- writing ------------------------------------------------------------------------------ */

static int set_str(json_t *obj, const char *key, const char *val)
{
	if (!val)
		return 0;
	return json_object_set_new(obj, key, json_string(val));
}

static int set_time(json_t *obj, const char *key, int64_t ns)
{
	char buf[VC_TIME_STR_MAX];
	int64_t sec = ns / VC_NSEC_PER_SEC;

	if (ns < 0 && ns % VC_NSEC_PER_SEC)
		sec--;
	if (vc_time_format_rfc3339(sec, buf, sizeof(buf)))
		return -1;
	return json_object_set_new(obj, key, json_string(buf));
}

/* The core/v1 Event for p. New reference, or NULL when memory runs out. */
static json_t *event_json(const struct vc_events *rec, const struct pending *p)
{
	json_t *ev = json_object(), *md, *io, *src;

	if (!ev)
		return NULL;
	/* Attached first: ev owns them from here on, whatever fails later. */
	md = json_object();
	if (json_object_set_new(ev, "metadata", md))
		goto fail;
	io = json_object();
	if (json_object_set_new(ev, "involvedObject", io))
		goto fail;
	src = json_object();
	if (json_object_set_new(ev, "source", src))
		goto fail;
	if (set_str(ev, "apiVersion", "v1") || set_str(ev, "kind", "Event") ||
	    set_str(md, "name", p->name) || set_str(md, "namespace", p->ns) ||
	    set_str(io, "kind", p->obj.kind) || set_str(io, "namespace", p->obj.ns) ||
	    set_str(io, "name", p->obj.name) || set_str(io, "uid", p->obj.uid) ||
	    set_str(io, "apiVersion", p->obj.api_version) ||
	    set_str(io, "resourceVersion", p->obj.rv) ||
	    set_str(io, "fieldPath", p->obj.field_path) ||
	    (p->reason[0] && set_str(ev, "reason", p->reason)) ||
	    (p->message[0] && set_str(ev, "message", p->message)) ||
	    set_str(src, "component", rec->component) || set_str(src, "host", rec->host) ||
	    set_time(ev, "firstTimestamp", p->first_ns) ||
	    set_time(ev, "lastTimestamp", p->last_ns) ||
	    json_object_set_new(ev, "count", json_integer(p->count)) ||
	    set_str(ev, "type", p->type) || set_str(ev, "reportingComponent", rec->component) ||
	    set_str(ev, "reportingInstance", rec->host ? rec->host : ""))
		goto fail;
	return ev;
fail:
	json_decref(ev);
	return NULL;
}

/*
 * A failure the server did not answer: worth retrying (client-go retries anything that is not a
 * StatusError or a request that could not be built).
 */
static bool retryable(int rc)
{
	return rc == VC_EIO || rc == VC_ETIMEDOUT;
}

/* One attempt: patch a repeat (create it again when gone), or create. */
static int write_event(struct vc_events *rec, const struct pending *p, bool patch,
		       struct vc_error *err)
{
	json_t *body;
	int rc;

	if (patch) {
		body = json_object();
		if (!body || json_object_set_new(body, "count", json_integer(p->count)) ||
		    set_time(body, "lastTimestamp", p->last_ns) ||
		    set_str(body, "message", p->message)) {
			json_decref(body);
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		}
		rc = vc_kube_patch(rec->kube, &vc_gvr_events, p->ns, p->name, NULL,
				   VC_PATCH_STRATEGIC, body, NULL, err);
		json_decref(body);
		if (rc == 0) {
			pthread_mutex_lock(&rec->lock);
			rec->stats.patched++;
			pthread_mutex_unlock(&rec->lock);
			return 0;
		}
		if (rc != VC_ENOTFOUND)
			return rc;
		vc_error_clear(err);
	}
	body = event_json(rec, p);
	if (!body)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_create(rec->kube, &vc_gvr_events, p->ns, NULL, NULL, body, NULL, err);
	json_decref(body);
	if (rc == 0) {
		pthread_mutex_lock(&rec->lock);
		rec->stats.created++;
		pthread_mutex_unlock(&rec->lock);
	}
	return rc;
}

static uint64_t next_random(struct vc_events *rec)
{
	uint64_t x = rec->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rec->rng = x;
	return x * UINT64_C(2685821657736338717);
}

/* Sleep ns (real time) unless stopping; true when stopping (then give up). */
static bool sleep_or_stop(struct vc_events *rec, int64_t ns)
{
	struct timespec ts = abs_time(real_mono_ns() + ns);
	bool stopping;

	pthread_mutex_lock(&rec->lock);
	while (!rec->stopping) {
		if (pthread_cond_timedwait(&rec->wake, &rec->lock, &ts) == ETIMEDOUT)
			break;
	}
	stopping = rec->stopping;
	pthread_mutex_unlock(&rec->lock);
	return stopping;
}

static void count_failed(struct vc_events *rec)
{
	pthread_mutex_lock(&rec->lock);
	rec->stats.failed++;
	pthread_mutex_unlock(&rec->lock);
}

/* recordToSink: correlate p (owned), then write it with retries. */
static void handle(struct vc_events *rec, struct pending *p)
{
	struct vc_error err;
	bool patch = false;
	int rc, tries = 0;
	double share;

	pthread_mutex_lock(&rec->corr_lock);
	rc = correlate(rec, p, &patch);
	if (rc == 1) {
		pthread_mutex_lock(&rec->lock);
		rec->stats.filtered++;
		pthread_mutex_unlock(&rec->lock);
		VC_LOG(VC_LOG_V(4), "event filtered as spam", "%s=%s/%s reason=%s", p->obj.kind,
		       p->obj.ns ? p->obj.ns : "", p->obj.name, p->reason);
		goto out;
	}
	if (rc) {
		count_failed(rec);
		VC_ERROR("cannot correlate event, dropped", "%s=%s/%s reason=%s err=\"%s\"",
			 p->obj.kind, p->obj.ns ? p->obj.ns : "", p->obj.name, p->reason,
			 vc_strerror(rc));
		goto out;
	}
	for (;;) {
		vc_error_clear(&err);
		rc = write_event(rec, p, patch, &err);
		if (rc == 0) {
			update_state(rec, p);
			break;
		}
		if (!retryable(rc)) {
			count_failed(rec);
			if (rc == VC_EALREADYEXISTS || strstr(err.text, "being terminated"))
				VC_LOG(VC_LOG_V(5), "server rejected event (will not retry!)",
				       "event=%s/%s err=\"%s\"", p->ns, p->name, err.text);
			else
				VC_ERROR("server rejected event (will not retry!)",
					 "event=%s/%s reason=%s err=\"%s\"", p->ns, p->name,
					 p->reason, err.text);
			break;
		}
		if (++tries >= rec->max_tries) {
			count_failed(rec);
			VC_ERROR("unable to write event (retry limit exceeded!)",
				 "event=%s/%s reason=%s err=\"%s\"", p->ns, p->name, p->reason,
				 err.text);
			break;
		}
		VC_ERROR("unable to write event (may retry after sleeping)",
			 "event=%s/%s reason=%s err=\"%s\"", p->ns, p->name, p->reason, err.text);
		/* The first sleep is random, so clients do not retry in lock step. */
		share = tries == 1 ? (double)(next_random(rec) >> 11) / (double)(UINT64_C(1) << 53)
				   : 1.0;
		if (sleep_or_stop(rec, (int64_t)(share * (double)rec->retry_sleep))) {
			count_failed(rec);
			break;
		}
	}
out:
	pthread_mutex_unlock(&rec->corr_lock);
	pending_free(p);
}

/* Take the oldest queued event; the caller holds rec->lock and knows the queue is not empty. */
static struct pending *pop(struct vc_events *rec)
{
	struct pending *p = rec->ring[rec->head];

	rec->ring[rec->head] = NULL;
	rec->head = (rec->head + 1) % rec->queue_len;
	rec->count--;
	return p;
}

static void *sender_main(void *arg)
{
	struct vc_events *rec = arg;
	struct pending *p;

	pthread_mutex_lock(&rec->lock);
	for (;;) {
		while (!rec->count && !rec->stopping)
			pthread_cond_wait(&rec->wake, &rec->lock);
		if (!rec->count)
			break;
		if (rec->stopping && real_mono_ns() >= rec->drain_deadline)
			break;
		p = pop(rec);
		rec->busy = true;
		pthread_mutex_unlock(&rec->lock);
		handle(rec, p);
		pthread_mutex_lock(&rec->lock);
		rec->busy = false;
		if (!rec->count)
			pthread_cond_broadcast(&rec->idle);
	}
	pthread_cond_broadcast(&rec->idle);
	pthread_mutex_unlock(&rec->lock);
	return NULL;
}

size_t vc_events_process(struct vc_events *rec)
{
	struct pending *p;
	size_t n = 0;

	pthread_mutex_lock(&rec->lock);
	if (rec->started) {
		pthread_mutex_unlock(&rec->lock);
		return 0;
	}
	while (rec->count) {
		p = pop(rec);
		pthread_mutex_unlock(&rec->lock);
		handle(rec, p);
		n++;
		pthread_mutex_lock(&rec->lock);
	}
	pthread_mutex_unlock(&rec->lock);
	return n;
}

int vc_events_flush(struct vc_events *rec, int64_t timeout_ns)
{
	struct timespec ts = abs_time(real_mono_ns() + (timeout_ns > 0 ? timeout_ns : 0));
	int rc = 0;

	pthread_mutex_lock(&rec->lock);
	if (!rec->started) {
		pthread_mutex_unlock(&rec->lock);
		(void)vc_events_process(rec);
		return 0;
	}
	while (rec->count || rec->busy) {
		if (pthread_cond_timedwait(&rec->idle, &rec->lock, &ts) == ETIMEDOUT) {
			rc = rec->count || rec->busy ? VC_ETIMEDOUT : 0;
			break;
		}
	}
	pthread_mutex_unlock(&rec->lock);
	return rc;
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

static int init_sync(struct vc_events *rec)
{
	pthread_condattr_t attr;
	int rc;

	rc = pthread_condattr_init(&attr);
	if (rc)
		return -rc;
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc)
		goto out_attr;
	rc = pthread_mutex_init(&rec->lock, NULL);
	if (rc)
		goto out_attr;
	rc = pthread_mutex_init(&rec->corr_lock, NULL);
	if (rc)
		goto out_lock;
	rc = pthread_cond_init(&rec->wake, &attr);
	if (rc)
		goto out_corr;
	rc = pthread_cond_init(&rec->idle, &attr);
	if (rc)
		goto out_wake;
	pthread_condattr_destroy(&attr);
	return 0;

out_wake:
	pthread_cond_destroy(&rec->wake);
out_corr:
	pthread_mutex_destroy(&rec->corr_lock);
out_lock:
	pthread_mutex_destroy(&rec->lock);
out_attr:
	pthread_condattr_destroy(&attr);
	return -rc;
}

int vc_events_new(struct vc_kube *kube, const struct vc_events_config *cfg, struct vc_events **out,
		  struct vc_error *err)
{
	struct vc_events *rec;
	size_t cache;
	int rc;

	if (!out)
		return vc_error_set(err, VC_EINVAL, "no output for the event recorder");
	*out = NULL;
	if (!kube || !cfg)
		return vc_error_set(err, VC_EINVAL,
				    "the event recorder needs a client and a config");
	if (!cfg->component || !cfg->component[0])
		return vc_error_set(err, VC_EINVAL, "the event recorder needs a source component");
	if (cfg->aggregate_max_events < 0 || cfg->spam_burst < 0 || cfg->max_tries < 0 ||
	    cfg->spam_qps < 0 || cfg->aggregate_interval_ns < 0 || cfg->retry_sleep_ns < 0)
		return vc_error_set(err, VC_EINVAL, "negative event recorder setting");

	rec = vc_calloc(1, sizeof(*rec));
	if (!rec)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rec->kube = kube;
	rec->queue_len = cfg->queue_len ? cfg->queue_len : VC_EVENTS_QUEUE_LEN;
	rec->spam_burst = cfg->spam_burst ? cfg->spam_burst : VC_EVENTS_SPAM_BURST;
	rec->spam_qps = cfg->spam_qps > 0 ? cfg->spam_qps : VC_EVENTS_SPAM_QPS;
	rec->agg_max = (size_t)(cfg->aggregate_max_events ? cfg->aggregate_max_events
							  : VC_EVENTS_AGGREGATE_MAX);
	rec->agg_interval = cfg->aggregate_interval_ns ? cfg->aggregate_interval_ns
						       : VC_EVENTS_AGGREGATE_INTERVAL;
	rec->max_tries = cfg->max_tries ? cfg->max_tries : VC_EVENTS_MAX_TRIES;
	rec->retry_sleep = cfg->retry_sleep_ns ? cfg->retry_sleep_ns : VC_EVENTS_RETRY_SLEEP;
	cache = cfg->cache_size ? cfg->cache_size : VC_EVENTS_CACHE_SIZE;
	if (getrandom(&rec->rng, sizeof(rec->rng), GRND_NONBLOCK) != (ssize_t)sizeof(rec->rng) ||
	    !rec->rng)
		rec->rng = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)vc_time_mono_ns();
	if (!rec->rng)
		rec->rng = 1;

	rec->component = vc_strdup(cfg->component);
	rec->host = cfg->host && cfg->host[0] ? vc_strdup(cfg->host) : NULL;
	rec->ring = vc_calloc(rec->queue_len, sizeof(struct pending *));
	if (!rec->component || (cfg->host && cfg->host[0] && !rec->host) || !rec->ring)
		goto fail_alloc;
	if (vc_lru_init(&rec->agg, cache, agg_free) || vc_lru_init(&rec->log, cache, log_free) ||
	    vc_lru_init(&rec->spam, cache, bucket_free))
		goto fail_alloc;
	rc = init_sync(rec);
	if (rc) {
		vc_error_set(err, rc, "cannot initialise the event recorder: %s", strerror(-rc));
		goto fail;
	}
	*out = rec;
	return 0;

fail_alloc:
	rc = vc_error_set(err, VC_ENOMEM, "out of memory");
fail:
	vc_lru_release(&rec->agg);
	vc_lru_release(&rec->log);
	vc_lru_release(&rec->spam);
	vc_free(rec->ring);
	vc_free(rec->component);
	vc_free(rec->host);
	vc_free(rec);
	return rc;
}

int vc_events_start(struct vc_events *rec)
{
	int rc;

	pthread_mutex_lock(&rec->lock);
	if (rec->started || rec->closed) {
		pthread_mutex_unlock(&rec->lock);
		return VC_EINVAL;
	}
	rc = pthread_create(&rec->thread, NULL, sender_main, rec);
	if (rc == 0)
		rec->started = true;
	pthread_mutex_unlock(&rec->lock);
	return -rc;
}

void vc_events_stop(struct vc_events *rec, int64_t drain_ns)
{
	bool join;
	size_t dropped = 0;

	if (!rec)
		return;
	pthread_mutex_lock(&rec->lock);
	if (rec->closed) {
		pthread_mutex_unlock(&rec->lock);
		return;
	}
	rec->closed = true;
	rec->drain_deadline = real_mono_ns() + (drain_ns > 0 ? drain_ns : 0);
	rec->stopping = true;
	join = rec->started;
	pthread_cond_broadcast(&rec->wake);
	pthread_mutex_unlock(&rec->lock);
	if (join)
		pthread_join(rec->thread, NULL);

	pthread_mutex_lock(&rec->lock);
	while (rec->count) {
		pending_free(pop(rec));
		dropped++;
	}
	rec->stats.failed += dropped;
	pthread_mutex_unlock(&rec->lock);
	if (dropped)
		VC_WARN("events dropped at shutdown", "count=%zu", dropped);
}

void vc_events_get_stats(struct vc_events *rec, struct vc_events_stats *out)
{
	pthread_mutex_lock(&rec->lock);
	*out = rec->stats;
	pthread_mutex_unlock(&rec->lock);
}

void vc_events_free(struct vc_events *rec)
{
	if (!rec)
		return;
	vc_events_stop(rec, 0);
	vc_lru_release(&rec->agg);
	vc_lru_release(&rec->log);
	vc_lru_release(&rec->spam);
	pthread_cond_destroy(&rec->idle);
	pthread_cond_destroy(&rec->wake);
	pthread_mutex_destroy(&rec->corr_lock);
	pthread_mutex_destroy(&rec->lock);
	vc_free(rec->ring);
	vc_free(rec->component);
	vc_free(rec->host);
	vc_free(rec);
}
