/*
 * vc_explain.h - why a Volcano Job is not running: the first reason that holds it, from the
 * objects involved.
 *
 * One reasoning, two readers: `vcctl job explain` (the live objects, read from the API server)
 * and the job controller's PodGroupPending warning (its informer caches, which have no Events).
 * Each fills a struct vc_explain_in with what it has; a reason that needs an object the caller
 * lacks (the enqueue rejection is only in the PodGroup's Events) is then not found, and the next
 * one in the order is.
 */
#ifndef VC_EXPLAIN_H
#define VC_EXPLAIN_H

#include "vc_prelude.h"

#include <jansson.h>

/*
 * What the reasoning reads, all borrowed: the Job (NULL: it does not exist), its Queue (NULL:
 * none of that name), its PodGroup (NULL: none), a JSON array of the job's pods and a JSON array
 * of the Events of its namespace (either may be NULL: none), and the time Event ages are measured
 * from. The pods may be the controller's slim copies (ctx_slim_pod keeps every field read here).
 */
struct vc_explain_in {
	const char *ns, *name;
	const json_t *job;
	const json_t *queue;
	const json_t *podgroup;
	const json_t *pods;
	const json_t *events;
	int64_t now_ns;
};

/* The first reason that holds a job, in the order vc_explain checks them. */
enum vc_explain_why {
	VC_EXPLAIN_NOT_FOUND = 1,    /* the Job does not exist */
	VC_EXPLAIN_RUNNING,	     /* nothing holds it: Running */
	VC_EXPLAIN_COMPLETED,	     /* nothing holds it: Completed */
	VC_EXPLAIN_PHASE,	     /* Restarting, Aborting, Failed, ...: an action or command */
	VC_EXPLAIN_QUEUE_MISSING,    /* spec.queue names no Queue */
	VC_EXPLAIN_QUEUE_CLOSED,     /* the Queue is Closed or Closing */
	VC_EXPLAIN_NO_STATUS,	     /* the job controller never synced the Job */
	VC_EXPLAIN_NO_PODGROUP,	     /* the job controller made no PodGroup */
	VC_EXPLAIN_QUEUE_CAPABILITY, /* allocated + the job's minResources > capability */
	VC_EXPLAIN_ENQUEUE_REJECTED, /* an enqueue vote said no (overcommit, proportion, ...) */
	VC_EXPLAIN_QUEUE_DESERVED,   /* allocated + the job's minResources > deserved */
	VC_EXPLAIN_NOT_ENQUEUED,     /* the PodGroup is Pending with no reason recorded */
	VC_EXPLAIN_DEPENDS_ON,	     /* a task waits for a dependsOn task that is not ready */
	VC_EXPLAIN_GANG,	     /* the gang does not fit (PodGroup Unschedulable) */
	VC_EXPLAIN_STARTING,	     /* pods being created, or bound and not running yet */
	VC_EXPLAIN_UNKNOWN,	     /* none of the above */
};

/* Room for the reason sentence (longer ones are cut). */
#define VC_EXPLAIN_REASON_MAX 1024

/*
 * Explain in: return its reason, copy the reason sentence (the text of the Why line, e.g. "the
 * gang needs 5 tasks and only 4 fit") into reason (reason_len bytes; reason may be NULL), and
 * write the whole explanation to out (may be NULL: nothing is written):
 *
 *   Job <ns>/<name>: <phase>               ("not found", "(no status)")
 *   Why: <the first reason that holds the job>
 *   From: <object> <field>                 (where that reason was read)
 *     <object> <field>: <value>            (supporting details, one per line)
 *         <entry>                          (the node FitError histogram of the line above)
 *
 * Allocates nothing; cannot fail.
 */
enum vc_explain_why vc_explain(const struct vc_explain_in *in, FILE *out, char *reason,
			       size_t reason_len);

/*
 * Whether why is a reason that holds the job (not Running, Completed, missing, or no reason
 * found): one worth telling its owner.
 */
bool vc_explain_holds(enum vc_explain_why why);

#endif /* VC_EXPLAIN_H */
