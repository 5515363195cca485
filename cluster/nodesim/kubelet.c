#include "kubelet.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"
#include "vc_time.h"

#define NS_PER_SEC 1000000000LL

/* Parse a non-negative decimal number of seconds ("10", "0.5") into nanoseconds. */
static int parse_seconds(const char *s, int64_t *ns)
{
	double d;

	if (vc_parse_double(s, &d) || d < 0 || d > 1e9)
		return VC_EINVAL;
	*ns = (int64_t)(d * 1e9 + 0.5);
	return 0;
}

int sim_run_ns(const char *annotation, int64_t default_ns, int64_t *out, struct vc_error *err)
{
	*out = default_ns;
	if (!annotation)
		return 0;
	if (parse_seconds(annotation, out)) {
		*out = default_ns;
		return vc_error_set(err, VC_EINVALID,
				    "annotation %s: \"%s\" is not a non-negative number of seconds",
				    SIM_ANN_RUN_SECONDS, annotation);
	}
	return 0;
}

int sim_exit_code_for(const char *annotation, const char *container, int *code,
		      struct vc_error *err)
{
	const char *p = annotation;
	char item[256];

	*code = 0;
	if (!annotation || !*annotation)
		return 0;
	if (!strchr(annotation, '=')) {
		if (vc_parse_int(annotation, 0, 255, code))
			goto bad;
		return 0;
	}
	/* name=code,name=code: the entry for this container, others exit 0. */
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *eq;
		int v;

		if (len == 0 || len >= sizeof(item))
			goto bad;
		memcpy(item, p, len);
		item[len] = '\0';
		eq = strchr(item, '=');
		if (!eq || eq == item)
			goto bad;
		*eq = '\0';
		if (vc_parse_int(eq + 1, 0, 255, &v))
			goto bad;
		if (!strcmp(item, container))
			*code = v;
		p += len + (end ? 1 : 0);
	}
	return 0;
bad:
	*code = 0;
	return vc_error_set(err, VC_EINVALID,
			    "annotation %s: \"%s\" is neither an exit code (0-255) nor "
			    "name=code,... pairs",
			    SIM_ANN_EXIT_CODE, annotation);
}

static void containers_free(struct sim_container *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		vc_free(c[i].name);
	vc_free(c);
}

void sim_pod_free(struct sim_pod *p)
{
	if (!p)
		return;
	vc_free(p->key);
	vc_free(p->uid);
	vc_free(p->node);
	vc_free(p->exit_annotation);
	containers_free(p->containers, p->ncontainers);
	containers_free(p->inits, p->ninits);
	vc_free(p);
}

static int containers_from(const json_t *arr, struct sim_container **out, size_t *n)
{
	const json_t *c;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!json_array_size(arr))
		return 0;
	*out = vc_calloc(json_array_size(arr), sizeof(**out));
	if (!*out)
		return VC_ENOMEM;
	json_array_foreach (arr, i, c) {
		const char *name = vc_json_get_str(c, "name");

		(*out)[i].name = vc_strdup(name ? name : "");
		if (!(*out)[i].name) {
			containers_free(*out, i);
			*out = NULL;
			return VC_ENOMEM;
		}
	}
	*n = json_array_size(arr);
	return 0;
}

int sim_pod_new(const json_t *pod, const char *node, const char *pod_ip, const char *host_ip,
		struct sim_pod **out, struct vc_error *err)
{
	const json_t *md = vc_json_get_obj(pod, "metadata");
	const json_t *spec = vc_json_get_obj(pod, "spec");
	const char *ns = vc_json_get_str(md, "namespace");
	const char *name = vc_json_get_str(md, "name");
	const char *uid = vc_json_get_str(md, "uid");
	struct sim_pod *p;

