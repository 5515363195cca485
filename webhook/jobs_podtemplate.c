/*
 * jobs_podtemplate.c - the pod-template validation of Job CREATE (docs/volcano/webhooks.md §5.3).
 *
 * Each task's template gets Kubernetes' v1 defaults, then the subset of k8s ValidatePodTemplate
 * that Caldera implements, with its exact texts; a task with a topologyPolicy also gets
 * Volcano's whole-CPU check. How Go decodes and compares a Job (docs/volcano/webhooks.md §2.4, §6)
 * is in jobs_gotypes.c.
 */
#include "admission_internal.h"

#include <stdarg.h>

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_resource.h"
#include "vc_str.h"

/* ---- pod-template validation (docs/volcano/webhooks.md §5.3) --------------------------------- */

struct ptv {
	const struct admission_ctx *ctx;
	struct vc_field_errors errs;
	struct vc_hmap volumes; /* valid, unique volume names (ValidateVolumes) */
	int rc;			/* first VC_ENOMEM */
};

/* Record an allocation failure once; the checks run on and the caller reads p->rc. */
static void ptv_rc(struct ptv *p, int rc)
{
	if (rc < 0 && rc != VC_EINVALID && !p->rc)
		p->rc = rc;
}

/* Add key to a uniqueness set: true when it was new. */
static bool ptv_add(struct ptv *p, struct vc_hmap *set, const char *key)
{
	int rc = admission_hmap_add(set, key, 0);

	ptv_rc(p, rc);
	return rc == 1;
}

static bool set_has(const struct vc_hmap *set, const char *key)
{
	return admission_hmap_get(set, key, NULL);
}

static const char *str_or(const json_t *obj, const char *key, const char *def)
{
	const char *s = vc_json_get_str(obj, key);

	return s && *s ? s : def;
}

static bool member_set(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return v && !json_is_null(v);
}

/* A name check (ValidateDNS1123Label & co): VC_EINVAL with a message per failed rule in msgs. */
typedef int (*ptv_check_fn)(const char *value, struct vc_strlist *msgs);

/* Invalid(path, fv, msg) for each message of check on value: returns how many. */
static size_t ptv_check(struct ptv *p, const struct vc_field_path *path, const char *value,
			struct vc_field_value fv, ptv_check_fn check)
{
	struct vc_strlist msgs;
	size_t i, n;

	vc_strlist_init(&msgs);
	ptv_rc(p, check(value, &msgs));
	for (i = 0; i < msgs.len; i++)
		ptv_rc(p, vc_field_invalid(&p->errs, path, fv, msgs.items[i]));
	n = msgs.len;
	vc_strlist_release(&msgs);
	return n;
}

/* Invalid(path, value, msg) for each message of a name check: returns how many. */
static size_t ptv_name_check(struct ptv *p, const struct vc_field_path *path, const char *value,
			     ptv_check_fn check)
{
	return ptv_check(p, path, value, vc_fv_str(value), check);
}

/* A name that must be set: Required when it is "", else the name check. */
static void ptv_required_name(struct ptv *p, const struct vc_field_path *path, const char *value,
			      ptv_check_fn check)
{
	if (!*value)
		ptv_rc(p, vc_field_required(&p->errs, path, ""));
	else
		ptv_name_check(p, path, value, check);
}

/* An optional name: obj[key], unless absent or "", through the name check at path.key. */
static void ptv_optional_name(struct ptv *p, const json_t *obj, const char *key,
			      const struct vc_field_path *path, ptv_check_fn check)
{
	struct vc_field_path kp = vc_field_path_child(path, key);
	const char *value = str_or(obj, key, "");

	if (*value)
		ptv_name_check(p, &kp, value, check);
}

/* unversionedvalidation.ValidateLabels */
static void ptv_labels(struct ptv *p, const json_t *labels, const struct vc_field_path *path)
{
	const char *key;
	json_t *v;

	json_object_foreach ((json_t *)labels, key, v) {
		ptv_name_check(p, path, key, vc_validate_qualified_name);
		ptv_name_check(p, path, json_is_string(v) ? json_string_value(v) : "",
			       vc_validate_label_value);
	}
}

/* apimachinery's TotalAnnotationSizeLimitB */
#define ANNOTATIONS_MAX ((int64_t)256 * 1024)

/* apimachinery ValidateAnnotations: keys are qualified names in lower case; 256 KiB in all. */
static void ptv_annotations(struct ptv *p, const json_t *annotations,
			    const struct vc_field_path *path)
{
	int64_t total = 0;
	const char *key;
	char *lower;
	size_t i;
	json_t *v;

	json_object_foreach ((json_t *)annotations, key, v) {
		lower = vc_strdup(key);
		if (!lower) {
			ptv_rc(p, VC_ENOMEM);
			continue;
		}
		for (i = 0; lower[i]; i++)
			if (lower[i] >= 'A' && lower[i] <= 'Z')
				lower[i] = (char)(lower[i] - 'A' + 'a');
		ptv_check(p, path, lower, vc_fv_str(key), vc_validate_qualified_name);
		vc_free(lower);
		total += (int64_t)(strlen(key) + (json_is_string(v) ? json_string_length(v) : 0));
	}
	if (total > ANNOTATIONS_MAX)
		ptv_rc(p, vc_field_too_long(&p->errs, path, ANNOTATIONS_MAX));
}

/* A quantity as Kubernetes holds it after SetDefaults_ResourceList (rounded up to milli). */
static bool read_quantity(const json_t *v, struct vc_quantity *q)
{
	__int128 r;

	if (vc_quantity_parse_json(v, q, NULL))
		return false;
	r = q->nanos % 1000000;
	if (r) {
		q->nanos += q->nanos > 0 ? 1000000 - r : -(1000000 + r);
		q->str[0] = '\0';
	}
	return true;
}

