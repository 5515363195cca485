#include "nodesim.h"

#include <pthread.h>
#include <time.h>

#include "kubelet.h"
#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_hash.h"
#include "vc_informer.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_quantity.h"
#include "vc_str.h"
#include "vc_time.h"
#include "vc_workqueue.h"

#define NOT_READY_TAINT	  "node.kubernetes.io/not-ready"
#define UNREACHABLE_TAINT "node.kubernetes.io/unreachable"
#define LEASE_NAMESPACE	  "kube-node-lease"
#define DEFAULT_CAPACITY  "{\"cpu\":\"4\",\"memory\":\"16Gi\",\"pods\":\"110\"}"

/* ---- options ------------------------------------------------------------------------------ */

/* Split "k=v" at the first '='; both parts must be non-empty. */
static int split_kv(char *item, char **k, char **v)
{
	char *eq = strchr(item, '=');

	if (!eq || eq == item || !eq[1])
		return VC_EINVAL;
	*eq = '\0';
	*k = item;
	*v = eq + 1;
	return 0;
}

int sim_parse_node_group(const char *s, struct sim_node_group *g, struct vc_error *err)
{
	char *copy = NULL, *list, *item, *save = NULL, *k, *v;
	const char *colon = strchr(s, ':');
	struct vc_quantity q;
	int rc;

	g->count = 0;
	g->resources = NULL;
	if (!colon || colon == s)
		return vc_error_set(err, VC_EINVAL,
				    "node group \"%s\": want COUNT:RESOURCES, e.g. "
				    "4:cpu=8,memory=32Gi,nvidia.com/gpu=4",
				    s);
	copy = vc_strdup(s);
	g->resources = json_object();
	if (!copy || !g->resources) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	copy[colon - s] = '\0';
	if (vc_parse_int(copy, 1, 100000, &g->count)) {
		rc = vc_error_set(err, VC_EINVAL, "node group \"%s\": count must be 1..100000", s);
		goto fail;
	}
	list = copy + (colon - s) + 1;
	for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (split_kv(item, &k, &v)) {
			rc = vc_error_set(err, VC_EINVAL,
					  "node group \"%s\": \"%s\" is not name=quantity", s,
					  item);
			goto fail;
		}
		rc = vc_quantity_parse(v, &q, err);
		if (rc) {
			vc_error_prefix(err, "node group \"%s\": resource %s", s, k);
			goto fail;
		}
		if (json_object_set_new(g->resources, k, vc_quantity_to_json(&q))) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
	}
	if (!json_object_get(g->resources, "pods") &&
	    json_object_set_new(g->resources, "pods", json_string("110"))) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	vc_free(copy);
	return 0;
fail:
	vc_free(copy);
	json_decref(g->resources);
	g->resources = NULL;
	return rc;
}

int sim_parse_labels(const char *s, json_t **out, struct vc_error *err)
{
	char *copy, *item, *save = NULL, *k, *v;
	json_t *o = json_object();

	*out = NULL;
	copy = vc_strdup(s ? s : "");
	if (!o || !copy)
		goto nomem;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (split_kv(item, &k, &v)) {
			vc_error_set(err, VC_EINVAL, "label \"%s\": want key=value", item);
			vc_free(copy);
			json_decref(o);
			return VC_EINVAL;
		}
		if (json_object_set_new(o, k, json_string(v)))
			goto nomem;
	}
	vc_free(copy);
	*out = o;
	return 0;
nomem:
	vc_free(copy);
	json_decref(o);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

