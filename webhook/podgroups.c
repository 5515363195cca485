/*
 * podgroups.c - /podgroups/mutate and /podgroups/validate (docs/volcano/webhooks.md §10).
 *
 * Mutation moves a PodGroup from the `default` queue to its namespace's queue (the namespace
 * annotation scheduling.volcano.sh/queue-name). Validation requires an Open queue and rejects
 * network topologies that set both a tier number and a tier name.
 */
#include "admission_internal.h"

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_validate.h"

#define PG_GROUP   "scheduling.volcano.sh"
#define PG_VERSION "v1beta1"

#define NS_QUEUE_ANNOTATION "scheduling.volcano.sh/queue-name"

#define TOPOLOGY_BOTH                                                                     \
	"must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology " \
	"simultaneously."

/* ---- decoding the request's object as Go's decoder would -------------------------------- */

/* A NetworkTopologySpec member (spec.networkTopology or a policy's). */
static int check_topology(struct admission_result *res, const json_t *obj, const char *owner,
			  const char *path)
{
	const json_t *nt = vc_json_get_obj(obj, "networkTopology");
	char where[160];
	int rc;

	snprintf(where, sizeof(where), "%s.%s.networkTopology", owner, path);
	rc = admission_check_field(res, obj, "networkTopology", ADMISSION_WANT_OBJECT, where,
				   "v1beta1.NetworkTopologySpec");
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "NetworkTopologySpec.%s.networkTopology.highestTierAllowed",
		 path);
	rc = admission_check_field(res, nt, "highestTierAllowed", ADMISSION_WANT_INT, where, "int");
	if (rc)
		return rc;
	snprintf(where, sizeof(where), "NetworkTopologySpec.%s.networkTopology.highestTierName",
		 path);
	return admission_check_field(res, nt, "highestTierName", ADMISSION_WANT_STRING, where,
				     "string");
}

/* Decode a PodGroup review object as DecodePodGroup does: 1 when it denied, 0, or VC_ENOMEM. */
static int podgroup_decode(struct admission_result *res, const json_t *obj)
{
	const json_t *spec = vc_json_get_obj(obj, "spec"), *policy;
	size_t i;
	int rc;

	if (obj && !json_is_null(obj) && !json_is_object(obj))
		return admission_check_value(res, obj, ADMISSION_WANT_OBJECT, "PodGroup",
					     "v1beta1.PodGroup");
	if ((rc = admission_check_field(res, obj, "metadata", ADMISSION_WANT_OBJECT,
					"PodGroup.metadata", "v1.ObjectMeta")) ||
	    (rc = admission_check_field(res, vc_json_get_obj(obj, "metadata"), "namespace",
					ADMISSION_WANT_STRING, "ObjectMeta.metadata.namespace",
					"string")) ||
	    (rc = admission_check_field(res, obj, "spec", ADMISSION_WANT_OBJECT, "PodGroup.spec",
					"v1beta1.PodGroupSpec")) ||
	    (rc = admission_check_field(res, spec, "queue", ADMISSION_WANT_STRING,
					"PodGroupSpec.spec.queue", "string")) ||
	    (rc = check_topology(res, spec, "PodGroupSpec", "spec")) ||
	    (rc = admission_check_field(res, spec, "subGroupPolicy", ADMISSION_WANT_ARRAY,
					"PodGroupSpec.spec.subGroupPolicy",
					"[]v1beta1.SubGroupPolicySpec")))
		return rc;
	json_array_foreach (vc_json_get_arr(spec, "subGroupPolicy"), i, policy) {
		if ((rc = admission_check_value(res, policy, ADMISSION_WANT_OBJECT,
						"PodGroupSpec.spec.subGroupPolicy",
						"v1beta1.SubGroupPolicySpec")) ||
		    (rc = admission_check_field(res, policy, "name", ADMISSION_WANT_STRING,
						"SubGroupPolicySpec.spec.subGroupPolicy.name",
						"string")) ||
		    (rc = check_topology(res, policy, "SubGroupPolicySpec", "spec.subGroupPolicy")))
			return rc;
	}
	return 0;
}

/* The resource check and the decode both handlers start with; 1 = denied. */
static int podgroup_prologue(const struct admission_request *req, struct admission_result *res)
{
	int rc = admission_check_resource(req, PG_GROUP, PG_VERSION, "podgroups", res);

	if (rc)
		return rc;
	return podgroup_decode(res, req->object);
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* ---- /podgroups/mutate (docs/volcano/webhooks.md §10.1) -------------------------------------- */

int admit_podgroups_mutate(const struct admission_ctx *ctx, const struct admission_request *req,
			   struct admission_result *res)
{
	const json_t *obj = req->object;
	const char *queue = vc_json_get_str(vc_json_get_obj(obj, "spec"), "queue");
	const char *ns = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "namespace");
	const char *target;
	json_t *nsobj = NULL, *patch;
	struct vc_error err;
	int rc;

	rc = podgroup_prologue(req, res);
	if (rc)
		return rc < 0 ? rc : 0;
	if (strcmp(req->operation, "CREATE") != 0)
		return admission_deny(res,
				      "invalid operation `%s`, expect operation to be `CREATE`",
				      req->operation);
	/* Only a PodGroup left in the default queue moves; any failure leaves it alone. */
	if (!queue || strcmp(queue, "default") != 0 || !ctx || !ctx->state ||
	    !ctx->state->get_namespace || !ns || !ns[0])
		return 0;
	vc_error_clear(&err);
	rc = ctx->state->get_namespace(ctx->state->ctx, ns, &nsobj, &err);
	if (rc) {
		json_decref(nsobj);
		return rc == VC_ENOMEM ? rc : 0;
	}
	target = vc_json_get_str(vc_json_get_obj(vc_json_get_obj(nsobj, "metadata"), "annotations"),
				 NS_QUEUE_ANNOTATION);
	if (!target) {
		json_decref(nsobj);
		return 0;
	}
	patch = json_pack("[{s:s, s:s, s:s}]", "op", "add", "path", "/spec/queue", "value", target);
	json_decref(nsobj);
	if (!patch)
		return VC_ENOMEM;
	json_decref(res->patch);
	res->patch = patch;
	return 0;
}

