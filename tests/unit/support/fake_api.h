/*
 * fake_api.h - the fake API server of the unit tests, and the fake clock and log capture they
 * share (fake_api.c is linked into every unit test).
 *
 * A struct fake is plugged into the code under test as a struct vc_kube in one of two ways.
 *
 * As an API server (fake_ops: fake_kube(), fake_ctx_init()) it keeps an object store per
 * resource. Lists serve the store, so the informers of a struct vc_ctrl_ctx built on it start
 * from it. A watch delivers the events a test pushes with fake_emit(), which returns only once
 * the informer delivered the event (the cache holds it and the handlers ran), so tests never race
 * their informers. Every other call (get, create, update, patch, delete) is appended to a log as
 * one line,
 *   VERB PATH [PATCHTYPE] BODY
 * with the body compact and its keys sorted, and applied to the store (writes do not emit
 * events: a test that wants the informers to see a write emits it). A rule (fake_fail) makes a
 * call fail.
 *
 * As a call recorder (fake_recorder_ops: fake_recorder()) it keeps every write as a struct
 * fake_call for the test to inspect, and answers it from the failure injection alone.
 *
 * Test data is written with single quotes for readability: J() and fake_expect() turn every '
 * into ". Every function here may be called from any thread except where it says otherwise;
 * the ones that check something fail the running cmocka test when the check fails.
 */
#ifndef FAKE_API_H
#define FAKE_API_H

#include "vc_prelude.h"

#include <pthread.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ctx.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

#define FAKE_LOG_MAX   65536
#define FAKE_MAX_RULES 16

#define FAKE_MAX_CALLS	256
#define FAKE_MAX_SCRIPT 16

/*
 * A failure rule: for fake_ops, VERB PATH (path set); for fake_recorder_ops, a one-letter verb
 * with resource and subresource (path empty, sub "" for the main resource).
 */
struct fake_rule {
	char verb[8];
	char path[256];
	char resource[32];
	char sub[32];
	char message[128]; /* recorder rules: the error text */
	int rc;
	int times; /* < 0: always */
};

/* A call seen by fake_recorder_ops. */
struct fake_call {
	char verb; /* C(reate) U(pdate) P(atch) D(elete) G(et) */
	char resource[32];
	char ns[64];
	char name[128];		 /* create without a name: the object's metadata.name */
	char sub[32];		 /* "" for the main resource */
	enum vc_patch_type type; /* VC_PATCH_MERGE unless a patch said otherwise */
	char precondition[64];	 /* delete: the precondition uid */
	json_t *body; /* owned copy of the object or patch; NULL for delete (and see nomem_recorded)
		       */
};

/*
 * Tests embed one and use the functions below; recorder tests also read calls, ncalls and
 * attempts (holding lock while other threads may call) and set fail_always, record_failed and
 * nomem_recorded directly.
 */
struct fake {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	json_t *store;	 /* resource -> { key -> object } */
	json_t *pending; /* resource -> [ [type, object], ... ] */
	unsigned long pushed, delivered;
	long rv;
	char log[FAKE_LOG_MAX];
	struct fake_rule rules[FAKE_MAX_RULES];
	size_t nrules;
	/* fake_recorder_ops */
	struct fake_call calls[FAKE_MAX_CALLS];
	int ncalls;		     /* calls recorded */
	int attempts;		     /* calls made, failed ones included */
	int script[FAKE_MAX_SCRIPT]; /* the answers of the next calls (0: success) */
	int nscript, next;
	int fail_always;     /* when set, every call fails with it */
	bool record_failed;  /* failed calls are recorded too (else only counted in attempts) */
	bool nomem_recorded; /* a body that cannot be copied is recorded as NULL (else ENOMEM) */
	char hold_resource[32], hold_sub[32]; /* patches of these wait while hold is set */
	bool hold;
};

/* The operations of the fake API server (ctx is the struct fake). */
extern const struct vc_kube_ops fake_ops;
/*
 * The operations of the call recorder (ctx is the struct fake): create, update, patch and
 * delete are recorded in f->calls and never applied to the store; get is recorded too (verb
 * 'G') and answered with a copy of the stored object (fake_put), VC_ENOTFOUND when absent;
 * there is no list or watch. Each call counts in f->attempts and is answered, in this order, by
 * f->fail_always, the next scripted code (both with the text "injected <code>"), a matching
 * fake_fail_call rule, or success. A failed call is recorded only when f->record_failed is set. The
 * call after the FAKE_MAX_CALLS-th recorded one fails with VC_EINVAL. A patch that fake_hold holds
 * is recorded first and then waits.
 */
extern const struct vc_kube_ops fake_recorder_ops;

/* ---- small helpers ------------------------------------------------------------------------- */

/* JSON text with ' for " (a new reference; aborts the test on bad JSON). */
json_t *fake_json(const char *text);
#define J(text) fake_json(text)

/* ---- the fake API server ------------------------------------------------------------------ */

