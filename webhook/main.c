/* vc-webhook: Volcano's admission webhooks for Jobs, Queues, PodGroups and pods. Flags and wiring.
 */
#include "vc_prelude.h"

#include <signal.h>
#include <time.h>

#include "admission.h"
#include "certs.h"
#include "register.h"
#include "server.h"
#include "vc_alloc.h"
#include "vc_daemon.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_metrics.h"
#include "vc_str.h"

#define WEBHOOK_VERSION "0.1.0"
#define DEFAULT_PATHS                                                                               \
	"/jobs/mutate,/jobs/validate,/podgroups/mutate,/pods/validate,/pods/mutate,/queues/mutate," \
	"/queues/validate"
#define POLL_INTERVAL_NS (2 * INT64_C(1000000000))
#define MAX_NAMES	 128

struct config {
	const char *kubeconfig;
	const char *master;
	int port;
	const char *listen_address;
	const char *cert_file;
	const char *key_file;
	const char *ca_file;
	const char *webhook_url;
	const char *webhook_namespace;
	const char *webhook_service;
	const char *enabled_admission;
	struct vc_flag_list scheduler_names;
	const char *admission_conf;
	double qps;
	int burst;
	bool enable_healthz;
	const char *healthz_address;
	const char *generate_certs;
	bool do_register;
	bool version;
	const char *feature_gates;
	int64_t graceful_shutdown;
	bool queue_allocated_pods_check;
	int max_queue_depth;
	bool root_queue_protection;
};

#define F(name, type, def, field, help)                                     \
	{                                                                   \
		name, type, def, 0, 0, offsetof(struct config, field), help \
	}

