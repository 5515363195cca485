/*
 * vc_leader.h - leader election on a coordination.k8s.io/v1 Lease (client-go's leaderelection
 * with a LeaseLock), as Volcano's vc-controller-manager and vc-scheduler run it.
 *
 * Several replicas of a daemon campaign for one Lease; the holder (the leader) runs the control
 * loops, the others wait. The algorithm is client-go's tryAcquireOrRenew:
 *
 *   - GET the Lease. 404: create it with us as holder (AlreadyExists means another replica won).
 *   - The Lease is held by another identity and has not expired: not leader, try again later.
 *     "Expired" is judged on OUR monotonic clock: the Lease is valid until leaseDurationSeconds
 *     after the moment we last saw its record (holder, times, duration, transitions) change. The
 *     timestamps inside the Lease are never compared with our clock, so clock skew between
 *     replicas does not matter, only clock rate.
 *   - Otherwise PUT the Lease with the resourceVersion we read, with us as holder: renewTime now;
 *     acquireTime now and leaseTransitions + 1 when the holder changes, both kept on a renewal.
 *     A Conflict means another replica got there first: not leader.
 *   - A leader that still holds a valid lease renews with a PUT of the object it last wrote, no
 *     GET (client-go's optimistic fast path); a failure falls back to the GET path.
 *
 * Times in the Lease are metav1.MicroTime ("2006-01-02T15:04:05.000000Z").
 *
 * The leader renews every retry period. When no renewal has succeeded for the renew deadline, or
 * when a renewal finds the Lease held by someone else, leadership is lost: on_stopped_leading is
 * called and this elector stops campaigning for good (client-go's Run returns; Volcano's daemons
 * then exit with "leaderelection lost"). A new elector is needed to campaign again.
 *
 * A graceful stop (vc_leader_stop) of a leader with release_on_cancel releases the Lease
 * (client-go's ReleaseOnCancel): holderIdentity "", leaseDurationSeconds 1, so a standby takes
 * over at its next retry instead of after a full lease duration.
 *
 * Time: every clock read goes through vc_time_now_ns() (timestamps written to the Lease) and
 * vc_time_mono_ns() (expiry and deadlines), so tests replace both and drive the elector with
 * vc_leader_step(), which is exactly one iteration of the background loop, without sleeping.
 *
 * Threads: vc_leader_start() runs the loop in a thread of its own; callbacks are called from
 * that thread (or from the thread calling vc_leader_step), never with a lock held, and must
 * return quickly (start the controllers in their own threads). vc_leader_is_leader() and
 * vc_leader_get_leader() may be called from any thread.
 */
#ifndef VC_LEADER_H
#define VC_LEADER_H

#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_flags.h"
#include "vc_kube.h"

struct vc_events;

/* Volcano's defaults (pkg/util LeaderElectionDefault and the controller manager's flags). */
#define VC_LEADER_DEFAULT_LEASE_DURATION "15s"
#define VC_LEADER_DEFAULT_RENEW_DEADLINE "10s"
#define VC_LEADER_DEFAULT_RETRY_PERIOD	 "2s"
#define VC_LEADER_DEFAULT_NAMESPACE	 "volcano-system"
#define VC_LEADER_RESOURCE_LOCK		 "leases"
/* client-go's JitterFactor: a candidate waits retry * (1 + rand[0, 1.2)) between attempts. */
#define VC_LEADER_JITTER_FACTOR 1.2

/*
 * The flags of a daemon that elects a leader. The string fields point into argv or at the
 * default literals (vc_flags' VC_FLAG_STRING); durations are nanoseconds.
 */
struct vc_leader_config {
	bool leader_elect;		/* --leader-elect (Volcano's default: true) */
	int64_t lease_duration_ns;	/* --leader-elect-lease-duration, 15s */
	int64_t renew_deadline_ns;	/* --leader-elect-renew-deadline, 10s */
	int64_t retry_period_ns;	/* --leader-elect-retry-period, 2s */
	const char *resource_lock;	/* --leader-elect-resource-lock, "leases" (the only one) */
	const char *resource_name;	/* --leader-elect-resource-name, per binary */
	const char *resource_namespace; /* --leader-elect-resource-namespace, volcano-system */
	/*
	 * --lock-object-namespace: Volcano's older, deprecated flag, default volcano-system. As in
	 * Volcano, when it is not empty it overrides --leader-elect-resource-namespace (see
	 * vc_leader_config_namespace).
	 */
	const char *lock_object_namespace;
	/* Not a flag: release the Lease on vc_leader_stop (client-go's ReleaseOnCancel). */
	bool release_on_cancel;
};

/*
 * The flag table rows for a daemon's config struct T whose struct vc_leader_config member is M,
 * with the Lease name default NAME (a string literal: "vc-controller-manager", "vc-scheduler").
 * Put it inside the daemon's `static const struct vc_flag flags[] = { ..., VC_LEADER_FLAGS(...),
 * ... };`. Names, defaults and help texts are Volcano's (component-base BindLeaderElectionFlags
 * plus --lock-object-namespace). release_on_cancel is not a flag: set it after parsing.
 */