static void quantity_text(const struct vc_quantity *q, char *buf)
{
	if (vc_quantity_format(q, buf, VC_QUANTITY_STR_MAX))
		buf[0] = '\0';
}

static bool is_hugepages(const char *name)
{
	return vc_str_has_prefix(name, "hugepages-");
}

/* helper.IsOvercommitAllowed */
static bool overcommit_allowed(const char *name)
{
	return vc_resource_is_native(name) && !is_hugepages(name);
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* helper.IsStandardResourceName */
static bool standard_resource(const char *name)
{
	static const char *const standard[] = {
		"cpu",
		"memory",
		"ephemeral-storage",
		"requests.cpu",
		"requests.memory",
		"requests.ephemeral-storage",
		"limits.cpu",
		"limits.memory",
		"limits.ephemeral-storage",
		"pods",
		"services",
		"replicationcontrollers",
		"resourcequotas",
		"secrets",
		"configmaps",
		"persistentvolumeclaims",
		"storage",
		"requests.storage",
		"services.nodeports",
		"services.loadbalancers",
		NULL,
	};

	return in_list(name, standard) || is_hugepages(name) ||
	       vc_str_has_prefix(name, "requests.hugepages-");
}

/* validateResourceName: returns whether it reported anything. */
static bool ptv_resource_name(struct ptv *p, const char *name, const struct vc_field_path *path)
{
	if (ptv_check(p, path, name, vc_fv_named_str(name), vc_validate_qualified_name))
		return true;
	if (!strchr(name, '/') && !standard_resource(name)) {
		ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_named_str(name),
					   "must be a standard resource type or fully qualified"));
		return true;
	}
	return false;
}

/* validateContainerResourceName */
static void ptv_container_resource_name(struct ptv *p, const char *name,
					const struct vc_field_path *path)
{
	static const char *const container_std[] = { "cpu", "memory", "ephemeral-storage", NULL };

	ptv_resource_name(p, name, path);
	if (!strchr(name, '/')) {
		if (!in_list(name, container_std) && !is_hugepages(name))
			ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_named_str(name),
						   "must be a standard resource for containers"));
	} else if (!vc_resource_is_native(name) && !vc_resource_is_extended(name)) {
		ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_named_str(name),
					   "doesn't follow extended resource name standard"));
	}
}

/* validatePodResourceName (pod-level resources) */
static void ptv_pod_resource_name(struct ptv *p, const char *name, const struct vc_field_path *path)
{
	static const char *const supported[] = { "cpu", "memory" };

	if (ptv_resource_name(p, name, path))
		return;
	if (strcmp(name, "cpu") && strcmp(name, "memory") && !is_hugepages(name))
		ptv_rc(p, vc_field_not_supported(&p->errs, path, vc_fv_named_str(name), supported,
						 VC_ARRAY_SIZE(supported)));
}

/* validateResourceQuantityHugePageValue */
static void ptv_hugepages_value(struct ptv *p, const char *name, const struct vc_quantity *q,
				const struct vc_field_path *path)
{
	struct vc_quantity size;
	char text[VC_QUANTITY_STR_MAX], detail[VC_QUANTITY_STR_MAX + 320];
	int64_t sv;

	if (!is_hugepages(name))
		return;
	if (!vc_quantity_parse(name + strlen("hugepages-"), &size, NULL) &&
	    vc_quantity_sign(&size) > 0 && vc_quantity_milli_value(&size) % 1000 == 0 &&
	    (sv = vc_quantity_value(&size)) != 0 && vc_quantity_value(q) % sv == 0)
		return;
	quantity_text(q, text);
	snprintf(detail, sizeof(detail), "%s is not positive integer multiple of %s", text, name);
	ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_str(text), detail));
}

/*
 * Invalid(path, q, detail) with a formatted detail, for Kubernetes' quantity comparisons. The
 * detail is cut at 511 bytes.
 */
static void ptv_quantity_invalid(struct ptv *p, const struct vc_field_path *path,
				 const struct vc_quantity *q, const char *fmt, ...) VC_PRINTF(4, 5);

static void ptv_quantity_invalid(struct ptv *p, const struct vc_field_path *path,
				 const struct vc_quantity *q, const char *fmt, ...)
{
	char text[VC_QUANTITY_STR_MAX], detail[512];
	va_list ap;

	quantity_text(q, text);
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_str(text), detail));
}

/*
 * The checks a limits or requests entry starts with: the resource name (pod_level picks
 * validatePodResourceName), then the quantity's value. Whether the quantity read into *q.
 */
static bool ptv_resource_entry(struct ptv *p, const char *name, const json_t *v,
			       const struct vc_field_path *path, bool pod_level,
			       struct vc_quantity *q)
{
	if (pod_level)
		ptv_pod_resource_name(p, name, path);
	else
		ptv_container_resource_name(p, name, path);
	if (!read_quantity(v, q))
		return false;
	ptv_rc(p, admission_quantity_errors(&p->errs, path, name, q));
	return true;
}

/* The checks a limits or requests entry ends with: hugepages values; note hugepages, cpu, memory.
 */
static void ptv_resource_kind(struct ptv *p, const char *name, const struct vc_quantity *q,
			      const struct vc_field_path *path, bool *huge, bool *cpumem)
{
	if (is_hugepages(name)) {
		*huge = true;
		ptv_hugepages_value(p, name, q, path);
	}
	if (!strcmp(name, "cpu") || !strcmp(name, "memory"))
		*cpumem = true;
}

