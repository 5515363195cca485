#include "vc_ctlrun.h"

#include <pthread.h>

#include "vc_alloc.h"
#include "vc_log.h"

struct ctlrun_queue {
	struct vc_ctlrun *rt;
	struct vc_workqueue *wq;
	struct vc_ctlrun_queue_def def;
};

struct vc_ctlrun {
	struct ctlrun_queue queues[VC_CTLRUN_MAX_QUEUES];
	size_t nqueues;
	pthread_t *threads;
	size_t nthreads;
	bool started;
};

struct vc_ctlrun *vc_ctlrun_new(void)
{
	return vc_calloc(1, sizeof(struct vc_ctlrun));
}

int vc_ctlrun_add(struct vc_ctlrun *rt, const struct vc_ctlrun_queue_def *def,
		  struct vc_workqueue **wq)
{
	struct ctlrun_queue *q;

	if (wq)
		*wq = NULL;
	if (!rt || !def || !def->sync == !def->process || (def->sync && !def->retry) ||
	    rt->nqueues >= VC_CTLRUN_MAX_QUEUES || rt->started)
		return VC_EINVAL;
	q = &rt->queues[rt->nqueues];
	q->wq = vc_workqueue_new(def->opts);
	if (!q->wq)
		return VC_ENOMEM;
	q->rt = rt;
	q->def = *def;
	q->def.opts = NULL;
	if (q->def.workers < 1)
		q->def.workers = 1;
	rt->nqueues++;
	if (wq)
		*wq = q->wq;
	return 0;
}

static void say(int level, const char *msg, const char *key_label, const char *key,
		const char *label, const char *text)
{
	if (msg && level <= vc_log_threshold)
		vc_log_emit(level, msg, "%s=%s %s=\"%s\"", key_label, key, label, text);
}

bool vc_ctlrun_should_retry(struct vc_workqueue *wq, const char *key, int max_requeue)
{
	return max_requeue < 0 || vc_workqueue_num_requeues(wq, key) < (unsigned)max_requeue;
}

void vc_ctlrun_handle_err(struct vc_workqueue *wq, const char *key, int rc,
			  const struct vc_error *err, const struct vc_ctlrun_retry *retry)
{
	const char *text;
	int r2;

	if (!rc) {
		vc_workqueue_forget(wq, key);
		return;
	}
	text = err && err->text[0] ? err->text : vc_strerror(rc);
	if (vc_ctlrun_should_retry(wq, key, retry->max_requeue)) {
		say(retry->retry_level, retry->retry_msg, retry->key_label, key, "error", text);
		r2 = vc_workqueue_add_rate_limited(wq, key, NULL);
		if (r2 && r2 != VC_ESHUTDOWN)
			say(retry->requeue_level, retry->requeue_msg, retry->key_label, key,
			    retry->requeue_err_label, vc_strerror(r2));
		return;
	}
	say(VC_LOG_ERROR, retry->drop_msg, retry->key_label, key, "error", text);
	vc_workqueue_forget(wq, key);
}

/* processNextWorkItem after the Get: work the key, then Done. */
static void work(struct ctlrun_queue *q, const char *key, void *payload)
{
	struct vc_error err;
	int rc;

	if (q->def.process) {
		q->def.process(q->def.ctx, key, payload);
	} else {
		vc_error_clear(&err);
		rc = q->def.sync(q->def.ctx, key, &err);
		vc_ctlrun_handle_err(q->wq, key, rc, &err, q->def.retry);
	}
	vc_workqueue_done(q->wq, key);
}

/* Take the next ready key of q without blocking and work it; false when none was ready. */
static bool try_one(struct ctlrun_queue *q)
{
	const char *key;
	void *payload = NULL;

	if (vc_workqueue_try_get(q->wq, &key, q->def.process ? &payload : NULL))
		return false;
	work(q, key, payload);
	return true;
}

static void *worker(void *arg)
{
	struct ctlrun_queue *q = arg;
	const char *key;
	void *payload = NULL;

	while (!vc_workqueue_get(q->wq, &key, q->def.process ? &payload : NULL)) {
		work(q, key, payload);
		payload = NULL;
	}
	return NULL;
}

int vc_ctlrun_start(struct vc_ctlrun *rt)
{
	size_t i, n = 0;
	int k, rc;

	if (!rt || rt->started)
		return VC_EINVAL;
	for (i = 0; i < rt->nqueues; i++)
		n += (size_t)rt->queues[i].def.workers;
	rt->threads = vc_calloc(n ? n : 1, sizeof(pthread_t));
	if (!rt->threads)
		return VC_ENOMEM;
	rt->started = true;
	for (i = 0; i < rt->nqueues; i++)
		for (k = 0; k < rt->queues[i].def.workers; k++) {
			rc = pthread_create(&rt->threads[rt->nthreads], NULL, worker,
					    &rt->queues[i]);
			if (rc) {
				vc_ctlrun_stop(rt);
				return -rc;
			}
			rt->nthreads++;
		}
	return 0;
}

size_t vc_ctlrun_threads(const struct vc_ctlrun *rt)
{
	return rt ? rt->nthreads : 0;
}

void vc_ctlrun_stop(struct vc_ctlrun *rt)
{
	size_t i;

	if (!rt)
		return;
	for (i = 0; i < rt->nqueues; i++)
		vc_workqueue_shutdown(rt->queues[i].wq);
	for (i = 0; i < rt->nthreads; i++)
		pthread_join(rt->threads[i], NULL);
	rt->nthreads = 0;
}

void vc_ctlrun_free(struct vc_ctlrun *rt)
{
	size_t i;

	if (!rt)
		return;
	vc_ctlrun_stop(rt);
	vc_free(rt->threads);
	for (i = 0; i < rt->nqueues; i++)
		vc_workqueue_free(rt->queues[i].wq);
	vc_free(rt);
}

int vc_ctlrun_run_once(struct vc_ctlrun *rt)
{
	size_t i;

	for (i = 0; i < rt->nqueues; i++)
		if (try_one(&rt->queues[i]))
			return 1;
	return 0;
}

size_t vc_ctlrun_run_pending(struct vc_ctlrun *rt)
{
	size_t i, n = 0;
	bool any = true;

	while (any) {
		any = false;
		for (i = 0; i < rt->nqueues; i++)
			vc_workqueue_tick(rt->queues[i].wq);
		for (i = 0; i < rt->nqueues; i++)
			while (try_one(&rt->queues[i])) {
				n++;
				any = true;
			}
	}
	return n;
}