/* The offset of field F of the struct vc_leader_config member M of T. */
#define VC_LEADER_OFF_(T, M, F) (offsetof(T, M) + offsetof(struct vc_leader_config, F))

/* clang-format off */
#define VC_LEADER_FLAGS(T, M, NAME)                                                                \
	{ "leader-elect", VC_FLAG_BOOL, "true", 0, 0, VC_LEADER_OFF_(T, M, leader_elect),          \
	  "Start a leader election client and gain leadership before executing the main loop. "    \
	  "Enable this when running replicated components for high availability." },               \
	{ "leader-elect-lease-duration", VC_FLAG_DURATION, VC_LEADER_DEFAULT_LEASE_DURATION, 0, 0, \
	  VC_LEADER_OFF_(T, M, lease_duration_ns),                                                 \
	  "The duration that non-leader candidates will wait after observing a leadership "        \
	  "renewal until attempting to acquire leadership of a led but unrenewed leader slot. "    \
	  "This is effectively the maximum duration that a leader can be stopped before it is "    \
	  "replaced by another candidate. This is only applicable if leader election is "          \
	  "enabled." },                                                                            \
	{ "leader-elect-renew-deadline", VC_FLAG_DURATION, VC_LEADER_DEFAULT_RENEW_DEADLINE, 0, 0, \
	  VC_LEADER_OFF_(T, M, renew_deadline_ns),                                                 \
	  "The interval between attempts by the acting master to renew a leadership slot before "  \
	  "it stops leading. This must be less than or equal to the lease duration. This is "      \
	  "only applicable if leader election is enabled." },                                      \
	{ "leader-elect-retry-period", VC_FLAG_DURATION, VC_LEADER_DEFAULT_RETRY_PERIOD, 0, 0,     \
	  VC_LEADER_OFF_(T, M, retry_period_ns),                                                   \
	  "The duration the clients should wait between attempting acquisition and renewal of a "  \
	  "leadership. This is only applicable if leader election is enabled." },                  \
	{ "leader-elect-resource-lock", VC_FLAG_STRING, VC_LEADER_RESOURCE_LOCK, 0, 0,             \
	  VC_LEADER_OFF_(T, M, resource_lock),                                                     \
	  "The type of resource object that is used for locking during leader election. "          \
	  "Supported options are 'leases'." },                                                     \
	{ "leader-elect-resource-name", VC_FLAG_STRING, NAME, 0, 0,                                \
	  VC_LEADER_OFF_(T, M, resource_name),                                                     \
	  "The name of resource object that is used for locking during leader election." },        \
	{ "leader-elect-resource-namespace", VC_FLAG_STRING, VC_LEADER_DEFAULT_NAMESPACE, 0, 0,    \
	  VC_LEADER_OFF_(T, M, resource_namespace),                                                \
	  "The namespace of resource object that is used for locking during leader election." },   \
	{ "lock-object-namespace", VC_FLAG_STRING, VC_LEADER_DEFAULT_NAMESPACE, 0, 0,              \
	  VC_LEADER_OFF_(T, M, lock_object_namespace),                                             \
	  "Define the namespace of the lock object; it is volcano-system by default. "             \
	  "Deprecated: use --leader-elect-resource-namespace instead." }
/* clang-format on */

/*
 * Fill cfg with the defaults of the flags above (for programs that do not parse flags):
 * leader_elect true, 15s / 10s / 2s, lock "leases", resource_name `name` (borrowed: it must
 * outlive cfg), both namespaces "volcano-system", release_on_cancel true.
 */
void vc_leader_config_defaults(struct vc_leader_config *cfg, const char *name);

/*
 * The namespace of the Lease: lock_object_namespace when it is not NULL or empty (Volcano keeps
 * the deprecated flag winning), else resource_namespace. Borrowed from cfg; NULL when both are
 * empty.
 */
const char *vc_leader_config_namespace(const struct vc_leader_config *cfg);

/*
 * Check cfg as Volcano does before starting. With leader_elect false everything is accepted.
 * Otherwise returns VC_EINVAL with component-base's messages, several joined as Go's
 * errors.NewAggregate does ("[a, b]"):
 *   leaderElection.leaseDuration: Invalid value: 0s: must be greater than zero
 *   leaderElection.renewDeadline: Invalid value: 0s: must be greater than zero
 *   leaderElection.retryPeriod: Invalid value: 0s: must be greater than zero
 *   leaderElection.leaseDuration: Invalid value: 20s: LeaseDuration must be greater than
 *     RenewDeadline                      (the value shown is the renew deadline)
 *   leaderElection.resourceLock: Invalid value: "": resourceLock is required
 *   leaderElection.resourceNamespace: Invalid value: "": resourceNamespace is required
 *   leaderElection.resourceName: Invalid value: "": resourceName is required
 * then client-go's checks of NewLeaderElector and resourcelock.New, one at a time:
 *   leaseDuration must be greater than renewDeadline
 *   renewDeadline must be greater than retryPeriod*JitterFactor
 *   leaseDuration must be at least one second         (the Lease counts whole seconds)
 *   couldn't create resource lock: Invalid lock-type <lock>      (anything but "leases")
 */
