/*
 * vc_events.h - the Kubernetes Event recorder: client-go's record.EventRecorder with its
 * EventCorrelator, writing core/v1 Events.
 *
 * A controller calls vc_event_record() from any thread; it never blocks on the API server. The
 * event goes into a bounded queue (full: it is dropped with a log line, as client-go's
 * broadcaster does) and a sender thread writes it:
 *
 *   - as a core/v1 Event named "<involved name>.<hex Unix nanoseconds>" in the involved object's
 *     namespace ("default" for cluster-scoped objects), with involvedObject, reason, message,
 *     type, source.component (and source.host), reportingComponent, reportingInstance,
 *     firstTimestamp, lastTimestamp and count 1;
 *   - an identical event (same source, involved object, type, reason and message) seen again is
 *     not created anew: the first one's count is raised and its lastTimestamp (and message) set
 *     by a strategic merge patch {"count":N,"lastTimestamp":"...","message":"..."}; when the
 *     patch finds the Event gone (NotFound) it is created again with that count;
 *   - similar events (same source, object, type and reason, different messages): once
 *     aggregate_max_events (10) distinct messages were seen with no gap longer than
 *     aggregate_interval (10 minutes), further new messages are folded into one Event whose
 *     message is "(combined from similar events): <latest message>" and whose count grows;
 *   - a spam filter: each source + involved object has a token bucket of spam_burst (25) events
 *     refilled at spam_qps (one per 5 minutes); an event that finds it empty is dropped. As in
 *     client-go it runs after the counting above, so repeats count against the same bucket.
 * These are client-go's events_cache.go constants (defaultSpamBurst, defaultSpamQPS,
 * defaultAggregateMaxEvents, defaultAggregateIntervalInSeconds, maxLruCacheEntries), and each of
 * the three caches is an LRU of cache_size (4096) entries.
 *
 * Writing failures: a transport failure (VC_EIO, VC_ETIMEDOUT) is retried up to max_tries (12)
 * times retry_sleep (10 s) apart, the first sleep randomised (client-go's recordToSink). An
 * answer from the server (AlreadyExists, Invalid, Forbidden for a terminating namespace, ...) is
 * final: logged, not retried. The client itself already retries 429 and 5xx.
 *
 * Time: event timestamps come from vc_time_now_ns(); aggregation windows and the spam buckets use
 * vc_time_now_ns() and vc_time_mono_ns() at the moment the sender handles the event. Tests
 * replace the clock, do not start the thread, and call vc_events_process() to handle the queue in
 * their own thread. Only the sender's retry sleeps and vc_events_flush/stop deadlines use the
 * real monotonic clock.
 */
#ifndef VC_EVENTS_H
#define VC_EVENTS_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_kube.h"

/* client-go's constants. */
#define VC_EVENTS_QUEUE_LEN	     1000 /* maxQueuedEvents */
#define VC_EVENTS_CACHE_SIZE	     4096 /* maxLruCacheEntries */
#define VC_EVENTS_SPAM_BURST	     25
#define VC_EVENTS_SPAM_QPS	     (1.0 / 300.0)
#define VC_EVENTS_AGGREGATE_MAX	     10
#define VC_EVENTS_AGGREGATE_INTERVAL (600 * INT64_C(1000000000))
#define VC_EVENTS_MAX_TRIES	     12
#define VC_EVENTS_RETRY_SLEEP	     (10 * INT64_C(1000000000))
#define VC_EVENTS_AGGREGATE_PREFIX   "(combined from similar events): "

/* Settings; a zero field takes the default named beside it. */
struct vc_events_config {
	const char *component;	       /* source.component and reportingComponent; required */
	const char *host;	       /* source.host and reportingInstance; NULL or "" = none */
	size_t queue_len;	       /* events waiting for the sender: VC_EVENTS_QUEUE_LEN */
	size_t cache_size;	       /* entries of each correlation cache: VC_EVENTS_CACHE_SIZE */
	int spam_burst;		       /* VC_EVENTS_SPAM_BURST */
	double spam_qps;	       /* VC_EVENTS_SPAM_QPS */
	int aggregate_max_events;      /* VC_EVENTS_AGGREGATE_MAX */
	int64_t aggregate_interval_ns; /* VC_EVENTS_AGGREGATE_INTERVAL */
	int max_tries;		       /* VC_EVENTS_MAX_TRIES */
	int64_t retry_sleep_ns;	       /* VC_EVENTS_RETRY_SLEEP */
};