int sim_parse_taints(const char *s, json_t **out, struct vc_error *err)
{
	char *copy, *item, *save = NULL, *effect, *eq;
	json_t *a = json_array(), *t;

	*out = NULL;
	copy = vc_strdup(s ? s : "");
	if (!a || !copy)
		goto nomem;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		effect = strrchr(item, ':');
		if (!effect || effect == item ||
		    (strcmp(effect + 1, "NoSchedule") && strcmp(effect + 1, "PreferNoSchedule") &&
		     strcmp(effect + 1, "NoExecute"))) {
			vc_error_set(err, VC_EINVAL,
				     "taint \"%s\": want key[=value]:NoSchedule|PreferNoSchedule|"
				     "NoExecute",
				     item);
			vc_free(copy);
			json_decref(a);
			return VC_EINVAL;
		}
		*effect++ = '\0';
		eq = strchr(item, '=');
		if (eq)
			*eq++ = '\0';
		t = json_pack("{s:s, s:s}", "key", item, "effect", effect);
		if (!t || (eq && json_object_set_new(t, "value", json_string(eq))) ||
		    json_array_append_new(a, t))
			goto nomem;
	}
	vc_free(copy);
	*out = a;
	return 0;
nomem:
	vc_free(copy);
	json_decref(a);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

void sim_options_release(struct sim_options *o)
{
	size_t i;

	for (i = 0; i < o->ngroups; i++)
		json_decref(o->groups[i].resources);
	vc_free(o->groups);
	json_decref(o->labels);
	json_decref(o->taints);
	memset(o, 0, sizeof(*o));
}

/* ---- node objects ------------------------------------------------------------------------- */

void sim_pod_ip(int node_index, unsigned seq, char *buf, size_t len)
{
	/* 10.64.0.0/10: one /24 per node, host numbers 2..254 reused round robin. */
	unsigned n = (unsigned)node_index;

	snprintf(buf, len, "10.%u.%u.%u", 64 + (n >> 8) % 64, n & 255, 2 + seq % 253);
}

void sim_host_ip(int node_index, char *buf, size_t len)
{
	unsigned n = (unsigned)node_index;

	snprintf(buf, len, "172.%u.%u.%u", 16 + (n / (256 * 254)) % 16, (n / 254) % 256,
		 1 + n % 254);
}

json_t *sim_node_object(const struct sim_options *o, const struct sim_node_group *g,
			const char *name, int index)
{
	json_t *labels = json_pack("{s:s, s:s, s:s, s:s}", "kubernetes.io/hostname", name,
				   "kubernetes.io/os", "linux", "kubernetes.io/arch", "amd64",
				   SIM_LABEL, "true");
	json_t *node;

	(void)index;
	if (!labels || (o->labels && json_object_update(labels, o->labels))) {
		json_decref(labels);
		return NULL;
	}
	node = json_pack("{s:s, s:s, s:{s:s, s:o}, s:{s:O}, s:{s:O, s:O}}", "apiVersion", "v1",
			 "kind", "Node", "metadata", "name", name, "labels", labels, "spec",
			 "taints", o->taints ? o->taints : json_array(), "status", "capacity",
			 g->resources, "allocatable", g->resources);
	return node;
}

json_t *sim_node_status(const json_t *capacity, const char *name, int index, int64_t now_ns)
{
	char ip[32], now[40];
	json_t *conds;

	sim_host_ip(index, ip, sizeof(ip));
	if (vc_time_format_rfc3339(now_ns / 1000000000LL, now, sizeof(now)))
		return NULL;
	conds = json_pack("[{s:s, s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s, s:s},"
			  " {s:s, s:s, s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s, s:s, s:s}]",
			  "type", "MemoryPressure", "status", "False", "lastHeartbeatTime", now,
			  "lastTransitionTime", now, "reason", "KubeletHasSufficientMemory",
			  "message", "kubelet has sufficient memory available", "type",
			  "DiskPressure", "status", "False", "lastHeartbeatTime", now,
			  "lastTransitionTime", now, "reason", "KubeletHasNoDiskPressure",
			  "message", "kubelet has no disk pressure", "type", "PIDPressure",
			  "status", "False", "lastHeartbeatTime", now, "lastTransitionTime", now,
			  "reason", "KubeletHasSufficientPID", "message",
			  "kubelet has sufficient PID available", "type", "Ready", "status", "True",
			  "lastHeartbeatTime", now, "lastTransitionTime", now, "reason",
			  "KubeletReady", "message", "vc-nodesim is posting ready status");
	return json_pack("{s:O, s:O, s:o, s:[{s:s, s:s}, {s:s, s:s}], s:{s:{s:i}},"
			 " s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}}",
			 "capacity", capacity, "allocatable", capacity, "conditions", conds,
			 "addresses", "type", "InternalIP", "address", ip, "type", "Hostname",
			 "address", name, "daemonEndpoints", "kubeletEndpoint", "Port", 10250,
			 "nodeInfo", "machineID", name, "systemUUID", name, "bootID", name,
			 "kernelVersion", "caldera", "osImage", "vc-nodesim",
			 "containerRuntimeVersion", "caldera://0.1", "kubeletVersion", "v1.20.2",
			 "kubeProxyVersion", "v1.20.2", "operatingSystem", "linux", "architecture",
			 "amd64");
}