/* validateResourceRequirements; pod_level picks validatePodResourceName. */
static void ptv_requirements(struct ptv *p, const json_t *res, const struct vc_field_path *path,
			     bool pod_level)
{
	struct vc_field_path lim = vc_field_path_child(path, "limits");
	struct vc_field_path req = vc_field_path_child(path, "requests");
	const json_t *limits = vc_json_get_obj(res, "limits");
	const json_t *requests = vc_json_get_obj(res, "requests");
	bool lim_cpumem = false, req_cpumem = false, lim_huge = false, req_huge = false;
	struct vc_quantity q, l;
	char lt[VC_QUANTITY_STR_MAX];
	const char *name;
	json_t *v, *lv;

	json_object_foreach ((json_t *)limits, name, v) {
		struct vc_field_path kp = vc_field_path_key(&lim, name);

		if (ptv_resource_entry(p, name, v, &kp, pod_level, &q))
			ptv_resource_kind(p, name, &q, &kp, &lim_huge, &lim_cpumem);
	}
	json_object_foreach ((json_t *)requests, name, v) {
		struct vc_field_path kp = vc_field_path_key(&req, name);

		if (!ptv_resource_entry(p, name, v, &kp, pod_level, &q))
			continue;
		lv = json_object_get(limits, name);
		if (lv && read_quantity(lv, &l)) {
			int cmp = vc_quantity_cmp(&q, &l);

			quantity_text(&l, lt);
			if (cmp != 0 && !overcommit_allowed(name))
				ptv_quantity_invalid(p, &req, &q, "must be equal to %s limit of %s",
						     name, lt);
			else if (cmp > 0)
				ptv_quantity_invalid(p, &req, &q,
						     "must be less than or equal to %s limit of %s",
						     name, lt);
		} else if (!lv && !overcommit_allowed(name)) {
			ptv_rc(p, vc_field_required(&p->errs, &lim,
						    "Limit must be set for non overcommitable "
						    "resources"));
		}
		ptv_resource_kind(p, name, &q, &kp, &req_huge, &req_cpumem);
	}
	if (!lim_cpumem && !req_cpumem && (req_huge || lim_huge))
		ptv_rc(p, vc_field_forbidden(&p->errs, path, "HugePages require cpu or memory"));
}

/* A string member with Kubernetes' enum check: "" is Required, others must be listed. */
static void ptv_enum(struct ptv *p, const char *value, const struct vc_field_path *path,
		     const char *const *supported, size_t n)
{
	size_t i;

	if (!*value) {
		ptv_rc(p, vc_field_required(&p->errs, path, ""));
		return;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(value, supported[i]))
			return;
	ptv_rc(p, vc_field_not_supported(&p->errs, path, vc_fv_named_str(value), supported, n));
}

/* validation.IsValidPortName (IANA service names) */
static int validate_port_name(const char *port, struct vc_strlist *msgs)
{
	size_t n = strlen(port), i;
	bool charset = n > 0, letter = false;
	int rc;

	for (i = 0; i < n; i++) {
		if (port[i] >= 'a' && port[i] <= 'z')
			letter = true;
		else if (!(port[i] >= '0' && port[i] <= '9') && port[i] != '-')
			charset = false;
	}
	if (n > 15 && (rc = vc_strlist_add(msgs, "must be no more than 15 characters")))
		return rc;
	if (!charset && (rc = vc_strlist_add(msgs, "must contain only alpha-numeric characters "
						   "(a-z, 0-9), and hyphens (-)")))
		return rc;
	if (!letter && (rc = vc_strlist_add(msgs, "must contain at least one letter (a-z)")))
		return rc;
	if (strstr(port, "--") &&
	    (rc = vc_strlist_add(msgs, "must not contain consecutive hyphens")))
		return rc;
	if (n && (port[0] == '-' || port[n - 1] == '-') &&
	    (rc = vc_strlist_add(msgs, "must not begin or end with a hyphen")))
		return rc;
	return msgs->len ? VC_EINVALID : 0;
}

/* validateContainerPorts */
static void ptv_ports(struct ptv *p, const json_t *ports, const struct vc_field_path *path)
{
	static const char *const protocols[] = { "SCTP", "TCP", "UDP" };
	struct vc_hmap names;
	const json_t *port;
	size_t i;

	vc_hmap_init_str(&names);
	json_array_foreach (ports, i, port) {
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path np = vc_field_path_child(&ip, "name");
		struct vc_field_path cp = vc_field_path_child(&ip, "containerPort");
		struct vc_field_path hp = vc_field_path_child(&ip, "hostPort");
		struct vc_field_path pp = vc_field_path_child(&ip, "protocol");
		const char *name = str_or(port, "name", "");
		int64_t cport = vc_json_get_int(port, "containerPort", 0);
		int64_t hport = vc_json_get_int(port, "hostPort", 0);

		if (*name && !ptv_name_check(p, &np, name, validate_port_name)) {
			if (set_has(&names, name))
				ptv_rc(p, vc_field_duplicate(&p->errs, &np, vc_fv_str(name)));
			else
				ptv_add(p, &names, name);
		}
		if (cport == 0)
			ptv_rc(p, vc_field_required(&p->errs, &cp, ""));
		else if (cport < 1 || cport > 65535)
			ptv_rc(p, vc_field_invalid(&p->errs, &cp, vc_fv_int(cport),
						   "must be between 1 and 65535, inclusive"));
		if (hport != 0 && (hport < 1 || hport > 65535))
			ptv_rc(p, vc_field_invalid(&p->errs, &hp, vc_fv_int(hport),
						   "must be between 1 and 65535, inclusive"));
		/* SetDefaults: an empty protocol is TCP. */
		ptv_enum(p, str_or(port, "protocol", "TCP"), &pp, protocols,
			 VC_ARRAY_SIZE(protocols));
	}
	vc_hmap_release(&names, NULL);
}