/*
 * Initialise f with an empty store, log and rule set. Also sends the library's log lines to a
 * sink that shows them only when the environment variable CTL_FAKE_LOG is set (the tests make
 * calls fail on purpose).
 */
void fake_init(struct fake *f);
/* Release what fake_init took; no client of f may be in use any more. */
void fake_release(struct fake *f);
/* A client whose calls go to f (free with vc_kube_free before fake_release). Never NULL. */
struct vc_kube *fake_kube(struct fake *f);

/*
 * A client on f in *kube and, in ctx, a controller context on it with the informers o asks for
 * (no events recorder). Undo with fake_ctx_release.
 */
void fake_ctx_init(struct fake *f, struct vc_kube **kube, struct vc_ctrl_ctx *ctx,
		   const struct ctx_opts *o);
/* Start ctx's informers and wait (at most 10 s) until their first lists are in the caches. */
void fake_ctx_start(struct vc_ctrl_ctx *ctx);
/* Release ctx (stopped: ctx_stop), then the client kube, then f. */
void fake_ctx_release(struct fake *f, struct vc_kube *kube, struct vc_ctrl_ctx *ctx);

/* Put obj (stolen) into the store without an event: what the informers' first list sees. */
void fake_put(struct fake *f, const struct vc_gvr *r, json_t *obj);
/*
 * Apply an event to the store and deliver it through the watch of resource r: type ADDED,
 * MODIFIED or DELETED, obj stolen. Returns once the informer has handled it.
 */
void fake_emit(struct fake *f, const struct vc_gvr *r, enum vc_watch_event_type type, json_t *obj);
/* Deliver the stored object under key ("ns/name" or "name") as a MODIFIED event. */
void fake_touch(struct fake *f, const struct vc_gvr *r, const char *key);
/* A copy of the stored object under key (NULL when absent); new reference. */
json_t *fake_stored(struct fake *f, const struct vc_gvr *r, const char *key);
/* Whether the store holds key. */
bool fake_has(struct fake *f, const struct vc_gvr *r, const char *key);

/* Make the next `times` calls VERB PATH fail with rc (times < 0: every call). */
void fake_fail(struct fake *f, const char *verb, const char *path, int rc, int times);
/* Assert that the log is exactly `want` (with ' for "), then clear it. */
void fake_expect(struct fake *f, const char *want);
/* Clear the log. */
void fake_clear(struct fake *f);

/* ---- the call recorder ------------------------------------------------------------------- */

/* A client whose calls go to f's recorder (fake_recorder_ops). Never NULL. */
struct vc_kube *fake_recorder(struct fake *f);
/* The next n recorder calls answer the given codes in turn (0: success); then success again. */
void fake_script(struct fake *f, int n, ...);
/*
 * Make the next recorder call verb (a letter of struct fake_call) of resource/sub (NULL: the
 * main resource) fail once with rc and message.
 */
void fake_fail_call(struct fake *f, char verb, const char *resource, const char *sub, int rc,
		    const char *message);
/* Forget the recorded calls, the attempts and the failure rules. */
void fake_reset_calls(struct fake *f);
/* While on, recorder patches of resource/sub wait (sub NULL: the main resource). */
void fake_hold(struct fake *f, const char *resource, const char *sub, bool on);
/* The number of calls recorded. */
int fake_ncalls(struct fake *f);
/* Wait (at most 10 s) until n calls are recorded; asserts that they are. */
void fake_wait_calls(struct fake *f, int n);
/* Call i as "C pods ns/name/binding" (namespace and subresource only when set). */
void fake_call_str(struct fake *f, int i, char *buf, size_t len);
/* The index of the first call verb of resource/sub (and name unless NULL); fails if none. */
int fake_find_call(struct fake *f, char verb, const char *resource, const char *name,
		   const char *sub);

/* ---- log capture ------------------------------------------------------------------------- */

/* The last log line at VC_LOG_WARN or more severe since fake_log_capture ("" when none). */
extern char fake_last_error[1024];
/* Clear fake_last_error and send the library's log lines to the sink that fills it. */
void fake_log_capture(void);

/* ---- the injected clock ------------------------------------------------------------------ */

/*
 * Install the fake clock (vc_time_set_source) with the wall clock at Unix time sec and the
 * monotonic clock at the same value. The clock is process-wide; it stays installed until the
 * test installs another source.
 */
void fake_clock_set(int64_t sec);
/* Install the fake clock with the wall clock at wall_ns and the monotonic clock at mono_ns. */
void fake_clock_set_ns(int64_t wall_ns, int64_t mono_ns);
/* Move both clocks forward by ns, as they move together on a real machine. */
void fake_clock_advance(int64_t ns);
/* cmocka fixtures: install the fake clock at Unix time 1000 s; put the real clock back. */
int fake_clock_setup(void **state);
int fake_clock_teardown(void **state);

#endif /* FAKE_API_H */