/* ---- the simulator ------------------------------------------------------------------------ */

struct sim_node {
	int index;
	unsigned ip_seq;
	bool ready;  /* status written and taint removed */
	bool ours;   /* created by this process (deleted on exit when asked) */
	bool leased; /* the Lease exists */
};

struct nodesim {
	struct vc_kube *kube;
	struct sim_options *opts;
	struct sim_config cfg;
	struct vc_informer *pods, *nodes;
	struct vc_workqueue *queue;
	pthread_t *workers;
	int nworkers;
	pthread_t lease_thread;
	bool lease_started;
	volatile int stop;
	pthread_mutex_t lock;	 /* guards node_map, pod_map, next_index, the counts */
	pthread_cond_t wake;	 /* the lease thread's sleep */
	struct vc_hmap node_map; /* name -> struct sim_node */
	struct vc_hmap pod_map;	 /* "ns/name" -> struct sim_pod */
	int next_index;
	size_t ready_nodes;
};

static void free_sim_pod(void *p)
{
	sim_pod_free(p);
}

static void enqueue(struct nodesim *s, const char *prefix, const char *key)
{
	char buf[VC_CACHE_KEY_MAX + 8];

	snprintf(buf, sizeof(buf), "%s%s", prefix, key);
	if (vc_workqueue_add(s->queue, buf) == VC_ENOMEM)
		VC_WARN("cannot queue work", "key=%s err=\"out of memory\"", buf);
}

static void enqueue_obj(struct nodesim *s, const char *prefix, const json_t *obj)
{
	char key[VC_CACHE_KEY_MAX];

	if (!vc_cache_key(obj, key, sizeof(key)))
		enqueue(s, prefix, key);
}

static void pod_add(void *ctx, json_t *obj)
{
	enqueue_obj(ctx, "p/", obj);
}

static void pod_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	(void)old_obj;
	enqueue_obj(ctx, "p/", new_obj);
}

static void pod_delete(void *ctx, json_t *obj, bool unknown)
{
	(void)unknown;
	enqueue_obj(ctx, "p/", obj);
}

static void node_add(void *ctx, json_t *obj)
{
	enqueue_obj(ctx, "n/", obj);
}

static void node_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	(void)old_obj;
	enqueue_obj(ctx, "n/", new_obj);
}

static void node_delete(void *ctx, json_t *obj, bool unknown)
{
	(void)unknown;
	enqueue_obj(ctx, "n/", obj);
}

/* The node record for name, made on first sight; NULL when out of memory. Lock held. */
static struct sim_node *node_record(struct nodesim *s, const char *name, int index, bool ours)
{
	struct sim_node *n = vc_hmap_get(&s->node_map, name);

	if (n)
		return n;
	n = vc_calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->index = index >= 0 ? index : s->next_index++;
	n->ours = ours;
	if (vc_hmap_put(&s->node_map, name, n, NULL)) {
		vc_free(n);
		return NULL;
	}
	return n;
}

static bool has_not_ready_taint(const json_t *node)
{
	const json_t *t;
	size_t i;

	json_array_foreach (vc_json_get_arr(vc_json_get_obj(node, "spec"), "taints"), i, t) {
		const char *key = vc_json_get_str(t, "key");

		if (vc_str_eq(key, NOT_READY_TAINT) || vc_str_eq(key, UNREACHABLE_TAINT))
			return true;
	}
	return false;
}