/* ValidateEnv (names only; valueFrom is not checked) */
static void ptv_env(struct ptv *p, const json_t *env, const struct vc_field_path *path)
{
	const json_t *e;
	size_t i;

	json_array_foreach (env, i, e) {
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path np = vc_field_path_child(&ip, "name");
		const char *name = str_or(e, "name", "");

		ptv_required_name(p, &np, name, vc_validate_env_var_name);
	}
}

/* validateLocalDescendingPath */
static void ptv_local_path(struct ptv *p, const char *target, const struct vc_field_path *path)
{
	const char *s = target, *e;

	if (*target == '/')
		ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_str(target),
					   "must be a relative path"));
	for (;;) {
		e = strchr(s, '/');
		if ((e ? (size_t)(e - s) : strlen(s)) == 2 && s[0] == '.' && s[1] == '.') {
			ptv_rc(p, vc_field_invalid(&p->errs, path, vc_fv_str(target),
						   "must not contain '..'"));
			break;
		}
		if (!e)
			break;
		s = e + 1;
	}
}

/* ValidateVolumeMounts (names, paths and subpaths) */
static void ptv_mounts(struct ptv *p, const json_t *mounts, const struct vc_field_path *path)
{
	struct vc_field_path sp = vc_field_path_child(path, "subPath");
	struct vc_field_path sep = vc_field_path_child(path, "subPathExpr");
	struct vc_hmap points;
	const json_t *m;
	size_t i;

	vc_hmap_init_str(&points);
	json_array_foreach (mounts, i, m) {
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path np = vc_field_path_child(&ip, "name");
		struct vc_field_path mp = vc_field_path_child(&ip, "mountPath");
		struct vc_field_path xp = vc_field_path_child(&ip, "subPathExpr");
		const char *name = str_or(m, "name", ""), *mpath = str_or(m, "mountPath", "");
		const char *sub = str_or(m, "subPath", ""), *subx = str_or(m, "subPathExpr", "");

		if (!*name)
			ptv_rc(p, vc_field_required(&p->errs, &np, ""));
		if (!set_has(&p->volumes, name))
			ptv_rc(p, vc_field_not_found(&p->errs, &np, vc_fv_str(name)));
		if (!*mpath)
			ptv_rc(p, vc_field_required(&p->errs, &mp, ""));
		if (!ptv_add(p, &points, mpath) && !p->rc)
			ptv_rc(p,
			       vc_field_invalid(&p->errs, &mp, vc_fv_str(mpath), "must be unique"));
		if (*sub)
			ptv_local_path(p, sub, &sp);
		if (*subx) {
			if (*sub)
				ptv_rc(p, vc_field_invalid(&p->errs, &xp, vc_fv_str(subx),
							   "subPathExpr and subPath are mutually "
							   "exclusive"));
			ptv_local_path(p, subx, &sep);
		}
	}
	vc_hmap_release(&points, NULL);
}

/* validateContainerCommon */
static void ptv_container_common(struct ptv *p, const json_t *c, const struct vc_field_path *path)
{
	static const char *const tm_policies[] = { "File", "FallbackToLogsOnError" };
	static const char *const pull_policies[] = { "Always", "IfNotPresent", "Never" };
	struct vc_field_path np = vc_field_path_child(path, "name");
	struct vc_field_path ip = vc_field_path_child(path, "image");
	struct vc_field_path tp = vc_field_path_child(path, "terminationMessagePolicy");
	struct vc_field_path pp = vc_field_path_child(path, "ports");
	struct vc_field_path ep = vc_field_path_child(path, "env");
	struct vc_field_path mp = vc_field_path_child(path, "volumeMounts");
	struct vc_field_path up = vc_field_path_child(path, "imagePullPolicy");
	struct vc_field_path rp = vc_field_path_child(path, "resources");
	const char *name = str_or(c, "name", "");

	ptv_required_name(p, &np, name, vc_validate_dns1123_label);
	if (!*str_or(c, "image", ""))
		ptv_rc(p, vc_field_required(&p->errs, &ip, ""));
	/* SetDefaults_Container fills the policies, so only a bad value can fail. */
	ptv_enum(p, str_or(c, "terminationMessagePolicy", "File"), &tp, tm_policies,
		 VC_ARRAY_SIZE(tm_policies));
	ptv_ports(p, vc_json_get_arr(c, "ports"), &pp);
	ptv_env(p, vc_json_get_arr(c, "env"), &ep);
	ptv_mounts(p, vc_json_get_arr(c, "volumeMounts"), &mp);
	ptv_enum(p, str_or(c, "imagePullPolicy", "IfNotPresent"), &up, pull_policies,
		 VC_ARRAY_SIZE(pull_policies));
	ptv_requirements(p, vc_json_get_obj(c, "resources"), &rp, false);
}

/* A check on one port that has a hostPort; path is the port's hostPort. */
typedef void (*ptv_port_fn)(struct ptv *p, const json_t *port, int64_t host_port,
			    const struct vc_field_path *path, void *arg);

/*
 * fn on each port with a non-zero hostPort of containers[first..first+n), in order, the paths
 * <path>[i].ports[k].hostPort numbered from 0 at first.
 */