/* An object reference (core/v1 ObjectReference) given field by field; NULL means absent. */
struct vc_object_ref {
	const char *api_version;
	const char *kind;
	const char *namespace;
	const char *name;
	const char *uid;
	const char *resource_version;
	const char *field_path;
};

struct vc_events_stats {
	uint64_t queued;   /* accepted by vc_event_record */
	uint64_t dropped;  /* refused by vc_event_record: queue full */
	uint64_t filtered; /* skipped by the spam filter */
	uint64_t created;  /* Events created (POST) */
	uint64_t patched;  /* counts raised (PATCH) */
	uint64_t failed;   /* given up: rejected by the server, retries exhausted, or stopping */
};

struct vc_events;

/*
 * A new recorder writing through kube (borrowed: it must outlive the recorder). cfg is copied
 * (strings too). The sender thread is not started: see vc_events_start. Returns 0 and *out;
 * VC_EINVAL (no component, or an argument NULL) or VC_ENOMEM with a message.
 */
int vc_events_new(struct vc_kube *kube, const struct vc_events_config *cfg, struct vc_events **out,
		  struct vc_error *err) VC_WARN_UNUSED;

/*
 * Start the sender thread. Returns 0; VC_EINVAL when already started or stopped; a negative
 * errno from pthread_create.
 */
int vc_events_start(struct vc_events *rec) VC_WARN_UNUSED;

/*
 * Record an event about obj (borrowed; read during the call only): its apiVersion, kind,
 * metadata.namespace, metadata.name, metadata.uid and metadata.resourceVersion make the
 * involvedObject. type must be "Normal" or "Warning"; reason may be NULL (empty); the message is
 * printf-formatted. Any thread; never blocks on the network (only on the queue's mutex).
 *
 * Returns 0 when queued; VC_EINVAL when rec or obj is NULL, the type is not supported, or obj has
 * no kind or no name (logged as client-go does: "unsupported event type", "could not construct
 * reference"); -EAGAIN when the queue is full (logged "unable to record event: too many queued
 * events, dropped event"); VC_ENOMEM. Objects of built-in kinds read from a List lack apiVersion
 * and kind: use vc_event_record_ref for those.
 */
int vc_event_record(struct vc_events *rec, const json_t *obj, const char *type, const char *reason,
		    const char *fmt, ...) VC_PRINTF(5, 6);

/* As vc_event_record, with the message's arguments as a va_list. */
int vc_event_recordv(struct vc_events *rec, const json_t *obj, const char *type, const char *reason,
		     const char *fmt, va_list ap) VC_PRINTF(5, 0);

/* As vc_event_record, with the involved object given field by field (ref borrowed). */
int vc_event_record_ref(struct vc_events *rec, const struct vc_object_ref *ref, const char *type,
			const char *reason, const char *fmt, ...) VC_PRINTF(5, 6);

/*
 * Handle every queued event in the calling thread (correlate, then create or patch), including
 * events queued meanwhile, and return how many were handled. For tests and programs that do not
 * start the thread; returns 0 at once when the thread was started.
 */
size_t vc_events_process(struct vc_events *rec);

/*
 * Wait until the queue is empty and no event is being written, for at most timeout_ns (real
 * time). Returns 0, or VC_ETIMEDOUT. Without a thread it calls vc_events_process and returns 0.
 */
int vc_events_flush(struct vc_events *rec, int64_t timeout_ns);

/*
 * Stop the sender: it writes what is queued for at most drain_ns (real time; retry sleeps are cut
 * short), then ends; events still queued are dropped and counted as failed. Later records are
 * refused with VC_ESHUTDOWN. Idempotent.
 */
void vc_events_stop(struct vc_events *rec, int64_t drain_ns);

/* A snapshot of the counters. Any thread. */
void vc_events_get_stats(struct vc_events *rec, struct vc_events_stats *out);

/* vc_events_stop(rec, 0), then free. NULL is a no-op. */
void vc_events_free(struct vc_events *rec);

#endif /* VC_EVENTS_H */