static bool node_is_ready(const json_t *node)
{
	const json_t *c;
	size_t i;

	json_array_foreach (vc_json_get_arr(vc_json_get_obj(node, "status"), "conditions"), i, c) {
		if (vc_str_eq(vc_json_get_str(c, "type"), "Ready"))
			return vc_str_eq(vc_json_get_str(c, "status"), "True");
	}
	return false;
}

/* Make a node Ready and untainted (our own nodes and adopted ones alike). */
static int sync_node(struct nodesim *s, const char *name)
{
	struct vc_cache *cache = vc_informer_cache(s->nodes);
	json_t *node = vc_cache_get(cache, name), *status = NULL, *patch = NULL, *taints;
	const json_t *cap, *t;
	struct vc_error err;
	struct sim_node *rec;
	void *gone = NULL;
	size_t i;
	int rc = 0, index;

	vc_error_clear(&err);
	pthread_mutex_lock(&s->lock);
	if (!node) {
		(void)vc_hmap_remove(&s->node_map, name, &gone);
		rec = gone;
		if (rec && rec->ready)
			s->ready_nodes--;
		pthread_mutex_unlock(&s->lock);
		vc_free(rec);
		return 0;
	}
	rec = node_record(s, name, -1, false);
	index = rec ? rec->index : 0;
	pthread_mutex_unlock(&s->lock);
	if (!rec) {
		json_decref(node);
		return VC_ENOMEM;
	}
	if (!node_is_ready(node)) {
		cap = vc_json_get_obj(vc_json_get_obj(node, "status"), "capacity");
		if (!cap || !json_object_size(cap)) {
			json_t *def = json_loads(DEFAULT_CAPACITY, 0, NULL);

			status = def ? sim_node_status(def, name, index, vc_time_now_ns()) : NULL;
			json_decref(def);
		} else {
			status = sim_node_status(cap, name, index, vc_time_now_ns());
		}
		patch = status ? json_pack("{s:o}", "status", status) : NULL;
		if (!patch) {
			rc = VC_ENOMEM;
			goto out;
		}
		rc = vc_kube_patch(s->kube, &vc_gvr_nodes, NULL, name, "status", VC_PATCH_MERGE,
				   patch, NULL, &err);
		json_decref(patch);
		patch = NULL;
		if (rc)
			goto out;
	}
	if (has_not_ready_taint(node)) {
		taints = json_array();
		json_array_foreach (vc_json_get_arr(vc_json_get_obj(node, "spec"), "taints"), i,
				    t) {
			const char *key = vc_json_get_str(t, "key");

			if (!vc_str_eq(key, NOT_READY_TAINT) && !vc_str_eq(key, UNREACHABLE_TAINT))
				json_array_append(taints, (json_t *)t);
		}
		patch = json_pack("{s:{s:o}}", "spec", "taints", taints);
		if (!patch) {
			rc = VC_ENOMEM;
			goto out;
		}
		rc = vc_kube_patch(s->kube, &vc_gvr_nodes, NULL, name, NULL, VC_PATCH_MERGE, patch,
				   NULL, &err);
		if (rc)
			goto out;
	}
	if (node_is_ready(node) && !has_not_ready_taint(node)) {
		pthread_mutex_lock(&s->lock);
		if (!rec->ready) {
			rec->ready = true;
			s->ready_nodes++;
		}
		pthread_mutex_unlock(&s->lock);
	}
out:
	if (rc && rc != VC_ENOTFOUND)
		VC_WARN("cannot make node ready", "node=%s err=\"%s\"", name, err.text);
	json_decref(patch);
	json_decref(node);
	return rc == VC_ENOTFOUND ? 0 : rc;
}

