/*
 * Unit tests for the queue controller (docs/volcano/job-controller.md §6.3,
 * docs/volcano/scheduler.md §2.4): first sync to Open, OpenQueue / CloseQueue Commands (deleted
 * before they are acted on), Closing until the last PodGroup goes, the hierarchy with
 * volcano.sh/closed-by-parent, rate-limited status counts, retries, metrics. The fake API server
 * records every request; the clock is injected.
 */
#include "support/fake_api.h"

#include "queue_controller.h"
#include "vc_metrics.h"

#define T0 INT64_C(1700000000)

#define QP(name)	    "/apis/scheduling.volcano.sh/v1beta1/queues/" name
#define CMDP(name)	    "/apis/bus.volcano.sh/v1alpha1/namespaces/ns/commands/" name
#define DEL_CMD(name)	    "DELETE " CMDP(name) "\n"
#define SET_STATE(q, state) "PATCH " QP(q) "/status merge {'status':{'state':'" state "'}}\n"
#define SET_STATUS(q, state, inq, pend, run, unk, comp)                                 \
	"PATCH " QP(q) "/status merge {'status':{'completed':" #comp ",'inqueue':" #inq \
		       ",'pending':" #pend ",'running':" #run ",'state':'" state        \
		       "','unknown':" #unk "}}\n"
#define SET_PARENT(q) "PATCH " QP(q) " merge {'spec':{'parent':'root'}}\n"
#define MARK(q, v)                                                                            \
	"PATCH " QP(q) " merge {'metadata':{'annotations':{'volcano.sh/closed-by-parent':'" v \
		       "'}}}\n"

struct env {
	struct fake f;
	struct vc_kube *kube;
	struct vc_ctrl_ctx ctx;
	struct queuectl *qc;
	struct queuectl_config cfg;
};

/* A Queue; parent, state and mark (closed-by-parent) may be NULL. */
static json_t *queue(const char *name, const char *parent, const char *state, const char *mark)
{
	json_t *q = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i}}", "apiVersion",
			      "scheduling.volcano.sh/v1beta1", "kind", "Queue", "metadata", "name",
			      name, "uid", "uid-q", "spec", "weight", 1);

	assert_non_null(q);
	if (parent)
		assert_int_equal(json_object_set_new(json_object_get(q, "spec"), "parent",
						     json_string(parent)),
				 0);
	if (state)
		assert_int_equal(
			json_object_set_new(q, "status", json_pack("{s:s}", "state", state)), 0);
	if (mark)
		assert_int_equal(json_object_set_new(
					 json_object_get(q, "metadata"), "annotations",
					 json_pack("{s:s}", "volcano.sh/closed-by-parent", mark)),
				 0);
	return q;
}

static json_t *podgroup(const char *name, const char *queue_name, const char *phase)
{
	json_t *pg = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i}, s:{s:s}}", "apiVersion",
			       "scheduling.volcano.sh/v1beta1", "kind", "PodGroup", "metadata",
			       "namespace", "ns", "name", name, "spec", "minMember", 1, "status",
			       "phase", phase);

	assert_non_null(pg);
	if (queue_name)
		assert_int_equal(json_object_set_new(json_object_get(pg, "spec"), "queue",
						     json_string(queue_name)),
				 0);
	return pg;
}

static json_t *command(const char *name, const char *action, const char *api_version,
		       const char *kind, const char *target)
{
	json_t *c = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:{s:s, s:s, s:s}}", "apiVersion",
			      "bus.volcano.sh/v1alpha1", "kind", "Command", "metadata", "namespace",
			      "ns", "name", name, "action", action, "target", "apiVersion",
			      api_version, "kind", kind, "name", target);

	assert_non_null(c);
	return c;
}

static json_t *queue_command(const char *name, const char *action, const char *target)
{
	return command(name, action, "scheduling.volcano.sh/v1beta1", "Queue", target);
}

static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	fake_init(&e->f);
	fake_clock_set(T0);
	queuectl_config_defaults(&e->cfg);
	assert_int_equal(e->cfg.workers, 1);
	assert_int_equal(e->cfg.max_requeue, 15);
	assert_int_equal(e->cfg.status_interval_ns, 5 * VC_NSEC_PER_SEC);
	assert_null(e->cfg.metrics);
}

static void env_start(struct env *e)
{
	struct ctx_opts o = { .queues = true, .podgroups = true, .commands = true };
	struct vc_error err;

	fake_ctx_init(&e->f, &e->kube, &e->ctx, &o);
	assert_int_equal(queuectl_new(&e->ctx, &e->cfg, &e->qc, &err), 0);
	fake_ctx_start(&e->ctx);
}

