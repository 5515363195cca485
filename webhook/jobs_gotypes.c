/*
 * jobs_gotypes.c - what a Job looks like to Go's encoding/json, for the Job handlers in jobs.c.
 *
 * Two things need Go's typed view of a batch.volcano.sh/v1alpha1 Job rather than its JSON:
 *
 *   - decoding (docs/volcano/webhooks.md §2.4): Go decodes request.object into typed structs, and a
 * JSON value of the wrong type denies the review with encoding/json's text
 *     ("json: cannot unmarshal string into Go struct field JobSpec.spec.minAvailable of type
 *     int32");
 *   - semantic equality on UPDATE (docs/volcano/webhooks.md §6): absent equals zero, nil equals
 * empty for slices and maps but not for pointers, quantities compare by value.
 *
 * Both are driven by one table of Go types (struct jtype below). It models every field of
 * Volcano's Job types and the commonly used fields of the Kubernetes PodTemplateSpec; anything
 * else is decoded as "any JSON" (not type-checked, compared as plain JSON). The pod-template
 * validation of CREATE (docs/volcano/webhooks.md §5.3) is in jobs_podtemplate.c.
 */
#include "admission_internal.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- the Go type table ------------------------------------------------------------------- */

enum jt_kind {
	JT_ANY = 0,  /* any JSON: not checked, compared as JSON */
	JT_STRING,   /* string or a named string type */
	JT_BOOL,     /* bool */
	JT_INT32,    /* int32 */
	JT_INT64,    /* int64 */
	JT_INT,	     /* Go int (64-bit) */
	JT_QUANTITY, /* resource.Quantity (an Unmarshaler) */
	JT_DURATION, /* metav1.Duration (an Unmarshaler) */
	JT_STRUCT,   /* a struct; fields below */
	JT_SLICE,    /* []elem */
	JT_MAP,	     /* map[string]elem */
};

struct jfield;

struct jtype {
	enum jt_kind kind;
	const char *go; /* reflect.Type.String(), as encoding/json prints it */
	const struct jfield *fields;
	const struct jtype *elem;
	/*
	 * A struct whose fields are modelled only in part: members not in the table may be real
	 * Go fields, so equality keeps them (as JSON). In a complete ("closed") struct they are
	 * unknown to Go, dropped by its decoder, and so ignored here too.
	 */
	bool open;
};

struct jfield {
	const char *json;
	const struct jtype *type;
	bool ptr; /* a pointer field: null and absent are nil, distinct from the zero value */
};