static int create_node(struct nodesim *s, const char *name)
{
	const struct sim_node_group *g = NULL;
	struct vc_error err;
	struct sim_node *rec;
	size_t i;
	int index = -1, first = 0, rc;
	json_t *node;

	/* <prefix>-<index>: find the group of this index. */
	if (vc_parse_int(name + strlen(s->opts->prefix) + 1, 0, INT_MAX, &index))
		return 0;
	for (i = 0; i < s->opts->ngroups; i++) {
		if (index < first + s->opts->groups[i].count) {
			g = &s->opts->groups[i];
			break;
		}
		first += s->opts->groups[i].count;
	}
	if (!g)
		return 0;
	pthread_mutex_lock(&s->lock);
	rec = node_record(s, name, index, true);
	pthread_mutex_unlock(&s->lock);
	node = rec ? sim_node_object(s->opts, g, name, index) : NULL;
	if (!node)
		return VC_ENOMEM;
	vc_error_clear(&err);
	rc = vc_kube_create(s->kube, &vc_gvr_nodes, NULL, NULL, NULL, node, NULL, &err);
	json_decref(node);
	if (rc == VC_EALREADYEXISTS) {
		VC_INFO("taking over existing node", "node=%s", name);
		rc = 0;
	}
	if (rc)
		VC_WARN("cannot create node", "node=%s err=\"%s\"", name, err.text);
	return rc;
}

/* Step one pod: the kubelet's work for it. */
static int sync_pod(struct nodesim *s, const char *key)
{
	json_t *pod = vc_cache_get(vc_informer_cache(s->pods), key), *patch;
	const json_t *spec, *md;
	const char *node_name, *uid, *phase;
	struct sim_action act = { 0 };
	struct sim_pod *sp;
	struct sim_node *rec;
	void *gone;
	struct vc_error err;
	char pod_ip[32], host_ip[32];
	int64_t now;
	int rc = 0;

	vc_error_clear(&err);
	pthread_mutex_lock(&s->lock);
	sp = vc_hmap_get(&s->pod_map, key);
	md = vc_json_get_obj(pod, "metadata");
	spec = vc_json_get_obj(pod, "spec");
	node_name = vc_json_get_str(spec, "nodeName");
	uid = vc_json_get_str(md, "uid");
	rec = node_name ? vc_hmap_get(&s->node_map, node_name) : NULL;
	if (!pod || !rec) {
		/* Gone, or not on one of our nodes: forget it. */
		if (vc_hmap_remove(&s->pod_map, key, &gone))
			sim_pod_free(gone);
		pthread_mutex_unlock(&s->lock);
		json_decref(pod);
		return 0;
	}
	if (sp && !vc_str_eq(sp->uid, uid)) {
		/* A new pod under an old name. */
		if (vc_hmap_remove(&s->pod_map, key, &gone))
			sim_pod_free(gone);
		sp = NULL;
	}
	if (!sp) {
		sim_pod_ip(rec->index, rec->ip_seq++, pod_ip, sizeof(pod_ip));
		sim_host_ip(rec->index, host_ip, sizeof(host_ip));
		rc = sim_pod_new(pod, node_name, pod_ip, host_ip, &sp, &err);
		if (!rc && vc_hmap_put(&s->pod_map, key, sp, NULL)) {
			sim_pod_free(sp);
			rc = VC_ENOMEM;
		}
		if (rc) {
			pthread_mutex_unlock(&s->lock);
			json_decref(pod);
			return rc;
		}
		/* A pod that already finished (a restart of the simulator) stays finished. */
		phase = vc_json_get_str(vc_json_get_obj(pod, "status"), "phase");
		if (vc_str_eq(phase, "Succeeded") || vc_str_eq(phase, "Failed")) {
			sp->state = SIM_FINISHED;
			sp->succeeded = vc_str_eq(phase, "Succeeded");
		}
	}
	pthread_mutex_unlock(&s->lock);

	/* Only this worker touches sp now: the queue never hands one key to two workers. */
	now = vc_time_now_ns();
	rc = sim_pod_step(sp, &s->cfg, pod, now, &act, &err);
	if (rc == VC_EINVALID) {
		VC_WARN("bad pod annotation", "pod=%s err=\"%s\"", key, err.text);
		rc = 0;
	}
	if (rc)
		goto out;
	if (act.status) {
		patch = json_pack("{s:O}", "status", act.status);
		rc = patch ? vc_kube_patch(s->kube, &vc_gvr_pods, vc_json_get_str(md, "namespace"),
					   vc_json_get_str(md, "name"), "status", VC_PATCH_MERGE,
					   patch, NULL, &err)
			   : VC_ENOMEM;
		json_decref(patch);
		if (rc == VC_ENOTFOUND)
			rc = 0;
		if (rc) {
			VC_WARN("cannot write pod status", "pod=%s err=\"%s\"", key, err.text);
			goto out;
		}
		VC_LOG(VC_LOG_V(2), "pod status", "pod=%s phase=%s", key,
		       vc_json_get_str(act.status, "phase"));
	}
	if (act.delete_now) {
		struct vc_delete_opts del = { .grace_period_seconds = 0, .precondition_uid = uid };

		rc = vc_kube_delete(s->kube, &vc_gvr_pods, vc_json_get_str(md, "namespace"),
				    vc_json_get_str(md, "name"), &del, &err);
		if (rc == VC_ENOTFOUND || rc == VC_ECONFLICT)
			rc = 0;
		if (rc)
			VC_WARN("cannot delete pod", "pod=%s err=\"%s\"", key, err.text);
		else
			VC_LOG(VC_LOG_V(2), "pod deleted", "pod=%s", key);
	}
	if (act.wake_ns) {
		char qkey[VC_CACHE_KEY_MAX + 8];

		snprintf(qkey, sizeof(qkey), "p/%s", key);
		if (vc_workqueue_add_after(s->queue, qkey,
					   act.wake_ns > now ? act.wake_ns - now : 0))
			rc = VC_ENOMEM;
	}
out:
	json_decref(act.status);
	json_decref(pod);
	return rc;
}