static void env_stop(struct env *e)
{
	queuectl_stop(e->qc);
	ctx_stop(&e->ctx);
	queuectl_free(e->qc);
	fake_ctx_release(&e->f, e->kube, &e->ctx);
}

/* Run until nothing is ready; the number of rounds. */
static int drain(struct env *e)
{
	int n = 0;

	while (queuectl_run_once(e->qc))
		n++;
	return n;
}

static void touch_queue(struct env *e, const char *name)
{
	fake_touch(&e->f, &vc_gvr_queues, name);
}

static void test_first_sync_opens(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", NULL, NULL, NULL));
	env_start(&e);
	assert_int_equal(drain(&e), 2);
	/* root needs nothing; q1 gets its parent, then Open with its (zero) counts. */
	fake_expect(&e.f, SET_PARENT("q1") SET_STATUS("q1", "Open", 0, 0, 0, 0, 0));
	/* Updates of a queue are not watched (Volcano's updateQueue does nothing). */
	touch_queue(&e, "q1");
	assert_int_equal(drain(&e), 0);
	/* A deleted queue is forgotten: a request for it does nothing. */
	fake_emit(&e.f, &vc_gvr_queues, VC_WATCH_DELETED, queue("q1", "root", "Open", NULL));
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_ADDED, podgroup("pg1", "q1", "Pending"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");
	env_stop(&e);
}

static void test_counts_rate_limited(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", "root", "Open", NULL));
	fake_put(&e.f, &vc_gvr_podgroups, podgroup("pg0", "q1", "Running"));
	fake_put(&e.f, &vc_gvr_podgroups, podgroup("pgd", NULL, "Running"));
	env_start(&e);
	drain(&e);
	/* pgd is in queue "default", which does not exist: nothing to do for it. */
	fake_expect(&e.f, SET_STATUS("q1", "Open", 0, 0, 1, 0, 0));
	touch_queue(&e, "q1");

	/* A new PodGroup, 1 s after the last write: the counts wait for the rest of 5 s. */
	fake_clock_advance(VC_NSEC_PER_SEC);
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_ADDED, podgroup("pg1", "q1", "Pending"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");
	fake_clock_advance(4 * VC_NSEC_PER_SEC - 1);
	assert_int_equal(drain(&e), 0);
	fake_clock_advance(1);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATUS("q1", "Open", 0, 1, 1, 0, 0));
	touch_queue(&e, "q1");

	/* A PodGroup update without a phase change is not a reason to sync. */
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_MODIFIED, podgroup("pg1", "q1", "Pending"));
	assert_int_equal(drain(&e), 0);
	/* Every phase is counted; after 5 s the write is immediate. */
	fake_clock_advance(5 * VC_NSEC_PER_SEC);
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_MODIFIED, podgroup("pg1", "q1", "Inqueue"));
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_ADDED, podgroup("pg2", "q1", "Unknown"));
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_ADDED, podgroup("pg3", "q1", "Completed"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATUS("q1", "Open", 1, 0, 1, 1, 1));
	touch_queue(&e, "q1");
	/* Nothing changed: nothing written. */
	fake_clock_advance(10 * VC_NSEC_PER_SEC);
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_MODIFIED, podgroup("pg0", "q1", "Completed"));
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_MODIFIED, podgroup("pg0", "q1", "Running"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");
	env_stop(&e);
}

