/*
 * libFuzzer target: arbitrary bytes as the body of an admission request.
 *
 * The first byte picks one of the eight paths (and, in its other bits, the configuration: the
 * SchedulingGatesQueueAdmission and PodLevelResources gates, whether a pod admission
 * configuration is loaded, --enable-queue-allocated-pods-check and
 * --enable-root-queue-protection); the rest is the request body handed to admission_serve(),
 * exactly as the HTTP server would. A small fixed cluster (queues default, closed, root, a parent
 * with a child, a namespace with a queue annotation) lets the handlers reach their lookups. The
 * contract checked: no crash, no undefined behaviour, no leak, and a 200 answer is valid JSON.
 */
#include "vc_prelude.h"

#include <jansson.h>

#include "admission.h"
#include "vc_alloc.h"
#include "vc_json.h"

static const char state_json[] =
	"{\"queues\":["
	"{\"metadata\":{\"name\":\"default\"},\"spec\":{\"weight\":1},\"status\":{\"state\":\"Open\"}},"
	"{\"metadata\":{\"name\":\"closed\"},\"spec\":{\"weight\":1},\"status\":{\"state\":\"Closed\"}},"
	"{\"metadata\":{\"name\":\"root\"},\"spec\":{\"weight\":1,\"capability\":{\"cpu\":\"64\"}},"
	"\"status\":{\"state\":\"Open\"}},"
	"{\"metadata\":{\"name\":\"parent\",\"annotations\":{\"volcano.sh/hierarchy\":\"root/parent\","
	"\"volcano.sh/hierarchy-weights\":\"1/2\"}},\"spec\":{\"weight\":1,\"parent\":\"root\","
	"\"capability\":{\"cpu\":\"8\",\"memory\":\"16Gi\"},\"deserved\":{\"cpu\":\"4\"},"
	"\"guarantee\":{\"resource\":{\"cpu\":\"2\"}}},\"status\":{\"state\":\"Open\","
	"\"allocated\":{\"pods\":\"1\"}}},"
	"{\"metadata\":{\"name\":\"child\"},\"spec\":{\"weight\":1,\"parent\":\"parent\","
	"\"deserved\":{\"cpu\":\"1\"}},\"status\":{\"state\":\"Open\"}}],"
	"\"namespaces\":[{\"metadata\":{\"name\":\"default\",\"annotations\":"
	"{\"scheduling.volcano.sh/queue-name\":\"parent\"}}}],"
	"\"pod_config\":{\"resourceGroups\":[{\"resourceGroup\":\"cpu\",\"object\":{\"key\":"
	"\"annotation\",\"value\":[\"volcano.sh/resource-group: cpu\"]},\"schedulerName\":"
	"\"volcano\",\"labels\":{\"pool\":\"cpu\"},\"tolerations\":[{\"key\":\"k\",\"operator\":"
	"\"Exists\"}],\"affinity\":\"{\\\"nodeAffinity\\\":{}}\"},{\"resourceGroup\":\"ns\","
	"\"object\":{\"key\":\"namespace\",\"value\":[\"default\"]}}]}}";

static json_t *state_doc;

static const json_t *find_named(const char *list, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach (json_object_get(state_doc, list), i, v) {
		const char *n = vc_json_get_str(vc_json_get_obj(v, "metadata"), "name");

		if (n && !strcmp(n, name))
			return v;
	}
	return NULL;
}

static int get_queue(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	const json_t *q = find_named("queues", name);

	(void)ctx;
	(void)err;
	*out = q ? json_incref((json_t *)q) : NULL;
	return q ? 0 : VC_ENOTFOUND;
}

static int queue_children(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	json_t *arr = json_array();
	const json_t *q;
	size_t i;

	(void)ctx;
	*out = NULL;
	if (!arr)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_array_foreach (json_object_get(state_doc, "queues"), i, q) {
		const char *p = vc_json_get_str(vc_json_get_obj(q, "spec"), "parent");

		if (!strcmp(p ? p : "", name) && json_array_append(arr, (json_t *)q)) {
			json_decref(arr);
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		}
	}
	*out = arr;
	return 0;
}

static int get_namespace(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	const json_t *ns = find_named("namespaces", name);

	(void)ctx;
	(void)err;
	*out = ns ? json_incref((json_t *)ns) : NULL;
	return ns ? 0 : VC_ENOTFOUND;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const schedulers[] = { "volcano", NULL };
	struct admission_config config;
	struct admission_state state = {
		.get_queue = get_queue,
		.queue_children = queue_children,
		.get_namespace = get_namespace,
	};
	struct admission_ctx ctx = { .config = &config, .state = &state };
	struct vc_error err;
	json_t *answer;
	char *out = NULL;
	int status, rc;

	if (!state_doc) {
		/* As vc-webhook runs: jansson through vc_alloc, each review in an arena. */
		vc_alloc_install_json();
		state_doc = json_loads(state_json, 0, NULL);
		if (!state_doc)
			abort();
	}
	if (size < 1)
		return 0;
	admission_config_init(&config);
	config.scheduler_names = schedulers;
	config.queue_allocated_pods_check = data[0] & 0x08;
	config.root_queue_protection = !(data[0] & 0x80);
	config.scheduling_gates_queue_admission = data[0] & 0x10;
	config.pod_level_resources = data[0] & 0x20;
	config.pod_config = data[0] & 0x40 ? json_object_get(state_doc, "pod_config") : NULL;
	rc = admission_serve(&ctx, admission_paths[data[0] & 7], "application/json",
			     (const char *)data + 1, size - 1, &out, &status, &err);
	if (rc == 0) {
		/* A 200 answer is one JSON AdmissionReview with a response. */
		if (status != 200 || !out || vc_json_parse(out, strlen(out), 0, &answer, NULL))
			abort();
		if (!json_is_object(json_object_get(answer, "response")))
			abort();
		json_decref(answer);
	} else if (out || status == 200) {
		abort();
	}
	vc_free(out);
	return 0;
}