	*out = NULL;
	if (!name || !uid)
		return vc_error_set(err, VC_EINVALID, "pod without name or uid");
	p = vc_calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->key = vc_asprintf("%s/%s", ns ? ns : "", name);
	p->uid = vc_strdup(uid);
	p->node = vc_strdup(node);
	if (!p->key || !p->uid || !p->node)
		goto nomem;
	snprintf(p->pod_ip, sizeof(p->pod_ip), "%s", pod_ip);
	snprintf(p->host_ip, sizeof(p->host_ip), "%s", host_ip);
	if (containers_from(vc_json_get_arr(spec, "containers"), &p->containers, &p->ncontainers) ||
	    containers_from(vc_json_get_arr(spec, "initContainers"), &p->inits, &p->ninits))
		goto nomem;
	*out = p;
	return 0;
nomem:
	sim_pod_free(p);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

/* ---- status ------------------------------------------------------------------------------- */

static json_t *time_json(int64_t ns)
{
	char buf[40];

	if (vc_time_format_rfc3339(ns / NS_PER_SEC, buf, sizeof(buf)))
		return json_null();
	return json_string(buf);
}

static json_t *condition(const char *type, bool ok, int64_t at, const char *reason)
{
	json_t *c = json_pack("{s:s, s:s, s:n, s:o}", "type", type, "status", ok ? "True" : "False",
			      "lastProbeTime", "lastTransitionTime", time_json(at));

	if (c && reason && json_object_set_new(c, "reason", json_string(reason))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* A container state {"terminated": {...}}, as the kubelet reports an exited container. */
static json_t *terminated_json(int code, int64_t started, int64_t finished)
{
	return json_pack("{s:{s:i, s:s, s:o, s:o}}", "terminated", "exitCode", code, "reason",
			 code ? "Error" : "Completed", "startedAt", time_json(started),
			 "finishedAt", time_json(finished));
}

/*
 * The state of a container backing off, with the message of the kubelet's doBackOff
 * (kuberuntime_manager.go): the back-off printed as a Go Duration and the pod as format.Pod
 * prints it, "<name>_<namespace>(<uid>)".
 */
static json_t *waiting_json(const struct sim_pod *p, const struct sim_container *c,
			    const json_t *pod)
{
	const json_t *md = vc_json_get_obj(pod, "metadata");
	const char *ns = vc_json_get_str(md, "namespace");
	const char *name = vc_json_get_str(md, "name");
	char delay[VC_DURATION_STR_MAX], msg[1024];

	if (vc_duration_format(c->backoff_ns, delay, sizeof(delay)))
		return NULL;
	snprintf(msg, sizeof(msg), "back-off %s restarting failed container=%s pod=%s_%s(%s)",
		 delay, c->name, name ? name : "", ns ? ns : "", p->uid);
	return json_pack("{s:{s:s, s:s}}", "waiting", "reason", "CrashLoopBackOff", "message", msg);
}

static bool container_ready(const struct sim_container *c)
{
	return !c->terminated && !c->waiting;
}

/* The status of one container; images come from the pod spec entry at the same index. */
static json_t *container_status(const struct sim_pod *p, const struct sim_container *c,
				const json_t *pod, const json_t *spec_entry, bool init)
{
	const char *image = vc_json_get_str(spec_entry, "image");
	char id[256];
	json_t *st, *state, *last;

	/* While waiting, the container ID is the exited one's, as the kubelet shows it. */
	snprintf(id, sizeof(id), "caldera://%s/%s/%d", p->uid, c->name, c->restart_count);
	if (c->terminated)
		state = terminated_json(c->exit_code, c->started_ns, c->finished_ns);
	else if (c->waiting)
		state = waiting_json(p, c, pod);
	else
		state = json_pack("{s:{s:o}}", "running", "startedAt", time_json(c->started_ns));
	last = c->has_last ? terminated_json(c->last_exit, c->last_started_ns, c->last_finished_ns)
			   : json_object();
	st = json_pack("{s:s, s:o, s:o, s:b, s:i, s:s, s:s, s:s, s:b}", "name", c->name, "state",
		       state, "lastState", last, "ready", !init && container_ready(c),
		       "restartCount", c->restart_count, "image", image ? image : "", "imageID",
		       image ? image : "", "containerID", id, "started", container_ready(c));
	return st;
}

static const char *pod_phase(const struct sim_pod *p)
{
	if (p->state == SIM_FINISHED || p->state == SIM_DELETING || p->state == SIM_GONE) {
		size_t i;

		for (i = 0; i < p->ncontainers; i++) {
			if (!p->containers[i].terminated)
				return "Running";
		}
		return p->succeeded ? "Succeeded" : "Failed";
	}
	return "Running";
}

/*
 * The kubelet's ContainersReady condition, which Ready repeats (status/generate.go, no readiness
 * gates): False with PodCompleted once the pod Succeeded, False with ContainersNotReady and the
 * unready containers' names as Go prints a []string while any is not ready, True otherwise.
 * Fills *reason (a literal or NULL) and msg.
 */
static bool containers_ready(const struct sim_pod *p, const char *phase, const char **reason,
			     char *msg, size_t len)
{
	size_t i, n, unready = 0;

	*reason = NULL;
	msg[0] = '\0';
	if (!strcmp(phase, "Succeeded")) {
		*reason = "PodCompleted";
		return false;
	}
	n = (size_t)snprintf(msg, len, "containers with unready status: [");
	for (i = 0; i < p->ncontainers && n < len; i++) {
		if (!container_ready(&p->containers[i]))
			n += (size_t)snprintf(msg + n, len - n, "%s%s", unready++ ? " " : "",
					      p->containers[i].name);
	}
	if (!unready) {
		msg[0] = '\0';
		return true;
	}
	if (n < len)
		snprintf(msg + n, len - n, "]");
	*reason = "ContainersNotReady";
	return false;
}

static json_t *ready_condition(const char *type, bool ok, int64_t at, const char *reason,
			       const char *msg)
{
	json_t *c = condition(type, ok, at, reason);

	if (c && *msg && json_object_set_new(c, "message", json_string(msg))) {
		json_decref(c);
		return NULL;
	}
	return c;
}

static json_t *build_status(struct sim_pod *p, const json_t *pod, int64_t now)
{
	const json_t *spec = vc_json_get_obj(pod, "spec");
	const json_t *cs = vc_json_get_arr(spec, "containers");
	const json_t *is = vc_json_get_arr(spec, "initContainers");
	const char *phase = pod_phase(p);
	const char *reason;
	char msg[1024];
	json_t *st, *conds, *ics, *ccs;
	bool ready;
	size_t i;

	ready = containers_ready(p, phase, &reason, msg, sizeof(msg));
	/* The status manager's lastTransitionTime: when readiness last changed. */
	if (!p->ready_known || p->ready != ready) {
		p->ready_known = true;
		p->ready = ready;
		p->ready_since_ns = now;
	}
	conds = json_pack("[o, o, o, o]", condition("Initialized", true, p->start_ns, NULL),
			  ready_condition("Ready", ready, p->ready_since_ns, reason, msg),
			  ready_condition("ContainersReady", ready, p->ready_since_ns, reason, msg),
			  condition("PodScheduled", true, p->start_ns, NULL));
	ics = json_array();
	ccs = json_array();
	st = json_pack("{s:s, s:o, s:s, s:s, s:[{s:s}], s:o, s:o, s:o}", "phase", phase,
		       "conditions", conds, "hostIP", p->host_ip, "podIP", p->pod_ip, "podIPs",
		       "ip", p->pod_ip, "startTime", time_json(p->start_ns),
		       "initContainerStatuses", ics, "containerStatuses", ccs);
	if (!st)
		return NULL;
	for (i = 0; i < p->ninits; i++) {
		if (json_array_append_new(ics, container_status(p, &p->inits[i], pod,
								json_array_get(is, i), true)))
			goto fail;
	}
	for (i = 0; i < p->ncontainers; i++) {
		if (json_array_append_new(ccs, container_status(p, &p->containers[i], pod,
								json_array_get(cs, i), false)))
			goto fail;
	}
	if (!p->ninits && json_object_del(st, "initContainerStatuses"))
		goto fail;
	return st;
fail:
	json_decref(st);
	return NULL;
}

/* ---- the life cycle ----------------------------------------------------------------------- */

static const char *pod_annotation(const json_t *pod, const char *key)
{
	return vc_json_get_str(vc_json_get_obj(vc_json_get_obj(pod, "metadata"), "annotations"),
			       key);
}

static int64_t backoff_initial(const struct sim_config *cfg)
{
	return cfg->backoff_ns > 0 ? cfg->backoff_ns : SIM_BACKOFF_DEFAULT_NS;
}

static int64_t backoff_max(const struct sim_config *cfg)
{
	return cfg->backoff_max_ns > 0 ? cfg->backoff_max_ns : SIM_BACKOFF_MAX_DEFAULT_NS;
}

/* flowcontrol.Backoff's hasExpired: the container ran more than 2 x the maximum since the
 * restart that last updated its entry, so the entry no longer counts. */
static bool backoff_expired(const struct sim_container *c, const struct sim_config *cfg,
			    int64_t finished)
{
	return finished - c->backoff_updated_ns > 2 * backoff_max(cfg);
}

/* flowcontrol.Backoff's IsInBackOffSince(finished), asked at the moment of the exit. */
static bool backoff_active(const struct sim_container *c, const struct sim_config *cfg,
			   int64_t finished)
{
	return c->backoff_ns > 0 && !backoff_expired(c, cfg, finished);
}

/* Start container c again at `at`: flowcontrol.Backoff's Next (a new entry, or twice the last
 * back-off up to the maximum), then the new run, as doBackOff lets startContainer do. */
static void container_restart(struct sim_container *c, const struct sim_config *cfg, int64_t at)
{
	if (!backoff_active(c, cfg, c->last_finished_ns))
		c->backoff_ns = backoff_initial(cfg);
	else
		c->backoff_ns =
			c->backoff_ns > backoff_max(cfg) / 2 ? backoff_max(cfg) : 2 * c->backoff_ns;
	c->backoff_updated_ns = at;
	c->waiting = false;
	c->restart_count++;
	c->started_ns = at;
}

/*
 * End container c at `at` with its code. When the policy says restart: at once if it has no live
 * back-off entry, else wait the back-off out from the exit (CrashLoopBackOff).
 */
static void container_exit(struct sim_container *c, const struct sim_config *cfg,
			   const char *policy, int code, int64_t at)
{
	bool restart = !strcmp(policy, "Always") || (!strcmp(policy, "OnFailure") && code != 0);

	if (restart) {
		c->has_last = true;
		c->last_exit = code;
		c->last_started_ns = c->started_ns;
		c->last_finished_ns = at;
		if (backoff_active(c, cfg, at)) {
			c->waiting = true;
			c->restart_at_ns = at + c->backoff_ns;
			return;
		}
		container_restart(c, cfg, at);
		return;
	}
	c->terminated = true;
	c->exit_code = code;
	c->finished_ns = at;
}

/*
 * Play container c's exits and restarts due up to now, each at its own time, so that a late step
 * gives the same history as a punctual one; exit_now ends the current run at now. At most
 * SIM_MAX_EVENTS events per step (a tiny back-off and run time could otherwise keep a step busy):
 * the rest come at the next step, which next_wake makes immediate. Returns true when anything
 * happened.
 */
#define SIM_MAX_EVENTS 1000
static bool run_container(struct sim_pod *p, struct sim_container *c, const struct sim_config *cfg,
			  const char *policy, int64_t now, bool exit_now, struct vc_error *err)
{
	bool changed = false;
	int n;

	for (n = 0; n < SIM_MAX_EVENTS && !c->terminated; n++) {
		int code = 0;
		int64_t at;

		if (c->waiting) {
			if (now < c->restart_at_ns)
				break;
			container_restart(c, cfg, c->restart_at_ns);
			changed = true;
			continue;
		}
		if (exit_now)
			at = now;
		else if (p->run_ns >= 0 && now >= c->started_ns + p->run_ns)
			at = c->started_ns + p->run_ns;
		else
			break;
		exit_now = false;
		sim_exit_code_for(p->exit_annotation, c->name, &code, err);
		container_exit(c, cfg, policy, code, at);
		changed = true;
	}
	return changed;
}

static int start_pod(struct sim_pod *p, const struct sim_config *cfg, const json_t *pod,
		     int64_t now, struct vc_error *err)
{
	const char *ann = pod_annotation(pod, SIM_ANN_EXIT_CODE);
	size_t i;
	int rc;

	p->start_ns = now;
	/* Init containers complete at once, in order, before the regular ones start. */
	for (i = 0; i < p->ninits; i++) {
		p->inits[i].started_ns = now;
		p->inits[i].terminated = true;
		p->inits[i].exit_code = 0;
		p->inits[i].finished_ns = now;
	}
	for (i = 0; i < p->ncontainers; i++)
		p->containers[i].started_ns = now;
	if (ann) {
		p->exit_annotation = vc_strdup(ann);
		if (!p->exit_annotation)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	p->state = SIM_RUNNING;
	rc = sim_run_ns(pod_annotation(pod, SIM_ANN_RUN_SECONDS), cfg->default_run_ns, &p->run_ns,
			err);
	return rc;
}

/* Run the containers up to now; returns true when anything changed. exit_now ends the running
 * ones (not those backing off) at now. */
static bool advance(struct sim_pod *p, const struct sim_config *cfg, const json_t *pod, int64_t now,
		    bool exit_now, struct vc_error *err)
{
	const char *policy = vc_json_get_str(vc_json_get_obj(pod, "spec"), "restartPolicy");
	bool changed = false, all_done = true, all_zero = true;
	size_t i;

	if (!policy || !*policy)
		policy = "Always";
	for (i = 0; i < p->ncontainers; i++) {
		struct sim_container *c = &p->containers[i];

		if (c->terminated) {
			all_zero = all_zero && c->exit_code == 0;
			continue;
		}
		if (run_container(p, c, cfg, policy, now, exit_now && !c->waiting, err))
			changed = true;
		if (!c->terminated)
			all_done = false;
		else
			all_zero = all_zero && c->exit_code == 0;
	}
	if (all_done && p->ncontainers) {
		p->state = SIM_FINISHED;
		p->succeeded = all_zero;
	} else if (all_done) {
		/* A pod without containers has nothing to run: it succeeds. */
		p->state = SIM_FINISHED;
		p->succeeded = true;
		changed = true;
	}
	return changed;
}

/* The next exit or end of a back-off; 0 when nothing is due. */
static int64_t next_wake(const struct sim_pod *p)
{
	int64_t wake = 0;
	size_t i;

	if (p->state != SIM_RUNNING)
		return 0;
	for (i = 0; i < p->ncontainers; i++) {
		const struct sim_container *c = &p->containers[i];
		int64_t at;

		if (c->terminated)
			continue;
		if (c->waiting)
			at = c->restart_at_ns;
		else if (p->run_ns >= 0)
			at = c->started_ns + p->run_ns;
		else
			continue;
		if (!wake || at < wake)
			wake = at;
	}
	return wake;
}

/* Deletion: containers are told to stop; the pod goes after its grace period. */
static int step_deleting(struct sim_pod *p, const struct sim_config *cfg, const json_t *pod,
			 int64_t now, struct sim_action *act)
{
	const json_t *md = vc_json_get_obj(pod, "metadata");
	int64_t grace = vc_json_get_int(md, "deletionGracePeriodSeconds", 30);
	bool was_running = false;
	size_t i;

	if (p->state == SIM_GONE)
		return 0;
	if (p->state != SIM_DELETING) {
		/* A container backing off has nothing to kill. */
		for (i = 0; p->state == SIM_RUNNING && i < p->ncontainers; i++)
			was_running = was_running || container_ready(&p->containers[i]);
		/* Nothing left to kill, or told to be quick: remove at once. */
		if (cfg->fast_delete || !was_running || grace <= 0)
			p->delete_at_ns = now;
		else
			p->delete_at_ns = now + grace * NS_PER_SEC;
		p->state = SIM_DELETING;
		if (p->delete_at_ns > now) {
			for (i = 0; i < p->ncontainers; i++) {
				struct sim_container *c = &p->containers[i];

				if (c->waiting) {
					/* It stays as its last run ended. */
					c->waiting = false;
					c->terminated = true;
					c->exit_code = c->last_exit;
					c->started_ns = c->last_started_ns;
					c->finished_ns = c->last_finished_ns;
				} else if (!c->terminated) {
					c->terminated = true;
					c->exit_code = 0;
					c->finished_ns = now;
				}
			}
			p->succeeded = true;
			act->status = build_status(p, pod, now);
			if (!act->status)
				return VC_ENOMEM;
		}
	}
	if (now >= p->delete_at_ns) {
		act->delete_now = true;
		p->state = SIM_GONE;
		return 0;
	}
	act->wake_ns = p->delete_at_ns;
	return 0;
}

int sim_pod_step(struct sim_pod *p, const struct sim_config *cfg, const json_t *pod, int64_t now,
		 struct sim_action *act, struct vc_error *err)
{
	const char *ann;
	bool changed = false, exit_now = false;
	int rc = 0;

	act->status = NULL;
	act->delete_now = false;
	act->wake_ns = 0;
	if (vc_json_get_str(vc_json_get_obj(pod, "metadata"), "deletionTimestamp"))
		return step_deleting(p, cfg, pod, now, act);

	switch (p->state) {
	case SIM_NEW:
		rc = start_pod(p, cfg, pod, now, err);
		if (rc == VC_ENOMEM)
			return rc;
		changed = true;
		break;
	case SIM_RUNNING:
		/* An exit code set or changed on a running pod ends its containers now. */
		ann = pod_annotation(pod, SIM_ANN_EXIT_CODE);
		if (ann && !vc_str_eq(ann, p->exit_annotation)) {
			char *copy = vc_strdup(ann);

			if (!copy)
				return vc_error_set(err, VC_ENOMEM, "out of memory");
			vc_free(p->exit_annotation);
			p->exit_annotation = copy;
			exit_now = true;
		}
		break;
	case SIM_FINISHED:
	case SIM_DELETING:
	case SIM_GONE:
		return 0;
	}
	if (advance(p, cfg, pod, now, exit_now, err))
		changed = true;
	if (changed) {
		act->status = build_status(p, pod, now);
		if (!act->status)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	act->wake_ns = next_wake(p);
	return rc;
}