static void *worker_main(void *arg)
{
	struct nodesim *s = arg;
	const char *key;
	void *payload;

	while (!vc_workqueue_get(s->queue, &key, &payload)) {
		int rc = 0;

		if (vc_str_has_prefix(key, "p/"))
			rc = sync_pod(s, key + 2);
		else if (vc_str_has_prefix(key, "n/"))
			rc = sync_node(s, key + 2);
		else if (vc_str_has_prefix(key, "c/"))
			rc = create_node(s, key + 2);
		if (rc) {
			int64_t delay;

			if (vc_workqueue_add_rate_limited(s->queue, key, &delay))
				VC_WARN("cannot requeue", "key=%s", key);
		} else {
			vc_workqueue_forget(s->queue, key);
		}
		vc_workqueue_done(s->queue, key);
	}
	return NULL;
}

/* Renew (or create) the Lease of one node: the kubelet's heartbeat. */
static void renew_lease(struct nodesim *s, const char *name)
{
	struct sim_node *rec;
	bool leased;
	char now[40];
	struct vc_error err;
	json_t *obj;
	int64_t ns = vc_time_now_ns();
	int rc;

	if (vc_time_format_rfc3339_micro(ns / 1000000000LL, (int32_t)(ns % 1000000000LL), now,
					 sizeof(now)))
		return;
	vc_error_clear(&err);
	/* The node may be deleted meanwhile: its record is only touched under the lock. */
	pthread_mutex_lock(&s->lock);
	rec = vc_hmap_get(&s->node_map, name);
	leased = rec && rec->leased;
	pthread_mutex_unlock(&s->lock);
	if (!rec)
		return;
	if (leased) {
		obj = json_pack("{s:{s:s}}", "spec", "renewTime", now);
		rc = obj ? vc_kube_patch(s->kube, &vc_gvr_leases, LEASE_NAMESPACE, name, NULL,
					 VC_PATCH_MERGE, obj, NULL, &err)
			 : VC_ENOMEM;
		json_decref(obj);
		if (rc != VC_ENOTFOUND)
			goto done;
	}
	obj = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:s}}", "apiVersion",
			"coordination.k8s.io/v1", "kind", "Lease", "metadata", "name", name,
			"namespace", LEASE_NAMESPACE, "spec", "holderIdentity", name,
			"leaseDurationSeconds", 40, "renewTime", now);
	rc = obj ? vc_kube_create(s->kube, &vc_gvr_leases, LEASE_NAMESPACE, NULL, NULL, obj, NULL,
				  &err)
		 : VC_ENOMEM;
	json_decref(obj);
	if (rc == VC_EALREADYEXISTS)
		rc = 0;
	if (!rc) {
		pthread_mutex_lock(&s->lock);
		rec = vc_hmap_get(&s->node_map, name);
		if (rec)
			rec->leased = true;
		pthread_mutex_unlock(&s->lock);
	}