static void test_close_with_podgroups(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", "root", "Open", NULL));
	fake_put(&e.f, &vc_gvr_podgroups, podgroup("pg1", "q1", "Running"));
	env_start(&e);
	drain(&e);
	touch_queue(&e, "q1");
	fake_clear(&e.f);

	/* The Command is deleted first, then the queue closes: Closing while it has PodGroups. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c1", "CloseQueue", "q1"));
	assert_int_equal(queuectl_run_once(e.qc), 1);
	fake_expect(&e.f, DEL_CMD("c1"));
	assert_false(fake_has(&e.f, &vc_gvr_commands, "ns/c1"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATE("q1", "Closing"));
	touch_queue(&e, "q1");
	/* Closing again changes nothing while the PodGroup is there. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c2", "CloseQueue", "q1"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c2"));
	/* The last PodGroup goes: Closed. */
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_DELETED, podgroup("pg1", "q1", "Running"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATUS("q1", "Closed", 0, 0, 0, 0, 0));
	touch_queue(&e, "q1");
	/* Closed with a new PodGroup stays Closed (only its counts change). */
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_ADDED, podgroup("pg2", "q1", "Pending"));
	assert_int_equal(drain(&e), 1);
	fake_clock_advance(5 * VC_NSEC_PER_SEC);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATUS("q1", "Closed", 0, 1, 0, 0, 0));
	touch_queue(&e, "q1");

	/* Open again. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c3", "OpenQueue", "q1"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c3") SET_STATE("q1", "Open"));
	env_stop(&e);
}

static void test_close_empty_and_reopen(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", "root", "Open", NULL));
	env_start(&e);
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, "");
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c1", "CloseQueue", "q1"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c1") SET_STATE("q1", "Closed"));
	touch_queue(&e, "q1");
	/* Open then Close queued before the queue is processed: the last one wins. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c2", "OpenQueue", "q1"));
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c3", "CloseQueue", "q1"));
	assert_int_equal(queuectl_run_once(e.qc), 1);
	assert_int_equal(queuectl_run_once(e.qc), 1);
	fake_expect(&e.f, DEL_CMD("c2") DEL_CMD("c3"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c4", "OpenQueue", "q1"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c4") SET_STATE("q1", "Open"));
	/* Open on an open queue writes nothing. */
	touch_queue(&e, "q1");
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c5", "OpenQueue", "q1"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c5"));
	env_stop(&e);
}

static void test_command_consumption(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", "root", "Open", NULL));
	env_start(&e);
	drain(&e);

	/* Commands for Jobs, or for another API version of Queue, are not ours. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED,
		  command("j", "AbortJob", "batch.volcano.sh/v1alpha1", "Job", "q1"));
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED,
		  command("v1", "CloseQueue", "scheduling.volcano.sh/v1", "Queue", "q1"));
	assert_int_equal(drain(&e), 0);
	fake_expect(&e.f, "");

	/* Someone else consumed it (NotFound): not executed. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c1", "CloseQueue", "q1"));
	fake_fail(&e.f, "DELETE", CMDP("c1"), VC_ENOTFOUND, 1);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, DEL_CMD("c1"));

	/* The delete fails: nothing is executed until it succeeds (after 5 ms). */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c2", "CloseQueue", "q1"));
	fake_fail(&e.f, "DELETE", CMDP("c2"), VC_ESERVER, 1);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, DEL_CMD("c2"));
	fake_clock_advance(5 * VC_NSEC_PER_MSEC);
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c2") SET_STATE("q1", "Closed"));

	/* A Command deleted before the worker got to it is skipped (no DELETE). */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c3", "OpenQueue", "q1"));
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_DELETED, queue_command("c3", "OpenQueue", "q1"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");

	/* Another action on a Queue: consumed, and the queue is synced. */
	touch_queue(&e, "q1");
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c4", "SyncQueue", "q1"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c4"));

	/* A Command for a queue that does not exist is consumed too. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c5", "CloseQueue", "nq"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c5"));
	env_stop(&e);
}

static void test_hierarchy(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("p", "root", "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("k", "p", "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("other", "root", "Open", NULL));
	env_start(&e);
	assert_int_equal(drain(&e), 4);
	fake_expect(&e.f, "");

	/* Closing the parent marks and closes its open child. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c1", "CloseQueue", "p"));
	assert_int_equal(drain(&e), 3);
	fake_expect(&e.f, DEL_CMD("c1") MARK("k", "true") SET_STATE("p", "Closed")
				  SET_STATE("k", "Closed"));
	touch_queue(&e, "p");
	touch_queue(&e, "k");

	/* The child cannot open while its parent is closed: retried. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c2", "OpenQueue", "k"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c2"));

	/* A new queue under the closed parent opens, then is closed by its parent. */
	fake_emit(&e.f, &vc_gvr_queues, VC_WATCH_ADDED, queue("k2", "p", NULL, NULL));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, SET_STATUS("k2", "Open", 0, 0, 0, 0, 0) MARK("k2", "true")
				  SET_STATE("k2", "Closed"));
	touch_queue(&e, "k2");

	/* Reopening the parent reopens the children it closed. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c3", "OpenQueue", "p"));
	assert_int_equal(queuectl_run_once(e.qc), 1);
	assert_int_equal(queuectl_run_once(e.qc), 1);
	fake_expect(&e.f, DEL_CMD("c3") SET_STATE("p", "Open"));
	/* Before the watch shows p Open the children still fail (their parent looks closed). */
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, "");
	touch_queue(&e, "p");
	fake_clock_advance(VC_NSEC_PER_SEC);
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, SET_STATE("k", "Open") MARK("k", "false") SET_STATE("k2", "Open")
				  MARK("k2", "false"));
	touch_queue(&e, "k");
	touch_queue(&e, "k2");
	fake_clock_advance(VC_NSEC_PER_SEC);
	drain(&e);
	fake_expect(&e.f, "");
	env_stop(&e);
}