static void ptv_host_ports_each(struct ptv *p, const json_t *containers, size_t first, size_t n,
				const struct vc_field_path *path, ptv_port_fn fn, void *arg)
{
	const json_t *c, *port;
	size_t ci, pi;

	for (ci = 0; ci < n; ci++) {
		struct vc_field_path idx = vc_field_path_index(path, (long)ci);
		struct vc_field_path ports = vc_field_path_child(&idx, "ports");

		c = json_array_get(containers, first + ci);
		json_array_foreach (vc_json_get_arr(c, "ports"), pi, port) {
			struct vc_field_path pidx = vc_field_path_index(&ports, (long)pi);
			struct vc_field_path hp = vc_field_path_child(&pidx, "hostPort");
			int64_t hport = vc_json_get_int(port, "hostPort", 0);

			if (hport)
				fn(p, port, hport, &hp, arg);
		}
	}
}

/* checkHostPortConflicts, one port: arg is the set of protocol/hostIP/hostPort seen. */
static void ptv_host_port_unique(struct ptv *p, const json_t *port, int64_t host_port,
				 const struct vc_field_path *path, void *arg)
{
	char key[512];

	snprintf(key, sizeof(key), "%s/%s/%" PRId64, str_or(port, "protocol", "TCP"),
		 str_or(port, "hostIP", ""), host_port);
	if (!ptv_add(p, arg, key) && !p->rc)
		ptv_rc(p, vc_field_duplicate(&p->errs, path, vc_fv_str(key)));
}

/* checkHostPortConflicts over containers[first..first+n) reported from index 0 on. */
static void ptv_host_ports(struct ptv *p, const json_t *containers, size_t first, size_t n,
			   const struct vc_field_path *path)
{
	struct vc_hmap seen;

	vc_hmap_init_str(&seen);
	ptv_host_ports_each(p, containers, first, n, path, ptv_host_port_unique, &seen);
	vc_hmap_release(&seen, NULL);
}

/* validatePodHostNetworkDeps, one port (in a template, hostPort 0 is allowed). */
static void ptv_host_network_port(struct ptv *p, const json_t *port, int64_t host_port,
				  const struct vc_field_path *path, void *arg)
{
	(void)arg;
	if (host_port != vc_json_get_int(port, "containerPort", 0))
		ptv_rc(p,
		       vc_field_invalid(&p->errs, path, vc_fv_int(host_port),
					"must match `containerPort` when `hostNetwork` is true"));
}

/* validateContainers */
static void ptv_containers(struct ptv *p, const json_t *containers,
			   const struct vc_field_path *path)
{
	struct vc_hmap names;
	const json_t *c;
	size_t i;

	if (!json_array_size(containers)) {
		ptv_rc(p, vc_field_required(&p->errs, path, ""));
		return;
	}
	vc_hmap_init_str(&names);
	json_array_foreach (containers, i, c) {
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path np = vc_field_path_child(&ip, "name");
		struct vc_field_path rp = vc_field_path_child(&ip, "restartPolicy");
		const char *name = str_or(c, "name", "");

		ptv_container_common(p, c, &ip);
		if (!ptv_add(p, &names, name) && !p->rc)
			ptv_rc(p, vc_field_duplicate(&p->errs, &np, vc_fv_str(name)));
		if (member_set(c, "restartPolicy"))
			ptv_rc(p, vc_field_forbidden(&p->errs, &rp,
						     "may not be set for non-init containers"));
	}
	vc_hmap_release(&names, NULL);
	ptv_host_ports(p, containers, 0, json_array_size(containers), path);
}

/* validateInitContainers */
static void ptv_init_containers(struct ptv *p, const json_t *inits, const json_t *containers,
				const struct vc_field_path *path)
{
	static const char *const always[] = { "Always" };
	static const char *const forbidden[] = { "lifecycle", "livenessProbe", "readinessProbe",
						 "startupProbe" };
	struct vc_hmap names;
	const json_t *c;
	size_t i, k;

	vc_hmap_init_str(&names);
	json_array_foreach (containers, i, c) {
		ptv_add(p, &names, str_or(c, "name", ""));
	}
	json_array_foreach (inits, i, c) {
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path np = vc_field_path_child(&ip, "name");
		struct vc_field_path rp = vc_field_path_child(&ip, "restartPolicy");
		struct vc_field_path zp = vc_field_path_child(&ip, "resizePolicy");
		const char *name = str_or(c, "name", "");
		const json_t *restart = json_object_get(c, "restartPolicy");
		const json_t *resize = vc_json_get_arr(c, "resizePolicy");
		bool sidecar = false;

		ptv_container_common(p, c, &ip);
		if (restart && !json_is_null(restart)) {
			const char *rs = json_string_value(restart);

			sidecar = rs && !strcmp(rs, "Always");
			if (!sidecar)
				ptv_rc(p, vc_field_not_supported(&p->errs, &rp,
								 vc_fv_named_str(rs ? rs : ""),
								 always, 1));
		}
		if (set_has(&names, name))
			ptv_rc(p, vc_field_duplicate(&p->errs, &np, vc_fv_str(name)));
		else if (*name)
			ptv_add(p, &names, name);
		ptv_host_ports(p, inits, i, 1, path);
		if (!sidecar) {
			for (k = 0; k < VC_ARRAY_SIZE(forbidden); k++) {
				struct vc_field_path fp = vc_field_path_child(&ip, forbidden[k]);

				if (member_set(c, forbidden[k]))
					ptv_rc(p, vc_field_forbidden(&p->errs, &fp,
								     "may not be set for init "
								     "containers without "
								     "restartPolicy=Always"));
			}
		}
		/* The value prints as Go's JSON of the []ContainerResizePolicy. */
		if (json_array_size(resize))
			ptv_rc(p, vc_field_invalid(&p->errs, &zp, vc_fv_json(resize),
						   "must not be set for init containers"));
	}
	vc_hmap_release(&names, NULL);
}