/* ---- /podgroups/validate (docs/volcano/webhooks.md §10.2) ------------------------------------ */

/* Append s without leading and trailing ASCII white space (strings.TrimSpace). */
static int add_trimmed(struct vc_buf *out, const char *s)
{
	size_t len;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	len = strlen(s);
	while (len && (s[len - 1] == ' ' || (s[len - 1] >= '\t' && s[len - 1] <= '\r')))
		len--;
	return vc_buf_add(out, s, len);
}

/* checkQueueState: the queue exists and is Open. Appends the problem (if any) to out. */
static int check_queue(const struct admission_ctx *ctx, const char *name, struct vc_buf *out)
{
	const char *state;
	struct vc_error err;
	json_t *q = NULL;
	int rc = VC_ENOTFOUND;

	if (!name[0])
		return 0;
	vc_error_clear(&err);
	if (ctx && ctx->state && ctx->state->get_queue)
		rc = ctx->state->get_queue(ctx->state->ctx, name, &q, &err);
	if (!rc && !json_is_object(q))
		rc = VC_ENOTFOUND;
	if (rc) {
		json_decref(q);
		if (rc == VC_ENOMEM)
			return rc;
		if (rc != VC_ENOTFOUND)
			return vc_buf_addf(out, "unable to find queue: %s", err.text);
		if (vc_buf_adds(out, "unable to find queue: queue.scheduling.volcano.sh ") ||
		    vc_go_quote(name, out))
			return VC_ENOMEM;
		return vc_buf_adds(out, " not found");
	}
	state = str_or_empty(vc_json_get_str(vc_json_get_obj(q, "status"), "state"));
	if (strcmp(state, "Open") != 0)
		rc = vc_buf_addf(
			out,
			"can only submit PodGroup to queue with state `Open`, queue `%s` "
			"status is `%s`.",
			str_or_empty(vc_json_get_str(vc_json_get_obj(q, "metadata"), "name")),
			state);
	json_decref(q);
	return rc;
}

static bool both_tiers(const json_t *nt)
{
	const char *name = vc_json_get_str(nt, "highestTierName");

	return json_is_integer(json_object_get(nt, "highestTierAllowed")) && name && name[0];
}

/* validateNetworkTopology: the PodGroup's own topology, then the first policy's that fails. */
static int check_topologies(const json_t *spec, struct vc_buf *out)
{
	const json_t *policy;
	size_t i;
	int rc = 0;

	if (both_tiers(vc_json_get_obj(spec, "networkTopology")))
		rc = vc_buf_adds(out, TOPOLOGY_BOTH);
	json_array_foreach (vc_json_get_arr(spec, "subGroupPolicy"), i, policy) {
		if (rc || !both_tiers(vc_json_get_obj(policy, "networkTopology")))
			continue;
		if (out->len)
			rc = vc_buf_adds(out, " ");
		if (!rc)
			rc = vc_buf_addf(out, "in subGroupPolicy '%s': " TOPOLOGY_BOTH,
					 str_or_empty(vc_json_get_str(policy, "name")));
		break;
	}
	return rc;
}

int admit_podgroups_validate(const struct admission_ctx *ctx, const struct admission_request *req,
			     struct admission_result *res)
{
	const json_t *spec = vc_json_get_obj(req->object, "spec");
	struct vc_buf part, msg;
	int rc;

	rc = podgroup_prologue(req, res);
	if (rc)
		return rc < 0 ? rc : 0;
	if (strcmp(req->operation, "CREATE") != 0)
		return admission_deny(res, "unsupported operation %s", req->operation);

	vc_buf_init(&part, VC_BUF_DEFAULT_MAX);
	vc_buf_init(&msg, VC_BUF_DEFAULT_MAX);
	rc = check_queue(ctx, str_or_empty(vc_json_get_str(spec, "queue")), &part);
	if (!rc)
		rc = add_trimmed(&msg, vc_buf_str(&part));
	vc_buf_reset(&part);
	if (!rc)
		rc = check_topologies(spec, &part);
	if (!rc && part.len && msg.len)
		rc = vc_buf_adds(&msg, "; ");
	if (!rc)
		rc = add_trimmed(&msg, vc_buf_str(&part));
	if (!rc && msg.len)
		rc = admission_deny(res, "%s", vc_buf_str(&msg));
	vc_buf_release(&part);
	vc_buf_release(&msg);
	return rc ? VC_ENOMEM : 0;
}