#define SCALAR(id, k, name) static const struct jtype id = { k, name, NULL, NULL, false }
#define STRUCT(id, name) \
	static const struct jtype id = { JT_STRUCT, name, id##_fields, NULL, false }
#define STRUCT_OPEN(id, name) \
	static const struct jtype id = { JT_STRUCT, name, id##_fields, NULL, true }
#define OPAQUE(id, name)   static const struct jtype id = { JT_STRUCT, name, no_fields, NULL, true }
#define SLICE(id, name, e) static const struct jtype id = { JT_SLICE, name, NULL, &(e), false }
#define MAP(id, name, e)   static const struct jtype id = { JT_MAP, name, NULL, &(e), false }

static const struct jfield no_fields[] = { { NULL, NULL, false } };

SCALAR(t_any, JT_ANY, "interface {}");
SCALAR(t_string, JT_STRING, "string");
SCALAR(t_bool, JT_BOOL, "bool");
SCALAR(t_int32, JT_INT32, "int32");
SCALAR(t_int64, JT_INT64, "int64");
SCALAR(t_int, JT_INT, "int");
SCALAR(t_quantity, JT_QUANTITY, "resource.Quantity");
SCALAR(t_duration, JT_DURATION, "v1.Duration");
SCALAR(t_uid, JT_STRING, "types.UID");
SCALAR(t_numa, JT_STRING, "v1alpha1.NumaPolicy");
SCALAR(t_event, JT_STRING, "v1alpha1.Event");
SCALAR(t_action, JT_STRING, "v1alpha1.Action");
SCALAR(t_iteration, JT_STRING, "v1alpha1.Iteration");
SCALAR(t_ntmode, JT_STRING, "v1alpha1.NetworkTopologyMode");
SCALAR(t_restart, JT_STRING, "v1.RestartPolicy");
SCALAR(t_dns, JT_STRING, "v1.DNSPolicy");
SCALAR(t_pull, JT_STRING, "v1.PullPolicy");
SCALAR(t_tmpolicy, JT_STRING, "v1.TerminationMessagePolicy");
SCALAR(t_protocol, JT_STRING, "v1.Protocol");
SCALAR(t_ctr_restart, JT_STRING, "v1.ContainerRestartPolicy");
SCALAR(t_preempt, JT_STRING, "v1.PreemptionPolicy");
SCALAR(t_mountprop, JT_STRING, "v1.MountPropagationMode");
SCALAR(t_rro, JT_STRING, "v1.RecursiveReadOnlyMode");
SCALAR(t_tol_op, JT_STRING, "v1.TolerationOperator");
SCALAR(t_taint_effect, JT_STRING, "v1.TaintEffect");
SCALAR(t_hostpath_type, JT_STRING, "v1.HostPathType");
SCALAR(t_medium, JT_STRING, "v1.StorageMedium");

SLICE(t_strings, "[]string", t_string);
SLICE(t_events, "[]v1alpha1.Event", t_event);
MAP(t_map_ss, "map[string]string", t_string);
MAP(t_plugins, "map[string][]string", t_strings);
MAP(t_reslist, "v1.ResourceList", t_quantity);

/* metav1.ObjectMeta */
static const struct jfield t_meta_fields[] = {
	{ "name", &t_string, false },
	{ "generateName", &t_string, false },
	{ "namespace", &t_string, false },
	{ "selfLink", &t_string, false },
	{ "uid", &t_uid, false },
	{ "resourceVersion", &t_string, false },
	{ "generation", &t_int64, false },
	{ "creationTimestamp", &t_any, false },
	{ "deletionTimestamp", &t_any, true },
	{ "deletionGracePeriodSeconds", &t_int64, true },
	{ "labels", &t_map_ss, false },
	{ "annotations", &t_map_ss, false },
	{ "ownerReferences", &t_any, false },
	{ "finalizers", &t_strings, false },
	{ "managedFields", &t_any, false },
	{ NULL, NULL, false },
};
STRUCT(t_meta, "v1.ObjectMeta");

/* ---- core/v1 PodTemplateSpec (the fields Caldera models) ---- */

OPAQUE(t_pod_security, "v1.PodSecurityContext");
OPAQUE(t_security, "v1.SecurityContext");
OPAQUE(t_affinity, "v1.Affinity");
OPAQUE(t_probe, "v1.Probe");
OPAQUE(t_lifecycle, "v1.Lifecycle");
OPAQUE(t_env_source, "v1.EnvVarSource");
OPAQUE(t_dns_config, "v1.PodDNSConfig");
OPAQUE(t_pod_os, "v1.PodOS");
OPAQUE(t_pvc_spec, "v1.PersistentVolumeClaimSpec");

static const struct jfield t_port_fields[] = {
	{ "name", &t_string, false },	      { "hostPort", &t_int32, false },
	{ "containerPort", &t_int32, false }, { "protocol", &t_protocol, false },
	{ "hostIP", &t_string, false },	      { NULL, NULL, false },
};
STRUCT(t_port, "v1.ContainerPort");
SLICE(t_ports, "[]v1.ContainerPort", t_port);

static const struct jfield t_env_fields[] = {
	{ "name", &t_string, false },
	{ "value", &t_string, false },
	{ "valueFrom", &t_env_source, true },
	{ NULL, NULL, false },
};
STRUCT(t_env, "v1.EnvVar");
SLICE(t_envs, "[]v1.EnvVar", t_env);

static const struct jfield t_resources_fields[] = {
	{ "limits", &t_reslist, false },
	{ "requests", &t_reslist, false },
	{ "claims", &t_any, false },
	{ NULL, NULL, false },
};
STRUCT(t_resources, "v1.ResourceRequirements");

static const struct jfield t_mount_fields[] = {
	{ "name", &t_string, false },	       { "readOnly", &t_bool, false },
	{ "recursiveReadOnly", &t_rro, true }, { "mountPath", &t_string, false },
	{ "subPath", &t_string, false },       { "mountPropagation", &t_mountprop, true },
	{ "subPathExpr", &t_string, false },   { NULL, NULL, false },
};
STRUCT(t_mount, "v1.VolumeMount");
SLICE(t_mounts, "[]v1.VolumeMount", t_mount);

static const struct jfield t_container_fields[] = {
	{ "name", &t_string, false },
	{ "image", &t_string, false },
	{ "command", &t_strings, false },
	{ "args", &t_strings, false },
	{ "workingDir", &t_string, false },
	{ "ports", &t_ports, false },
	{ "envFrom", &t_any, false },
	{ "env", &t_envs, false },
	{ "resources", &t_resources, false },
	{ "resizePolicy", &t_any, false },
	{ "restartPolicy", &t_ctr_restart, true },
	{ "volumeMounts", &t_mounts, false },
	{ "volumeDevices", &t_any, false },
	{ "livenessProbe", &t_probe, true },
	{ "readinessProbe", &t_probe, true },
	{ "startupProbe", &t_probe, true },
	{ "lifecycle", &t_lifecycle, true },
	{ "terminationMessagePath", &t_string, false },
	{ "terminationMessagePolicy", &t_tmpolicy, false },
	{ "imagePullPolicy", &t_pull, false },
	{ "securityContext", &t_security, true },
	{ "stdin", &t_bool, false },
	{ "stdinOnce", &t_bool, false },
	{ "tty", &t_bool, false },
	{ NULL, NULL, false },
};
STRUCT_OPEN(t_container, "v1.Container");
SLICE(t_containers, "[]v1.Container", t_container);

static const struct jfield t_hostpath_fields[] = {
	{ "path", &t_string, false },
	{ "type", &t_hostpath_type, true },
	{ NULL, NULL, false },
};
STRUCT(t_hostpath, "v1.HostPathVolumeSource");
static const struct jfield t_emptydir_fields[] = {
	{ "medium", &t_medium, false },
	{ "sizeLimit", &t_quantity, true },
	{ NULL, NULL, false },
};
STRUCT(t_emptydir, "v1.EmptyDirVolumeSource");
static const struct jfield t_claimsrc_fields[] = {
	{ "claimName", &t_string, false },
	{ "readOnly", &t_bool, false },
	{ NULL, NULL, false },
};
STRUCT(t_claimsrc, "v1.PersistentVolumeClaimVolumeSource");
OPAQUE(t_secretsrc, "v1.SecretVolumeSource");
OPAQUE(t_cmsrc, "v1.ConfigMapVolumeSource");

static const struct jfield t_volume_fields[] = {
	{ "name", &t_string, false },
	{ "hostPath", &t_hostpath, true },
	{ "emptyDir", &t_emptydir, true },
	{ "secret", &t_secretsrc, true },
	{ "persistentVolumeClaim", &t_claimsrc, true },
	{ "configMap", &t_cmsrc, true },
	{ NULL, NULL, false },
};
STRUCT_OPEN(t_volume, "v1.Volume");
SLICE(t_volumes, "[]v1.Volume", t_volume);

static const struct jfield t_toleration_fields[] = {
	{ "key", &t_string, false },
	{ "operator", &t_tol_op, false },
	{ "value", &t_string, false },
	{ "effect", &t_taint_effect, false },
	{ "tolerationSeconds", &t_int64, true },
	{ NULL, NULL, false },
};
STRUCT(t_toleration, "v1.Toleration");
SLICE(t_tolerations, "[]v1.Toleration", t_toleration);

static const struct jfield t_named_fields[] = { { "name", &t_string, false },
						{ NULL, NULL, false } };
STRUCT(t_named, "v1.LocalObjectReference");
SLICE(t_named_list, "[]v1.LocalObjectReference", t_named);

static const struct jfield t_pod_spec_fields[] = {
	{ "volumes", &t_volumes, false },
	{ "initContainers", &t_containers, false },
	{ "containers", &t_containers, false },
	{ "ephemeralContainers", &t_any, false },
	{ "restartPolicy", &t_restart, false },
	{ "terminationGracePeriodSeconds", &t_int64, true },
	{ "activeDeadlineSeconds", &t_int64, true },
	{ "dnsPolicy", &t_dns, false },
	{ "nodeSelector", &t_map_ss, false },
	{ "serviceAccountName", &t_string, false },
	{ "serviceAccount", &t_string, false },
	{ "automountServiceAccountToken", &t_bool, true },
	{ "nodeName", &t_string, false },
	{ "hostNetwork", &t_bool, false },
	{ "hostPID", &t_bool, false },
	{ "hostIPC", &t_bool, false },
	{ "shareProcessNamespace", &t_bool, true },
	{ "securityContext", &t_pod_security, true },
	{ "imagePullSecrets", &t_named_list, false },
	{ "hostname", &t_string, false },
	{ "subdomain", &t_string, false },
	{ "affinity", &t_affinity, true },
	{ "schedulerName", &t_string, false },
	{ "tolerations", &t_tolerations, false },
	{ "hostAliases", &t_any, false },
	{ "priorityClassName", &t_string, false },
	{ "priority", &t_int32, true },
	{ "dnsConfig", &t_dns_config, true },
	{ "readinessGates", &t_any, false },
	{ "runtimeClassName", &t_string, true },
	{ "enableServiceLinks", &t_bool, true },
	{ "preemptionPolicy", &t_preempt, true },
	{ "overhead", &t_reslist, false },
	{ "topologySpreadConstraints", &t_any, false },
	{ "setHostnameAsFQDN", &t_bool, true },
	{ "os", &t_pod_os, true },
	{ "hostUsers", &t_bool, true },
	{ "schedulingGates", &t_any, false },
	{ "resourceClaims", &t_any, false },
	{ "resources", &t_resources, true },
	{ NULL, NULL, false },
};
STRUCT_OPEN(t_pod_spec, "v1.PodSpec");

static const struct jfield t_template_fields[] = {
	{ "metadata", &t_meta, false },
	{ "spec", &t_pod_spec, false },
	{ NULL, NULL, false },
};
STRUCT(t_template, "v1.PodTemplateSpec");

/* ---- batch.volcano.sh/v1alpha1 ---- */

static const struct jfield t_nt_fields[] = {
	{ "mode", &t_ntmode, false },
	{ "highestTierAllowed", &t_int, true },
	{ "highestTierName", &t_string, false },
	{ NULL, NULL, false },
};
STRUCT(t_nt, "v1alpha1.NetworkTopologySpec");

static const struct jfield t_partition_fields[] = {
	{ "totalPartitions", &t_int32, false },
	{ "partitionSize", &t_int32, false },
	{ "networkTopology", &t_nt, true },
	{ "minPartitions", &t_int32, false },
	{ NULL, NULL, false },
};
STRUCT(t_partition, "v1alpha1.PartitionPolicySpec");

static const struct jfield t_depends_fields[] = {
	{ "name", &t_strings, false },
	{ "iteration", &t_iteration, false },
	{ NULL, NULL, false },
};
STRUCT(t_depends, "v1alpha1.DependsOn");

static const struct jfield t_policy_fields[] = {
	{ "action", &t_action, false },	  { "event", &t_event, false },
	{ "events", &t_events, false },	  { "exitCode", &t_int32, true },
	{ "timeout", &t_duration, true }, { NULL, NULL, false },
};
STRUCT(t_policy, "v1alpha1.LifecyclePolicy");
SLICE(t_policies, "[]v1alpha1.LifecyclePolicy", t_policy);

static const struct jfield t_volspec_fields[] = {
	{ "mountPath", &t_string, false },
	{ "volumeClaimName", &t_string, false },
	{ "volumeClaim", &t_pvc_spec, true },
	{ NULL, NULL, false },
};
STRUCT(t_volspec, "v1alpha1.VolumeSpec");
SLICE(t_volspecs, "[]v1alpha1.VolumeSpec", t_volspec);

static const struct jfield t_task_fields[] = {
	{ "name", &t_string, false },
	{ "replicas", &t_int32, false },
	{ "minAvailable", &t_int32, true },
	{ "template", &t_template, false },
	{ "policies", &t_policies, false },
	{ "topologyPolicy", &t_numa, false },
	{ "maxRetry", &t_int32, false },
	{ "dependsOn", &t_depends, true },
	{ "partitionPolicy", &t_partition, true },
	{ NULL, NULL, false },
};
STRUCT(t_task, "v1alpha1.TaskSpec");
SLICE(t_tasks, "[]v1alpha1.TaskSpec", t_task);

static const struct jfield t_job_spec_fields[] = {
	{ "schedulerName", &t_string, false },	   { "minAvailable", &t_int32, false },
	{ "volumes", &t_volspecs, false },	   { "tasks", &t_tasks, false },
	{ "policies", &t_policies, false },	   { "plugins", &t_plugins, false },
	{ "runningEstimate", &t_duration, true },  { "queue", &t_string, false },
	{ "maxRetry", &t_int32, false },	   { "ttlSecondsAfterFinished", &t_int32, true },
	{ "priorityClassName", &t_string, false }, { "minSuccess", &t_int32, true },
	{ "networkTopology", &t_nt, true },	   { NULL, NULL, false },
};
STRUCT(t_job_spec, "v1alpha1.JobSpec");

static const struct jfield t_job_fields[] = {
	{ "kind", &t_string, false },	{ "apiVersion", &t_string, false },
	{ "metadata", &t_meta, false }, { "spec", &t_job_spec, false },
	{ "status", &t_any, false },	{ NULL, NULL, false },
};
STRUCT(t_job, "v1alpha1.Job");

static const struct jfield *find_field(const struct jtype *t, const char *key)
{
	const struct jfield *f;

	for (f = t->fields; f && f->json; f++)
		if (!strcmp(f->json, key))
			return f;
	return NULL;
}

/* The struct's Name() as reflect gives it: the type string after the package. */
static const char *struct_name(const struct jtype *t)
{
	const char *dot = strrchr(t->go, '.');

	return dot ? dot + 1 : t->go;
}

/* ---- decoding: encoding/json's type errors ----------------------------------------------- */

#define TC_MAX_DEPTH 32

struct typecheck {
	const char *stack[TC_MAX_DEPTH]; /* errorContext.FieldStack */
	size_t depth;
	const char *strct; /* errorContext.Struct.Name(), NULL before the first field */
	char *saved;	   /* the first UnmarshalTypeError (decoding goes on after it) */
	char *fatal;	   /* an Unmarshaler's error (decoding stops at it) */
	bool nomem;
};

static void tc_type_error(struct typecheck *tc, const char *value, const struct jtype *t)
{
	struct vc_buf b;
	size_t i;

	if (tc->saved || tc->nomem)
		return;
	vc_buf_init(&b, 0);
	if (vc_buf_addf(&b, "json: cannot unmarshal %s into Go ", value))
		goto nomem;
	if (tc->strct || tc->depth) {
		if (vc_buf_addf(&b, "struct field %s.", tc->strct ? tc->strct : ""))
			goto nomem;
		for (i = 0; i < tc->depth; i++)
			if (vc_buf_addf(&b, "%s%s", i ? "." : "", tc->stack[i]))
				goto nomem;
	} else if (vc_buf_adds(&b, "value")) {
		goto nomem;
	}
	if (vc_buf_addf(&b, " of type %s", t->go) || !(tc->saved = vc_buf_take(&b)))
		goto nomem;
	return;
nomem:
	vc_buf_release(&b);
	tc->nomem = true;
}

static void tc_fatal(struct typecheck *tc, const char *text)
{
	if (tc->fatal || tc->nomem)
		return;
	tc->fatal = vc_strdup(text);
	if (!tc->fatal)
		tc->nomem = true;
}

/* Whether v is an integer that a field of the intN kind holds (else Go prints "number <v>"). */
static bool tc_int_fits(const json_t *v, enum jt_kind kind)
{
	json_int_t n;

	if (!json_is_integer(v))
		return false;
	n = json_integer_value(v);
	if (kind == JT_INT32)
		return n >= INT32_MIN && n <= INT32_MAX;
	return true;
}

static void tc_number_error(struct typecheck *tc, const json_t *v, const struct jtype *t)
{
	struct vc_buf b;
	char *lit;

	/* Go quotes the literal as written; jansson keeps values, so reals print shortest. */
	vc_buf_init(&b, 0);
	if (vc_buf_adds(&b, "number ") || vc_go_json(v, &b) || !(lit = vc_buf_take(&b))) {
		vc_buf_release(&b);
		tc->nomem = true;
		return;
	}
	tc_type_error(tc, lit, t);
	vc_free(lit);
}

static void tc_value(struct typecheck *tc, const json_t *v, const struct jtype *t);

static void tc_struct(struct typecheck *tc, const json_t *v, const struct jtype *t)
{
	const char *key, *saved_struct = tc->strct;
	size_t saved_depth = tc->depth;
	const struct jfield *f;
	json_t *member;

	json_object_foreach ((json_t *)v, key, member) {
		if (tc->fatal || tc->nomem)
			return;
		f = find_field(t, key);
		if (!f)
			continue;
		if (tc->depth < TC_MAX_DEPTH)
			tc->stack[tc->depth++] = f->json;
		tc->strct = struct_name(t);
		tc_value(tc, member, f->type);
		tc->depth = saved_depth;
		tc->strct = saved_struct;
	}
}

static void tc_value(struct typecheck *tc, const json_t *v, const struct jtype *t)
{
	struct vc_quantity q;
	struct vc_error err;
	const json_t *elem;
	const char *key;
	int64_t ns;
	size_t i;

	/* null is a no-op (or nil) for every type modelled here. */
	if (json_is_null(v) || t->kind == JT_ANY)
		return;
	switch (t->kind) {
	case JT_STRING:
		if (!json_is_string(v))
			tc_type_error(tc, admission_json_kind(v), t);
		break;
	case JT_BOOL:
		if (!json_is_boolean(v))
			tc_type_error(tc, admission_json_kind(v), t);
		break;
	case JT_INT32:
	case JT_INT64:
	case JT_INT:
		if (json_is_number(v) && !tc_int_fits(v, t->kind))
			tc_number_error(tc, v, t);
		else if (!json_is_number(v))
			tc_type_error(tc, admission_json_kind(v), t);
		break;
	case JT_QUANTITY:
		/* Quantity.UnmarshalJSON: any JSON text goes to ParseQuantity. */
		if (json_is_string(v) || json_is_number(v)) {
			if (vc_quantity_parse_json(v, &q, &err))
				tc_fatal(tc, err.code == VC_ERANGE ? "quantity is too large"
								   : err.text);
		} else if (json_is_boolean(v)) {
			if (vc_quantity_parse(json_is_true(v) ? "true" : "false", &q, &err))
				tc_fatal(tc, err.text);
		} else {
			tc_fatal(tc, VC_QUANTITY_ERR_FORMAT);
		}
		break;
	case JT_DURATION:
		/* metav1.Duration.UnmarshalJSON: json.Unmarshal into a string, ParseDuration. */
		if (!json_is_string(v)) {
			char text[96];

			snprintf(text, sizeof(text),
				 "json: cannot unmarshal %s into Go value of type string",
				 admission_json_kind(v));
			tc_fatal(tc, text);
		} else if (vc_duration_parse(json_string_value(v), &ns, &err)) {
			tc_fatal(tc, err.text);
		}
		break;
	case JT_STRUCT:
		if (!json_is_object(v))
			tc_type_error(tc, admission_json_kind(v), t);
		else
			tc_struct(tc, v, t);
		break;
	case JT_SLICE:
		if (!json_is_array(v)) {
			tc_type_error(tc, admission_json_kind(v), t);
			break;
		}
		json_array_foreach (v, i, elem) {
			if (tc->fatal || tc->nomem)
				break;
			tc_value(tc, elem, t->elem);
		}
		break;
	case JT_MAP:
		if (!json_is_object(v)) {
			tc_type_error(tc, admission_json_kind(v), t);
			break;
		}
		json_object_foreach ((json_t *)v, key, elem) {
			if (tc->fatal || tc->nomem)
				break;
			tc_value(tc, elem, t->elem);
		}
		break;
	default:
		break;
	}
}

int admit_job_typecheck(const json_t *job, char **msg)
{
	struct typecheck tc = { .depth = 0 };

	*msg = NULL;
	tc_value(&tc, job, &t_job);
	if (tc.nomem) {
		vc_free(tc.saved);
		vc_free(tc.fatal);
		return VC_ENOMEM;
	}
	if (tc.fatal) {
		vc_free(tc.saved);
		*msg = tc.fatal;
		return 1;
	}
	if (tc.saved) {
		*msg = tc.saved;
		return 1;
	}
	return 0;
}

/* ---- semantic equality: a canonical form ------------------------------------------------- */

/* The decimal digits of a 128-bit value (quantities compare by their nano-unit count). */
static json_t *int128_string(__int128 v)
{
	char buf[48], *p = buf + sizeof(buf) - 1;
	bool neg = v < 0;
	unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;

	*p = '\0';
	do {
		*--p = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	return json_string(p);
}

static json_t *canon_value(const json_t *v, const struct jtype *t, bool ptr);

/* Whether c, the canonical form of a value of type t, is Go's zero value for t. */
static bool canon_is_zero(const json_t *c, const struct jtype *t)
{
	switch (t->kind) {
	case JT_STRING:
		return !json_string_length(c);
	case JT_QUANTITY:
		return !strcmp(json_string_value(c), "0");
	case JT_BOOL:
		return json_is_false(c);
	case JT_INT32:
	case JT_INT64:
	case JT_INT:
	case JT_DURATION:
		return json_integer_value(c) == 0;
	case JT_STRUCT:
	case JT_MAP:
		return json_object_size(c) == 0;
	case JT_SLICE:
		return json_array_size(c) == 0;
	default:
		/* The unmodelled fields are mostly slices, where empty is nil. */
		return json_is_null(c) || (json_is_array(c) && !json_array_size(c));
	}
}

/*
 * A struct's canonical form leaves out the non-pointer fields that hold their zero value (and
 * nil pointers): both sides of a comparison do the same, so absent and zero compare equal, and
 * a sparse spec stays small.
 */
static json_t *canon_struct(const json_t *v, const struct jtype *t)
{
	const struct jfield *f;
	json_t *out = json_object(), *member, *c;
	const char *key;

	if (!out)
		return NULL;
	for (f = t->fields; f->json; f++) {
		c = canon_value(json_object_get(v, f->json), f->type, f->ptr);
		if (!c)
			goto fail;
		if (json_is_null(c) || (!f->ptr && canon_is_zero(c, f->type))) {
			json_decref(c);
			continue;
		}
		if (json_object_set_new(out, f->json, c))
			goto fail;
	}
	/* Members Caldera does not model compare as JSON; null or [] is as good as absent. */
	json_object_foreach ((json_t *)v, key, member) {
		if (!t->open || find_field(t, key) || canon_is_zero(member, &t_any))
			continue;
		if (json_object_set(out, key, member))
			goto fail;
	}
	return out;
fail:
	json_decref(out);
	return NULL;
}

/*
 * The value Go would hold for v in a field of type t, as JSON that compares with
 * vc_json_equal() the way apiequality.Semantic.DeepEqual compares the Go values: absent scalars
 * as their zero value, nil pointers as null, nil and empty slices and maps alike, quantities by
 * value, durations as nanoseconds. NULL when out of memory or when v does not decode (the type
 * check runs first, so that means memory).
 */
static json_t *canon_value(const json_t *v, const struct jtype *t, bool ptr)
{
	struct vc_quantity q;
	const json_t *elem;
	const char *key;
	json_t *out;
	int64_t ns;
	size_t i;

	if (!v || json_is_null(v)) {
		if (ptr || t->kind == JT_ANY)
			return json_null();
		v = NULL;
	}
	switch (t->kind) {
	case JT_ANY:
		return json_incref((json_t *)v);
	case JT_STRING:
		return json_string(v ? json_string_value(v) : "");
	case JT_BOOL:
		return json_boolean(v && json_is_true(v));
	case JT_INT32:
	case JT_INT64:
	case JT_INT:
		return json_integer(v ? json_integer_value(v) : 0);
	case JT_QUANTITY:
		if (vc_quantity_parse_json(v, &q, NULL))
			return NULL;
		return int128_string(q.nanos);
	case JT_DURATION:
		ns = 0;
		if (v && vc_duration_parse(json_string_value(v), &ns, NULL))
			return NULL;
		return json_integer(ns);
	case JT_STRUCT:
		return canon_struct(v, t);
	case JT_SLICE:
		out = json_array();
		if (!out)
			return NULL;
		json_array_foreach (v, i, elem) {
			if (json_array_append_new(out, canon_value(elem, t->elem, false)))
				goto fail;
		}
		return out;
	case JT_MAP:
		out = json_object();
		if (!out)
			return NULL;
		json_object_foreach ((json_t *)v, key, elem) {
			if (json_object_set_new(out, key, canon_value(elem, t->elem, false)))
				goto fail;
		}
		return out;
	}
	return NULL;
fail:
	json_decref(out);
	return NULL;
}

int admit_job_spec_canonical(const json_t *spec, json_t **out)
{
	*out = canon_value(spec, &t_job_spec, false);
	return *out ? 0 : VC_ENOMEM;
}