/* ValidateVolumes, names only: the map of valid volumes that mounts are checked against. */
static void ptv_volumes(struct ptv *p, const json_t *volumes, const struct vc_field_path *path)
{
	const json_t *v;
	size_t i;

	json_array_foreach (volumes, i, v) {
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path np = vc_field_path_child(&ip, "name");
		const char *name = str_or(v, "name", "");
		size_t before = p->errs.len;

		ptv_required_name(p, &np, name, vc_validate_dns1123_label);
		if (set_has(&p->volumes, name))
			ptv_rc(p, vc_field_duplicate(&p->errs, &np, vc_fv_str(name)));
		if (p->errs.len == before)
			ptv_add(p, &p->volumes, name);
	}
}

/* A ResourceList being summed (resourcehelper's addResourceList / maxResourceList). */
struct qentry {
	const char *name; /* borrowed from the template */
	struct vc_quantity q;
};

struct qlist {
	struct qentry *items;
	size_t n, alloc;
};

static struct qentry *qlist_find(struct qlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].name, name))
			return &l->items[i];
	return NULL;
}

/* Add q to the entry name, or raise the entry to q when max is set. 0 or VC_ENOMEM. */
static int qlist_put(struct qlist *l, const char *name, const struct vc_quantity *q, bool max)
{
	struct qentry *e = qlist_find(l, name);

	if (e) {
		if (max) {
			if (vc_quantity_cmp(q, &e->q) > 0)
				e->q = *q;
		} else if (vc_quantity_add(&e->q, q)) {
			/* Past 10^29 units the sum stays where it was. */
		}
		return 0;
	}
	if (l->n == l->alloc) {
		size_t n = l->alloc ? 2 * l->alloc : 8;
		struct qentry *p = vc_realloc(l->items, n * sizeof(*p));

		if (!p)
			return VC_ENOMEM;
		l->items = p;
		l->alloc = n;
	}
	l->items[l->n].name = name;
	l->items[l->n].q = *q;
	l->n++;
	return 0;
}

static int qlist_put_all(struct qlist *l, const struct qlist *from, bool max)
{
	size_t i;
	int rc;

	for (i = 0; i < from->n; i++)
		if ((rc = qlist_put(l, from->items[i].name, &from->items[i].q, max)))
			return rc;
	return 0;
}

/* Put a container's requests (defaulted as SetDefaults_ResourceList does) into l. */
static int qlist_put_requests(struct qlist *l, const json_t *container)
{
	const json_t *reqs = vc_json_get_obj(vc_json_get_obj(container, "resources"), "requests");
	struct vc_quantity q;
	const char *name;
	json_t *v;
	int rc;

	json_object_foreach ((json_t *)reqs, name, v) {
		if (read_quantity(v, &q) && (rc = qlist_put(l, name, &q, false)))
			return rc;
	}
	return 0;
}

static void qlist_release(struct qlist *l)
{
	vc_free(l->items);
	memset(l, 0, sizeof(*l));
}

static int qentry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct qentry *)a)->name, ((const struct qentry *)b)->name);
}

/*
 * resourcehelper.AggregateContainerRequests: the regular containers and the sidecars (init
 * containers with restartPolicy Always) add up; each ordinary init container plus the sidecars
 * started before it is a candidate maximum.
 */
static int aggregate_requests(const json_t *spec, struct qlist *reqs)
{
	struct qlist sidecars = { 0 }, inits = { 0 }, tmp = { 0 };
	const json_t *c;
	size_t i;
	int rc = 0;

	json_array_foreach (vc_json_get_arr(spec, "containers"), i, c) {
		if ((rc = qlist_put_requests(reqs, c)))
			goto out;
	}
	json_array_foreach (vc_json_get_arr(spec, "initContainers"), i, c) {
		const char *restart = vc_json_get_str(c, "restartPolicy");

		tmp.n = 0;
		if (restart && !strcmp(restart, "Always")) {
			if ((rc = qlist_put_requests(reqs, c)) ||
			    (rc = qlist_put_requests(&sidecars, c)) ||
			    (rc = qlist_put_all(&tmp, &sidecars, false)))
				goto out;
		} else if ((rc = qlist_put_requests(&tmp, c)) ||
			   (rc = qlist_put_all(&tmp, &sidecars, false))) {
			goto out;
		}
		if ((rc = qlist_put_all(&inits, &tmp, true)))
			goto out;
	}
	rc = qlist_put_all(reqs, &inits, true);
out:
	qlist_release(&sidecars);
	qlist_release(&inits);
	qlist_release(&tmp);
	return rc;
}