static void test_manual_close_of_child(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("p", "root", "Closed", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("k", "p", "Closed", "true"));
	fake_put(&e.f, &vc_gvr_queues, queue("k3", "p", "Closed", "true"));
	env_start(&e);
	assert_int_equal(drain(&e), 4);
	fake_expect(&e.f, "");
	/* A CloseQueue Command on k clears the mark: reopening p leaves k closed. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c1", "CloseQueue", "k"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c1") MARK("k", "false"));
	touch_queue(&e, "k");
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c2", "OpenQueue", "p"));
	/* k3 is tried at once and fails: the watch has not shown p Open yet. */
	assert_int_equal(drain(&e), 3);
	fake_expect(&e.f, DEL_CMD("c2") SET_STATE("p", "Open"));
	touch_queue(&e, "p");
	fake_clock_advance(VC_NSEC_PER_SEC);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATE("k3", "Open") MARK("k3", "false"));
	env_stop(&e);
}

static void test_root_and_unknown(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("u", "root", "Unknown", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("u2", "root", "Unknown", NULL));
	env_start(&e);
	/* Unknown stays Unknown on a sync. */
	assert_int_equal(drain(&e), 3);
	fake_expect(&e.f, "");
	/* root cannot be closed; the Command is still consumed. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED,
		  queue_command("c1", "CloseQueue", "root"));
	assert_int_equal(drain(&e), 2);
	fake_expect(&e.f, DEL_CMD("c1"));
	/* Unknown closes and opens. */
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c2", "CloseQueue", "u"));
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c3", "OpenQueue", "u2"));
	assert_int_equal(drain(&e), 4);
	fake_expect(&e.f,
		    DEL_CMD("c2") DEL_CMD("c3") SET_STATE("u", "Closed") SET_STATE("u2", "Open"));
	env_stop(&e);
}

static void test_errors_and_requeue_limit(void **state)
{
	struct env e;
	int i;

	(void)state;
	env_init(&e);
	e.cfg.max_requeue = 2;
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("bad", "root", "Weird", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("orphan", "gone", "Open", NULL));
	env_start(&e);
	/* An invalid state and a missing parent: tried 1 + 2 times, then dropped. */
	assert_int_equal(drain(&e), 3);
	for (i = 0; i < 2; i++) {
		fake_clock_advance(VC_NSEC_PER_SEC);
		assert_int_equal(drain(&e), 2);
	}
	fake_clock_advance(100 * VC_NSEC_PER_SEC);
	assert_int_equal(drain(&e), 0);
	fake_expect(&e.f, "");

	/* A failed status write is retried. */
	fake_fail(&e.f, "PATCH", QP("q1") "/status", VC_ECONFLICT, 1);
	fake_emit(&e.f, &vc_gvr_queues, VC_WATCH_ADDED, queue("q1", "root", NULL, NULL));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATUS("q1", "Open", 0, 0, 0, 0, 0));
	fake_clock_advance(5 * VC_NSEC_PER_MSEC);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_STATUS("q1", "Open", 0, 0, 0, 0, 0));
	/* A failed parent patch stops the round. */
	fake_fail(&e.f, "PATCH", QP("q2"), VC_EFORBIDDEN, 1);
	fake_emit(&e.f, &vc_gvr_queues, VC_WATCH_ADDED, queue("q2", NULL, NULL, NULL));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_PARENT("q2"));
	fake_clock_advance(5 * VC_NSEC_PER_MSEC);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, SET_PARENT("q2") SET_STATUS("q2", "Open", 0, 0, 0, 0, 0));
	env_stop(&e);
}