int vc_leader_config_validate(const struct vc_leader_config *cfg, struct vc_error *err);

/*
 * A new identity as Volcano makes it: the host name, "_", and a random (version 4) UUID, so two
 * processes on one host never share it. Returns a new string (vc_free it), or NULL when memory
 * or the random source fails.
 */
char *vc_leader_new_identity(void) VC_WARN_UNUSED;

struct vc_leader_callbacks {
	/* This elector became the leader. */
	void (*on_started_leading)(void *ctx);
	/*
	 * This elector lost leadership (renew deadline passed, or the Lease was taken). Not called
	 * for a graceful vc_leader_stop, which the daemon asked for itself.
	 */
	void (*on_stopped_leading)(void *ctx);
	/*
	 * The observed holder changed (the first observation included, our own identity included):
	 * identity is borrowed for the call; "" means the Lease was released and is free.
	 */
	void (*on_new_leader)(void *ctx, const char *identity);
	void *ctx;
};

struct vc_leader;

/*
 * A new elector for the Lease vc_leader_config_namespace(cfg)/cfg->resource_name, talking
 * through kube (borrowed: it must outlive the elector). cfg is checked with
 * vc_leader_config_validate (leader_elect is ignored: creating an elector means electing) and
 * copied. identity NULL means vc_leader_new_identity(); it is copied. cb may be NULL and is
 * copied. Nothing is sent to the API server before the first step. Returns 0 and *out, or
 * VC_EINVAL (with the validation message) / VC_ENOMEM.
 */
int vc_leader_new(struct vc_kube *kube, const struct vc_leader_config *cfg, const char *identity,
		  const struct vc_leader_callbacks *cb, struct vc_leader **out,
		  struct vc_error *err) VC_WARN_UNUSED;

/*
 * Also record client-go's Events on the Lease: Normal, reason LeaderElection, message
 * "<identity> became leader" and "<identity> stopped leading". rec is borrowed and must outlive
 * the elector; NULL turns it off. Call before vc_leader_start.
 */
void vc_leader_set_recorder(struct vc_leader *le, struct vc_events *rec);

/*
 * One iteration of the loop: one tryAcquireOrRenew at the current time (vc_time_now_ns and
 * vc_time_mono_ns), then the transitions it implies, with their callbacks in client-go's order
 * (on_new_leader, then on_started_leading; or on_stopped_leading). Returns true when this elector
 * is the leader afterwards. After leadership was lost, or after vc_leader_stop, a step does
 * nothing and returns false. Must not be called while the thread of vc_leader_start runs.
 */
bool vc_leader_step(struct vc_leader *le);

/*
 * How long the loop waits after a step: the retry period for a leader; for a candidate the retry
 * period plus a random share of up to VC_LEADER_JITTER_FACTOR times it (client-go's
 * wait.JitterUntil), so candidates do not poll in lock step.
 */
int64_t vc_leader_next_delay_ns(struct vc_leader *le);

/*
 * Run the loop in a new thread: a step at once, then one after each vc_leader_next_delay_ns
 * (measured on the real monotonic clock). Returns 0, VC_EINVAL when already started or after
 * vc_leader_stop, or a negative errno from pthread_create.
 */
int vc_leader_start(struct vc_leader *le) VC_WARN_UNUSED;

/*
 * Stop campaigning: end the thread (if started; waits for a step in flight), then, if this
 * elector leads and release_on_cancel is set, release the Lease with a PUT of holderIdentity "",
 * leaseDurationSeconds 1, renewTime and acquireTime now and leaseTransitions unchanged. A failed
 * release is logged; the Lease then expires by itself. No callback is called. Idempotent.
 */
void vc_leader_stop(struct vc_leader *le);

/* True while this elector holds leadership. Any thread. */
bool vc_leader_is_leader(struct vc_leader *le);

/* This elector's identity (borrowed, lives as long as le). */
const char *vc_leader_identity(const struct vc_leader *le);

/*
 * Copy the last observed holder identity into buf (client-go's GetLeader); "" when none was
 * observed or the Lease was released. Returns 0, or VC_E2BIG when it does not fit (buf then
 * holds "" if len > 0). Any thread.
 */
int vc_leader_get_leader(struct vc_leader *le, char *buf, size_t len);

/* vc_leader_stop, then free. NULL is a no-op. */
void vc_leader_free(struct vc_leader *le);

#endif /* VC_LEADER_H */