/* validatePodResourceConsistency */
static void ptv_pod_consistency(struct ptv *p, const json_t *spec, const json_t *res,
				const struct vc_field_path *path)
{
	struct vc_field_path reqp = vc_field_path_child(path, "requests");
	struct vc_field_path ctrp = vc_field_path_child(path, "containers");
	char at[VC_QUANTITY_STR_MAX];
	const json_t *c, *limits = vc_json_get_obj(res, "limits"), *v;
	struct qlist reqs = { 0 };
	struct vc_quantity q, pq;
	const char *name;
	size_t i;
	int rc;

	if ((rc = aggregate_requests(spec, &reqs))) {
		ptv_rc(p, rc);
		qlist_release(&reqs);
		return;
	}
	/* Go walks a map here; Caldera reports in resource-name order. */
	if (reqs.n)
		qsort(reqs.items, reqs.n, sizeof(*reqs.items), qentry_cmp);
	for (i = 0; i < reqs.n; i++) {
		struct vc_field_path kp = vc_field_path_key(&reqp, reqs.items[i].name);

		vc_quantity_init(&pq);
		v = json_object_get(vc_json_get_obj(res, "requests"), reqs.items[i].name);
		if (v && !read_quantity(v, &pq))
			vc_quantity_init(&pq);
		if (vc_quantity_cmp(&reqs.items[i].q, &pq) > 0) {
			quantity_text(&reqs.items[i].q, at);
			ptv_quantity_invalid(
				p, &kp, &pq,
				"must be greater than or equal to aggregate container requests of %s",
				at);
		}
	}
	qlist_release(&reqs);
	json_array_foreach (vc_json_get_arr(spec, "containers"), i, c) {
		struct vc_field_path ip = vc_field_path_index(&ctrp, (long)i);

		json_object_foreach (vc_json_get_obj(vc_json_get_obj(c, "resources"), "limits"),
				     name, v) {
			struct vc_field_path kp = vc_field_path_key(&ip, name);
			struct vc_field_path lp = vc_field_path_child(&kp, "limits");
			const json_t *pl = json_object_get(limits, name);

			if (!pl || !read_quantity(v, &q) || !read_quantity(pl, &pq))
				continue;
			if (vc_quantity_cmp(&q, &pq) > 0) {
				quantity_text(&pq, at);
				ptv_quantity_invalid(
					p, &lp, &q,
					"must be less than or equal to pod limits of %s", at);
			}
		}
	}
}

/* ValidatePodSpec (the implemented subset, in Kubernetes' order) */
static void ptv_pod_spec(struct ptv *p, const json_t *spec, const struct vc_field_path *path)
{
	static const char *const restart_policies[] = { "Always", "OnFailure", "Never" };
	static const char *const dns_policies[] = { "ClusterFirstWithHostNet", "ClusterFirst",
						    "Default", "None" };
	static const char *const preempt[] = { "PreemptLowerPriority", "Never" };
	struct vc_field_path vp = vc_field_path_child(path, "volumes");
	struct vc_field_path cp = vc_field_path_child(path, "containers");
	struct vc_field_path ip = vc_field_path_child(path, "initContainers");
	struct vc_field_path rsp = vc_field_path_child(path, "resources");
	struct vc_field_path rp = vc_field_path_child(path, "restartPolicy");
	struct vc_field_path dp = vc_field_path_child(path, "dnsPolicy");
	struct vc_field_path nsp = vc_field_path_child(path, "nodeSelector");
	struct vc_field_path dcp = vc_field_path_child(path, "dnsConfig");
	struct vc_field_path adp = vc_field_path_child(path, "activeDeadlineSeconds");
	struct vc_field_path rcp = vc_field_path_child(path, "runtimeClassName");
	struct vc_field_path ppp = vc_field_path_child(path, "preemptionPolicy");
	struct vc_field_path ohp = vc_field_path_child(path, "overhead");
	const json_t *containers = vc_json_get_arr(spec, "containers");
	const json_t *res = vc_json_get_obj(spec, "resources"), *v;
	const char *dns = str_or(spec, "dnsPolicy", "ClusterFirst");

	ptv_volumes(p, vc_json_get_arr(spec, "volumes"), &vp);
	ptv_containers(p, containers, &cp);
	ptv_init_containers(p, vc_json_get_arr(spec, "initContainers"), containers, &ip);
	if (p->ctx->config && p->ctx->config->pod_level_resources && res) {
		struct vc_field_path clp = vc_field_path_child(&rsp, "claims");

		if (member_set(res, "claims"))
			ptv_rc(p, vc_field_forbidden(&p->errs, &clp,
						     "claims cannot be set for Resources at "
						     "pod-level"));
		ptv_requirements(p, res, &rsp, true);
		ptv_pod_consistency(p, spec, res, &rsp);
	}
	/* validatePodHostNetworkDeps (in a template, hostPort 0 is allowed) */
	if (vc_json_get_bool(spec, "hostNetwork", false))
		ptv_host_ports_each(p, containers, 0, json_array_size(containers), &cp,
				    ptv_host_network_port, NULL);
	ptv_enum(p, str_or(spec, "restartPolicy", "Always"), &rp, restart_policies,
		 VC_ARRAY_SIZE(restart_policies));
	ptv_enum(p, dns, &dp, dns_policies, VC_ARRAY_SIZE(dns_policies));
	ptv_labels(p, vc_json_get_obj(spec, "nodeSelector"), &nsp);
	if (!strcmp(dns, "None")) {
		const json_t *dc = vc_json_get_obj(spec, "dnsConfig");
		struct vc_field_path nsv = vc_field_path_child(&dcp, "nameservers");

		if (!dc)
			ptv_rc(p, vc_field_required(&p->errs, &dcp,
						    "must provide `dnsConfig` when `dnsPolicy` is "
						    "None"));
		else if (!json_array_size(vc_json_get_arr(dc, "nameservers")))
			ptv_rc(p, vc_field_required(&p->errs, &nsv,
						    "must provide at least one DNS nameserver when "
						    "`dnsPolicy` is None"));
	}
	ptv_optional_name(p, spec, "serviceAccountName", path, vc_validate_dns1123_subdomain);
	ptv_optional_name(p, spec, "nodeName", path, vc_validate_dns1123_subdomain);
	v = json_object_get(spec, "activeDeadlineSeconds");
	if (json_is_integer(v) && (json_integer_value(v) < 1 || json_integer_value(v) > INT32_MAX))
		ptv_rc(p, vc_field_invalid(&p->errs, &adp, vc_fv_int(json_integer_value(v)),
					   "must be between 1 and 2147483647, inclusive"));
	ptv_optional_name(p, spec, "hostname", path, vc_validate_dns1123_label);
	ptv_optional_name(p, spec, "subdomain", path, vc_validate_dns1123_label);
	ptv_optional_name(p, spec, "priorityClassName", path, vc_validate_dns1123_subdomain);
	if (json_is_string(json_object_get(spec, "runtimeClassName")))
		ptv_name_check(p, &rcp, vc_json_get_str(spec, "runtimeClassName"),
			       vc_validate_dns1123_subdomain);
	if (json_is_string(json_object_get(spec, "preemptionPolicy")))
		ptv_enum(p, vc_json_get_str(spec, "preemptionPolicy"), &ppp, preempt,
			 VC_ARRAY_SIZE(preempt));
	if (member_set(spec, "overhead")) {
		json_t *wrap = json_pack("{sO}", "limits", json_object_get(spec, "overhead"));

		if (!wrap)
			ptv_rc(p, VC_ENOMEM);
		else
			ptv_requirements(p, wrap, &ohp, false);
		json_decref(wrap);
	}
}