static void test_no_counts_and_metrics(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	e.cfg.status_interval_ns = -1;
	e.cfg.metrics = vc_metrics_new();
	assert_non_null(e.cfg.metrics);
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", "root", NULL, NULL));
	fake_put(&e.f, &vc_gvr_podgroups, podgroup("a", "q1", "Pending"));
	fake_put(&e.f, &vc_gvr_podgroups, podgroup("b", "q1", "Pending"));
	fake_put(&e.f, &vc_gvr_podgroups, podgroup("c", "q1", "Running"));
	env_start(&e);
	drain(&e);
	fake_expect(&e.f, "PATCH " QP("q1") "/status merge {'status':{'state':'Open'}}\n");
	{
		struct vc_buf out;

		vc_buf_init(&out, 1 << 16);
		assert_int_equal(vc_metrics_render(e.cfg.metrics, &out), 0);
		assert_non_null(
			strstr(vc_buf_str(&out),
			       "volcano_queue_pod_group_pending_count{queue_name=\"q1\"} 2\n"));
		assert_non_null(
			strstr(vc_buf_str(&out),
			       "volcano_queue_pod_group_running_count{queue_name=\"q1\"} 1\n"));
		assert_non_null(
			strstr(vc_buf_str(&out),
			       "volcano_queue_pod_group_inqueue_count{queue_name=\"q1\"} 0\n"));
		vc_buf_release(&out);
	}
	/* The counts changed, but they are not written. */
	touch_queue(&e, "q1");
	fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_DELETED, podgroup("a", "q1", "Pending"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");
	env_stop(&e);
	vc_metrics_free(e.cfg.metrics);
}

static void test_threads(void **state)
{
	struct env e;
	json_t *q = NULL;
	int i;

	(void)state;
	env_init(&e);
	e.cfg.workers = 3;
	fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
	fake_put(&e.f, &vc_gvr_queues, queue("q1", "root", "Open", NULL));
	env_start(&e);
	assert_int_equal(queuectl_start(e.qc), 0);
	assert_int_equal(queuectl_start(e.qc), VC_EINVAL);
	fake_emit(&e.f, &vc_gvr_commands, VC_WATCH_ADDED, queue_command("c1", "CloseQueue", "q1"));
	for (i = 0; i < 5000; i++) {
		struct timespec ms = { 0, 1000000 };

		q = fake_stored(&e.f, &vc_gvr_queues, "q1");
		if (!strcmp(json_string_value(vc_json_path(q, "status.state")), "Closed"))
			break;
		json_decref(q);
		q = NULL;
		nanosleep(&ms, NULL);
	}
	assert_non_null(q);
	json_decref(q);
	queuectl_stop(e.qc);
	fake_expect(&e.f, DEL_CMD("c1") SET_STATE("q1", "Closed"));
	env_stop(&e);
}

static void test_new_errors(void **state)
{
	struct vc_ctrl_ctx ctx;
	struct queuectl_config cfg;
	struct queuectl *qc = (struct queuectl *)1;
	struct vc_error err;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	queuectl_config_defaults(&cfg);
	assert_int_equal(queuectl_new(&ctx, &cfg, &qc, &err), VC_EINVAL);
	assert_null(qc);
	assert_string_equal(err.text,
			    "queue controller needs the queues, podgroups and commands informers");
	queuectl_free(NULL);
	queuectl_stop(NULL);
}

/* Allocation failures anywhere in a close: the retries (or the next event) finish it. */
static void test_alloc_failures(void **state)
{
	long n;

	(void)state;
	for (n = 0; n < 1000; n++) {
		struct env e;
		json_t *q;
		long failures;
		int i;

		env_init(&e);
		fake_put(&e.f, &vc_gvr_queues, queue("root", NULL, "Open", NULL));
		fake_put(&e.f, &vc_gvr_queues, queue("q1", NULL, NULL, NULL));
		fake_put(&e.f, &vc_gvr_podgroups, podgroup("pg1", "q1", "Running"));
		env_start(&e);
		vc_alloc_fail_after(n);
		drain(&e);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		for (i = 0; i < 10; i++) {
			fake_clock_advance(10 * VC_NSEC_PER_SEC);
			touch_queue(&e, "q1");
			if (!drain(&e))
				fake_emit(&e.f, &vc_gvr_podgroups, VC_WATCH_MODIFIED,
					  podgroup("pg1", "q1", i % 2 ? "Running" : "Inqueue"));
		}
		q = fake_stored(&e.f, &vc_gvr_queues, "q1");
		assert_string_equal(json_string_value(vc_json_path(q, "status.state")), "Open");
		assert_string_equal(json_string_value(vc_json_path(q, "spec.parent")), "root");
		json_decref(q);
		env_stop(&e);
		if (!failures)
			break;
	}
	assert_true(n < 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_sync_opens),
		cmocka_unit_test(test_counts_rate_limited),
		cmocka_unit_test(test_close_with_podgroups),
		cmocka_unit_test(test_close_empty_and_reopen),
		cmocka_unit_test(test_command_consumption),
		cmocka_unit_test(test_hierarchy),
		cmocka_unit_test(test_manual_close_of_child),
		cmocka_unit_test(test_root_and_unknown),
		cmocka_unit_test(test_errors_and_requeue_limit),
		cmocka_unit_test(test_no_counts_and_metrics),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_new_errors),
		cmocka_unit_test(test_alloc_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