static const struct vc_flag flags[] = {
	F("kubeconfig", VC_FLAG_STRING, "", kubeconfig, "path to a kubeconfig file"),
	F("master", VC_FLAG_STRING, "", master,
	  "address of the Kubernetes API server (overrides the kubeconfig's)"),
	F("port", VC_FLAG_INT, "8443", port, "the port the webhooks listen on (1..65535)"),
	F("listen-address", VC_FLAG_STRING, "", listen_address,
	  "the address to listen on; empty: every interface"),
	F("tls-cert-file", VC_FLAG_STRING, "", cert_file,
	  "the serving certificate (PEM); re-read when it changes"),
	F("tls-private-key-file", VC_FLAG_STRING, "", key_file,
	  "the serving certificate's private key (PEM); re-read when it changes"),
	F("ca-cert-file", VC_FLAG_STRING, "", ca_file,
	  "the CA certificate (PEM), the caBundle of the webhook configurations"),
	F("webhook-url", VC_FLAG_STRING, "", webhook_url,
	  "the URL the API server calls (https://host:port); wins over the Service"),
	F("webhook-namespace", VC_FLAG_STRING, "", webhook_namespace,
	  "the namespace of the webhook's Service"),
	F("webhook-service-name", VC_FLAG_STRING, "", webhook_service,
	  "the name of the webhook's Service"),
	F("enabled-admission", VC_FLAG_STRING, DEFAULT_PATHS, enabled_admission,
	  "comma list of the admission paths to serve"),
	F("scheduler-name", VC_FLAG_LIST, NULL, scheduler_names,
	  "scheduler names handled (repeatable or a comma list); the first is the Jobs' default "
	  "(default volcano)"),
	F("admission-conf", VC_FLAG_STRING, "", admission_conf,
	  "the resource-group configuration of /pods/mutate (YAML); re-read when it changes"),
	F("kube-api-qps", VC_FLAG_DOUBLE, "50", qps, "client-side rate limit of API requests"),
	F("kube-api-burst", VC_FLAG_INT, "100", burst, "client-side burst of API requests"),
	F("enable-healthz", VC_FLAG_BOOL, "false", enable_healthz,
	  "serve /healthz (and /metrics) on --healthz-address too"),
	F("healthz-address", VC_FLAG_STRING, ":11251", healthz_address,
	  "the health listener's host:port"),
	F("generate-certs", VC_FLAG_STRING, "", generate_certs,
	  "write DIR/ca.crt, DIR/tls.crt and DIR/tls.key for --webhook-service-name and "
	  "--webhook-namespace (and 127.0.0.1), then exit"),
	F("register", VC_FLAG_BOOL, "true", do_register,
	  "create or update the webhook configurations at start-up"),
	F("version", VC_FLAG_BOOL, "false", version, "print the version and exit"),
	F("feature-gates", VC_FLAG_STRING, "", feature_gates,
	  "k=v,... of PodLevelResources and SchedulingGatesQueueAdmission (others are ignored)"),
	F("graceful-shutdown-time", VC_FLAG_DURATION, "30s", graceful_shutdown,
	  "accepted for compatibility; a stop waits for the reviews in progress"),
	F("enable-queue-allocated-pods-check", VC_FLAG_BOOL, "false", queue_allocated_pods_check,
	  "refuse deleting a queue that still has allocated pods"),
	F("max-queue-depth", VC_FLAG_INT, "5", max_queue_depth,
	  "the deepest a queue may sit below root in the hierarchy"),
	F("enable-root-queue-protection", VC_FLAG_BOOL, "true", root_queue_protection,
	  "refuse changing the root queue's capability, deserved and guarantee"),
	{ "ignored-namespaces", VC_FLAG_NOEFFECT, NULL, 0, 0, 0,
	  "Volcano's; no effect in Caldera" },
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* What the CA callback needs to register again. */
struct app {
	struct vc_kube *kube;
	struct webhook_register_opts reg;
};

/* Register, retrying for about half a minute: the API server may still be starting. */
static int register_all(struct app *app, const char *ca_pem)
{
	struct webhook_register_opts o = app->reg;
	struct vc_error err;
	int attempt, rc = 0;

	o.ca_pem = ca_pem;
	for (attempt = 0; attempt < 6 && !stop_signal; attempt++) {
		int64_t wait_ms = attempt ? 1000L << (attempt - 1) : 0;

		/* A signal ends the wait within 100 ms. */
		for (; wait_ms > 0 && !stop_signal; wait_ms -= 100) {
			struct timespec ts = { 0, 100L * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (stop_signal)
			return VC_ESHUTDOWN;
		vc_error_clear(&err);
		rc = webhook_register(app->kube, &o, NULL, &err);
		if (!rc || rc == VC_EINVAL || rc == VC_ENOMEM)
			break;
		VC_WARN("cannot register the webhook configurations", "attempt=%d err=\"%s\"",
			attempt + 1, err.text);
	}
	if (rc)
		VC_ERROR("cannot register the webhook configurations", "err=\"%s\"", err.text);
	return rc;
}

static void on_ca_change(void *ctx, const char *ca_pem)
{
	if (register_all(ctx, ca_pem) == 0)
		VC_INFO("webhook configurations carry the new CA", "");
}

/*
 * --scheduler-name as a NULL-terminated list of at most max - 1 names (copies kept in store),
 * "volcano" when the flag gave none.
 */
static int split_names(const struct vc_flag_list *l, char **store, const char **names, size_t max)
{
	size_t n = 0;
	int rc = vc_flag_list_split(l, store, names, max - 1, &n);

	if (rc)
		return rc;
	if (!n)
		names[n++] = "volcano";
	names[n] = NULL;
	return 0;
}

/* --feature-gates: the two gates the handlers read; others are logged and ignored. */
static int parse_gates(const char *s, struct admission_config *ac, struct vc_error *err)
{
	while (s && *s) {
		const char *end = strchr(s, ','), *eq;
		size_t len = end ? (size_t)(end - s) : strlen(s);
		char item[256], *k, *v;
		bool on;

		if (len >= sizeof(item))
			return vc_error_set(err, VC_EINVAL, "invalid feature gate '%.*s'", (int)len,
					    s);
		memcpy(item, s, len);
		item[len] = '\0';
		s += len + (end ? 1 : 0);
		k = item;
		while (*k == ' ')
			k++;
		if (!*k)
			continue;
		eq = strchr(k, '=');
		if (!eq)
			return vc_error_set(err, VC_EINVAL,
					    "missing bool value for feature gate '%s'", k);
		v = (char *)eq + 1;
		item[eq - item] = '\0';
		if (vc_parse_bool(v, &on))
			return vc_error_set(err, VC_EINVAL,
					    "invalid value of %s=%s, err: strconv.ParseBool", k, v);
		if (!strcmp(k, "PodLevelResources"))
			ac->pod_level_resources = on;
		else if (!strcmp(k, "SchedulingGatesQueueAdmission"))
			ac->scheduling_gates_queue_admission = on;
		else
			VC_WARN("ignoring an unknown feature gate", "gate=%s", k);
	}
	return 0;
}

static int generate(const struct config *c)
{
	struct webhook_certs_opts o = { .service = c->webhook_service,
					.namespace = c->webhook_namespace };
	struct vc_error err;

	vc_error_clear(&err);
	if (webhook_generate_certs(c->generate_certs, &o, &err)) {
		fprintf(stderr, "vc-webhook: %s\n", err.text);
		return 1;
	}
	printf("wrote %s/ca.crt, %s/tls.crt and %s/tls.key\n", c->generate_certs, c->generate_certs,
	       c->generate_certs);
	return 0;
}

/* Wait for the Queue cache, as Volcano does before serving, and the Namespace cache when started;
 * false when a signal came first. */
static bool wait_synced(struct webhook_cluster *cluster)
{
	int waited = 0;

	while (!stop_signal) {
		int rc = webhook_cluster_wait_synced(cluster, 1000000000);

		if (!rc)
			return true;
		if (rc != VC_ETIMEDOUT)
			return false;
		if (++waited % 10 == 0)
			VC_WARN("still waiting for the queue and namespace caches to sync",
				"seconds=%d", waited);
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *paths[16], *names[MAX_NAMES + 1];
	char *name_store[MAX_NAMES] = { 0 };
	char health_host[256] = "";
	uint16_t health_port = 0;
	struct admission_config ac;
	struct webhook_server_opts so;
	struct webhook_server *srv = NULL;
	struct webhook_cluster *cluster = NULL;
	struct admission_state state;
	struct vc_kube_config kc = { 0 };
	struct vc_metrics *metrics = NULL;
	struct app app;
	struct vc_error err;
	struct config cfg;
	char *ca = NULL;
	int rc, first, i, skipped = 0, status = 1;

	vc_log_set_component("vc-webhook");
	vc_alloc_install_json();
	vc_error_clear(&err);
	memset(&app, 0, sizeof(app));
	admission_config_init(&ac);
	rc = vc_daemon_parse_flags(flags, VC_ARRAY_SIZE(flags), &cfg, argc, argv, "vc-webhook",
				   &first);
	if (rc >= 0)
		return rc;
	/* Volcano's Deployment passes "2>&1" as an argument; cobra ignores it too. */
	if (vc_flags_positional(argc, argv, first, &err) < 0) {
		fprintf(stderr, "vc-webhook: %s\n", err.text);
		return 2;
	}
	if (cfg.version) {
		printf("vc-webhook %s (Caldera)\n", WEBHOOK_VERSION);
		return 0;
	}
	if (*cfg.generate_certs)
		return generate(&cfg);
	vc_flags_dump(flags, VC_ARRAY_SIZE(flags), &cfg);

	if (cfg.port < 1 || cfg.port > 65535) {
		fprintf(stderr, "vc-webhook: the port should be in the range of 1 and 65535\n");
		return 1;
	}
	if (!*cfg.webhook_url && !*cfg.webhook_namespace && !*cfg.webhook_service) {
		fprintf(stderr, "vc-webhook: failed to start webhooks as both 'url' and "
				"'namespace/name' of webhook are empty\n");
		return 1;
	}
	rc = webhook_parse_paths(cfg.enabled_admission, paths, VC_ARRAY_SIZE(paths), &skipped,
				 &err);
	if (!rc && skipped)
		VC_WARN("admission paths of Volcano that Caldera does not serve are skipped",
			"count=%d", skipped);
	if (!rc)
		rc = parse_gates(cfg.feature_gates, &ac, &err);
	if (!rc && cfg.enable_healthz)
		rc = webhook_parse_hostport(cfg.healthz_address, health_host, sizeof(health_host),
					    &health_port, &err);
	if (!rc) {
		rc = split_names(&cfg.scheduler_names, name_store, names, VC_ARRAY_SIZE(names));
		if (rc)
			vc_error_set(&err, rc, "too many scheduler names");
	}
	if (rc) {
		fprintf(stderr, "vc-webhook: %s\n", err.text);
		goto out;
	}
	ac.scheduler_names = names;
	ac.max_queue_depth = cfg.max_queue_depth;
	ac.queue_allocated_pods_check = cfg.queue_allocated_pods_check;
	ac.root_queue_protection = cfg.root_queue_protection;
	if (!*cfg.ca_file) {
		fprintf(stderr,
			"vc-webhook: Failed to parse CA file: failed to read cacert file (): "
			"open : no such file or directory\n");
		goto out;
	}

	/* The client and the Queue cache. */
	rc = vc_daemon_kube_new(cfg.kubeconfig, cfg.master, cfg.qps, cfg.burst,
				"vc-webhook/" WEBHOOK_VERSION, &kc, &app.kube, &err);
	if (!rc)
		rc = webhook_cluster_new(app.kube, &cluster, &err);
	if (rc) {
		VC_ERROR("cannot set up the API client", "err=\"%s\"", err.text);
		goto out;
	}
	webhook_cluster_state(cluster, &state);

	app.reg.paths = paths;
	app.reg.url = cfg.webhook_url;
	app.reg.service_namespace = cfg.webhook_namespace;
	app.reg.service_name = cfg.webhook_service;
	metrics = vc_metrics_new();
	if (!metrics) {
		VC_ERROR("out of memory", "");
		goto out;
	}
	memset(&so, 0, sizeof(so));
	so.address = cfg.listen_address;
	so.port = (uint16_t)cfg.port;
	so.cert_file = cfg.cert_file;
	so.key_file = cfg.key_file;
	so.ca_file = cfg.ca_file;
	so.admission_conf = cfg.admission_conf;
	so.paths = paths;
	so.config = &ac;
	so.state = &state;
	so.metrics = metrics;
	so.enable_healthz = cfg.enable_healthz;
	so.healthz_address = health_host;
	so.healthz_port = health_port;
	so.poll_interval_ns = POLL_INTERVAL_NS;
	so.on_ca_change = cfg.do_register ? on_ca_change : NULL;
	so.ca_ctx = &app;
	rc = webhook_server_new(&so, &srv, &err);
	if (rc) {
		fprintf(stderr, "vc-webhook: %s\n", err.text);
		goto out;
	}

	vc_daemon_catch_stop(on_signal);

	rc = webhook_cluster_start(cluster, admission_paths_has(paths, "/podgroups/mutate"), &err);
	if (rc) {
		VC_ERROR("cannot start the informers", "err=\"%s\"", err.text);
		goto out;
	}
	if (!wait_synced(cluster))
		goto stopped;
	rc = webhook_server_start(srv, &err);
	if (rc) {
		VC_ERROR("cannot serve", "err=\"%s\"", err.text);
		goto out;
	}
	if (cfg.do_register) {
		ca = webhook_server_ca(srv);
		rc = ca ? register_all(&app, ca) : VC_ENOMEM;
		if (rc == VC_ESHUTDOWN)
			goto stopped;
		if (rc)
			goto out;
	}
	VC_INFO("started", "port=%u paths=%s", (unsigned)webhook_server_port(srv),
		cfg.enabled_admission);
	while (!stop_signal) {
		struct timespec ts = { 0, 200L * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
stopped:
	VC_INFO("stopping", "signal=%d", (int)stop_signal);
	status = 0;
out:
	webhook_server_free(srv);
	webhook_cluster_free(cluster);
	vc_kube_free(app.kube);
	vc_kube_config_release(&kc);
	vc_metrics_free(metrics);
	vc_free(ca);
	for (i = 0; i < MAX_NAMES; i++)
		vc_free(name_store[i]);
	return status;
}