done:
	if (rc)
		VC_LOG(VC_LOG_V(1), "cannot renew node lease", "node=%s err=\"%s\"", name,
		       err.text);
}

/*
 * Copies of the names in node_map (only our own nodes when ours_only) in name order, so that the
 * requests made per node do not follow the map's slot order; *n of them, NULL-terminated. Names
 * that cannot be copied are skipped; NULL when out of memory. Lock held (or no threads running).
 */
static char **node_names(struct nodesim *s, bool ours_only, size_t *n)
{
	char **names = vc_calloc(vc_hmap_count(&s->node_map) + 1, sizeof(*names));
	const void *name;
	void *val;
	size_t pos = 0;

	*n = 0;
	while (names && vc_hmap_next(&s->node_map, &pos, &name, &val)) {
		if (ours_only && !((struct sim_node *)val)->ours)
			continue;
		names[*n] = vc_strdup(name);
		if (names[*n])
			(*n)++;
	}
	if (*n)
		qsort(names, *n, sizeof(*names), vc_str_cmp_ptr);
	return names;
}

static void *lease_main(void *arg)
{
	struct nodesim *s = arg;
	char **names;
	size_t i, n;

	while (!s->stop) {
		struct timespec until;

		/* Snapshot the node list, then renew without holding the lock. */
		pthread_mutex_lock(&s->lock);
		names = node_names(s, false, &n);
		pthread_mutex_unlock(&s->lock);
		for (i = 0; i < n && !s->stop; i++)
			renew_lease(s, names[i]);
		for (i = 0; i < n; i++)
			vc_free(names[i]);
		vc_free(names);

		pthread_mutex_lock(&s->lock);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += s->opts->heartbeat_ns / 1000000000LL;
		until.tv_nsec += s->opts->heartbeat_ns % 1000000000LL;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (!s->stop)
			pthread_cond_timedwait(&s->wake, &s->lock, &until);
		pthread_mutex_unlock(&s->lock);
	}
	return NULL;
}

int nodesim_new(struct vc_kube *kube, struct sim_options *opts, struct nodesim **out,
		struct vc_error *err)
{
	struct vc_informer_opts pio = { 0 }, nio = { 0 };
	struct vc_informer_handler ph = { pod_add, pod_update, pod_delete, NULL };
	struct vc_informer_handler nh = { node_add, node_update, node_delete, NULL };
	struct vc_workqueue_opts qo;
	struct nodesim *s;
	size_t i;
	int rc;

	*out = NULL;
	s = vc_calloc(1, sizeof(*s));
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	vc_hmap_init_str(&s->node_map);
	vc_hmap_init_str(&s->pod_map);
	s->kube = kube;
	s->opts = opts;
	s->cfg.default_run_ns = opts->default_run_ns;
	s->cfg.fast_delete = opts->fast_delete;
	s->cfg.backoff_ns = opts->backoff_ns;
	s->cfg.backoff_max_ns = opts->backoff_max_ns;
	for (i = 0; i < opts->ngroups; i++)
		s->next_index += opts->groups[i].count;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	ph.ctx = nh.ctx = s;