/* k8s ValidatePodTemplate of the task's template named TN in the job's namespace. */
static int ptv_run(struct ptv *p, const json_t *tmpl, const char *task_name, const char *ns)
{
	struct vc_field_path meta = vc_field_path_root("metadata");
	struct vc_field_path mname = vc_field_path_child(&meta, "name");
	struct vc_field_path mns = vc_field_path_child(&meta, "namespace");
	struct vc_field_path tp = vc_field_path_root("template");
	struct vc_field_path lp = vc_field_path_child(&tp, "labels");
	struct vc_field_path ap = vc_field_path_child(&tp, "annotations");
	struct vc_field_path sp = vc_field_path_child(&tp, "spec");
	struct vc_field_path ep = vc_field_path_child(&sp, "ephemeralContainers");
	const json_t *tmeta = vc_json_get_obj(tmpl, "metadata");
	const json_t *spec = vc_json_get_obj(tmpl, "spec");

	if (!*task_name)
		ptv_rc(p, vc_field_required(&p->errs, &mname, "name or generateName is required"));
	else
		ptv_name_check(p, &mname, task_name, vc_validate_dns1123_subdomain);
	ptv_required_name(p, &mns, ns, vc_validate_dns1123_label);
	ptv_labels(p, vc_json_get_obj(tmeta, "labels"), &lp);
	ptv_annotations(p, vc_json_get_obj(tmeta, "annotations"), &ap);
	ptv_pod_spec(p, spec, &sp);
	if (json_array_size(vc_json_get_arr(spec, "ephemeralContainers")))
		ptv_rc(p, vc_field_forbidden(&p->errs, &ep,
					     "ephemeral containers not allowed in pod template"));
	return p->rc;
}

/* validateTaskTopoPolicy: every CPU request a non-zero whole number of cores. */
static int task_topology(const json_t *task, size_t index, struct vc_buf *msg)
{
	const char *policy = str_or(task, "topologyPolicy", "");
	const json_t *spec = vc_json_get_obj(vc_json_get_obj(task, "template"), "spec");
	static const char *const lists[] = { "containers", "initContainers" };
	struct vc_quantity q;
	size_t l, i, k = 0;
	const json_t *c;

	if (!*policy || !strcmp(policy, "none"))
		return 0;
	for (l = 0; l < VC_ARRAY_SIZE(lists); l++) {
		json_array_foreach (vc_json_get_arr(spec, lists[l]), i, c) {
			const json_t *res = vc_json_get_obj(c, "resources");
			const json_t *reqs = vc_json_get_obj(res, "requests");
			int64_t value;

			if (!json_object_size(reqs))
				reqs = vc_json_get_obj(res, "limits");
			vc_quantity_init(&q);
			if (json_object_get(reqs, "cpu") &&
			    vc_quantity_parse_json(json_object_get(reqs, "cpu"), &q, NULL))
				vc_quantity_init(&q);
			value = vc_quantity_value(&q);
			/* Go's Value()*1000 wraps; so does this. */
			if (value == 0 ||
			    (int64_t)((uint64_t)value * 1000u) != vc_quantity_milli_value(&q))
				return vc_buf_addf(
					msg,
					"the cpu request isn't an integer in spec.task[%zu] "
					"container[%zu].",
					index, k);
			k++;
		}
	}
	return 0;
}

int admit_job_task_template(const struct admission_ctx *ctx, const json_t *task, size_t index,
			    const char *task_name, const char *ns, struct vc_buf *msg)
{
	struct ptv p = { .ctx = ctx };
	size_t i;
	int rc;

	vc_field_errors_init(&p.errs);
	vc_hmap_init_str(&p.volumes);
	rc = ptv_run(&p, vc_json_get_obj(task, "template"), task_name, ns);
	if (!rc && p.errs.len) {
		rc = vc_buf_addf(msg, "spec.task[%zu].", index);
		for (i = 0; !rc && i < p.errs.len; i++)
			if (!(rc = vc_field_error_format(&p.errs.items[i], msg)))
				rc = vc_buf_adds(msg, ". ");
	} else if (!rc) {
		rc = task_topology(task, index, msg);
	}
	vc_field_errors_release(&p.errs);
	vc_hmap_release(&p.volumes, NULL);
	return rc;
}