	vc_workqueue_opts_init(&qo);
	qo.qps = 0; /* the client's own rate limit is the one that matters */
	s->queue = vc_workqueue_new(&qo);
	if (!s->queue) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	pio.resource = &vc_gvr_pods;
	pio.field_selector = "spec.nodeName!=";
	pio.name = "pods";
	/* managedFields is half of what a cached pod costs, and nothing here reads it. */
	pio.transform = vc_informer_strip_managed_fields;
	nio.resource = &vc_gvr_nodes;
	nio.label_selector = SIM_LABEL "=true";
	nio.name = "nodes";
	rc = vc_informer_new(kube, &pio, &s->pods, err);
	if (!rc)
		rc = vc_informer_new(kube, &nio, &s->nodes, err);
	if (!rc)
		rc = vc_informer_add_handler(s->pods, &ph);
	if (!rc)
		rc = vc_informer_add_handler(s->nodes, &nh);
	if (rc)
		goto fail;
	*out = s;
	return 0;
fail:
	nodesim_free(s);
	return rc;
}

int nodesim_start(struct nodesim *s, struct vc_error *err)
{
	int index = 0, rc;
	size_t g;
	int i;

	/* Nodes first, so pods already bound to them are recognised on the first pod list. */
	rc = vc_informer_start(s->nodes);
	if (rc)
		return vc_error_set(err, rc, "cannot start the node informer");
	s->nworkers = s->opts->workers > 0 ? s->opts->workers : 4;
	s->workers = vc_calloc((size_t)s->nworkers, sizeof(*s->workers));
	if (!s->workers)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < s->nworkers; i++) {
		if (pthread_create(&s->workers[i], NULL, worker_main, s)) {
			s->nworkers = i;
			return vc_error_set(err, VC_ENOMEM, "cannot start worker threads");
		}
	}
	for (g = 0; g < s->opts->ngroups; g++) {
		for (i = 0; i < s->opts->groups[g].count; i++, index++) {
			char name[256];

			snprintf(name, sizeof(name), "%s-%d", s->opts->prefix, index);
			enqueue(s, "c/", name);
		}
	}
	if (vc_informer_wait_synced(s->nodes, 60LL * 1000000000LL))
		return vc_error_set(err, VC_ETIMEDOUT, "the node informer did not sync in 60s");
	rc = vc_informer_start(s->pods);
	if (rc)
		return vc_error_set(err, rc, "cannot start the pod informer");
	if (pthread_create(&s->lease_thread, NULL, lease_main, s))
		return vc_error_set(err, VC_ENOMEM, "cannot start the lease thread");
	s->lease_started = true;
	return 0;
}

void nodesim_stop(struct nodesim *s)
{
	struct vc_error err;
	int i;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (s->lease_started)
		pthread_join(s->lease_thread, NULL);
	s->lease_started = false;
	if (s->pods)
		vc_informer_stop(s->pods);
	if (s->nodes)
		vc_informer_stop(s->nodes);
	if (s->queue)
		vc_workqueue_shutdown(s->queue);
	for (i = 0; i < s->nworkers; i++)
		pthread_join(s->workers[i], NULL);
	s->nworkers = 0;
	if (s->opts->delete_nodes_on_exit) {
		size_t k, n;
		char **names = node_names(s, true, &n);

		for (k = 0; k < n; k++) {
			vc_error_clear(&err);
			if (vc_kube_delete(s->kube, &vc_gvr_nodes, NULL, names[k], NULL, &err) &&
			    err.code != VC_ENOTFOUND)
				VC_WARN("cannot delete node", "node=%s err=\"%s\"", names[k],
					err.text);
			vc_free(names[k]);
		}
		vc_free(names);
	}
}

void nodesim_free(struct nodesim *s)
{
	if (!s)
		return;
	nodesim_stop(s);
	vc_informer_free(s->pods);
	vc_informer_free(s->nodes);
	vc_workqueue_free(s->queue);
	vc_free(s->workers);
	vc_hmap_release(&s->pod_map, free_sim_pod);
	vc_hmap_release(&s->node_map, vc_free);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	vc_free(s);
}

void nodesim_counts(struct nodesim *s, size_t *nodes, size_t *pods)
{
	pthread_mutex_lock(&s->lock);
	*nodes = s->ready_nodes;
	*pods = vc_hmap_count(&s->pod_map);
	pthread_mutex_unlock(&s->lock);
}
