/*
 * vc_kube.h - the Kubernetes API client: configuration, REST verbs, watch streams.
 *
 * This is Caldera's client-go. Every daemon talks to kube-apiserver through a struct vc_kube,
 * and every call goes through the client's struct vc_kube_ops, so tests substitute a fake that
 * records calls and returns scripted answers (client-go's fake clientset) without a server.
 *
 * Threads: one struct vc_kube may be used from many threads at once. The real client keeps one
 * libcurl easy handle per calling thread (connections and TLS sessions are shared through a
 * CURLSH with locks), applies one token-bucket rate limit for the whole client (--kube-api-qps,
 * --kube-api-burst), and retries 429 and 5xx answers with backoff, honouring Retry-After, up to
 * a bounded number of attempts (details at vc_kube_new).
 *
 * Errors: a call returns 0 or a negative code. API answers map to VC_ENOTFOUND (404),
 * VC_EALREADYEXISTS (409 with reason AlreadyExists), VC_ECONFLICT (other 409), VC_EGONE (410),
 * VC_EUNPROCESSABLE (422, "Invalid"), VC_EFORBIDDEN (403), VC_EUNAUTHORIZED (401),
 * VC_ETOOMANYREQUESTS (429 after retries), VC_ESERVER (5xx after retries), VC_EINVAL (other
 * 4xx); transport failures to VC_EIO or VC_ETIMEDOUT. The server's Status message is kept in
 * err->text unchanged (e.g. `pods "x" not found`), so callers can show it or match on it; an
 * answer without one reads "the server responded with HTTP 404 to GET /api/v1/...: <the start
 * of a text body>". Other statuses (1xx, 3xx) are VC_EIO, a body over the cap VC_E2BIG, and a
 * 2xx body that is not JSON VC_EPARSE ("cannot parse the response to GET /api/v1/...: ...").
 *
 * json_t ownership: objects passed in are borrowed; objects returned through `json_t **out` are
 * new references owned by the caller (out may be NULL when the caller does not want the body).
 */
#ifndef VC_KUBE_H
#define VC_KUBE_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

/* ---- configuration ------------------------------------------------------------------------ */

/* When an exec credential plugin may talk to the user (clientcmd's ExecInteractiveMode). */
enum vc_kube_exec_interactive {
	VC_KUBE_EXEC_NEVER,	   /* "Never": stdin is never handed to the plugin */
	VC_KUBE_EXEC_IF_AVAILABLE, /* "IfAvailable": when stdin is a terminal it may lend */
	VC_KUBE_EXEC_ALWAYS,	   /* "Always": the plugin fails unless it can be interactive */
};

/* The exec API versions a plugin may speak (v1alpha1 was removed from client-go in 1.24). */
#define VC_KUBE_EXEC_V1	     "client.authentication.k8s.io/v1"
#define VC_KUBE_EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/*
 * A kubeconfig user's exec credential plugin (users[].user.exec): a program whose stdout is an
 * ExecCredential with a token and/or a client certificate (aws eks get-token,
 * gke-gcloud-auth-plugin, kubelogin). The REST client runs it; see vc_kube_new.
 */
struct vc_kube_exec_config {
	char *api_version;  /* VC_KUBE_EXEC_V1 or VC_KUBE_EXEC_V1BETA1 */
	char *command;	    /* a name looked up in PATH, or a path (made absolute by the loader
			       when relative, against the kubeconfig's folder) */
	char **args;	    /* NULL-terminated; NULL when there are none */
	char **env;	    /* "NAME=value" added to the plugin's environment, NULL-terminated;
			       NULL when there are none */
	char *install_hint; /* shown when command is not found (control characters dropped),
			       or NULL */
	bool provide_cluster_info; /* KUBERNETES_EXEC_INFO carries spec.cluster */
	enum vc_kube_exec_interactive interactive_mode;
	char *cluster_config; /* the cluster's "client.authentication.k8s.io/exec" extension as JSON
				 text (spec.cluster.config), or NULL */
};

/* How long one run of a credential plugin may take before it is killed. */
#define VC_KUBE_EXEC_TIMEOUT_NS (60 * INT64_C(1000000000))
/* ... when it may be talking to a person at the terminal. */
#define VC_KUBE_EXEC_INTERACTIVE_TIMEOUT_NS (300 * INT64_C(1000000000))

struct vc_kube_config {
	char *server;		 /* "https://host:port", no trailing slash */
	char *ca_file;		 /* PEM file of the server's CA, or NULL */
	char *ca_data;		 /* PEM bytes (certificate-authority-data, decoded), or NULL */
	bool insecure;		 /* insecure-skip-tls-verify */
	char *token;		 /* bearer token, or NULL */
	char *token_file;	 /* re-read when it changes (service-account rotation), or NULL */
	char *client_cert_file;	 /* client certificate PEM file, or NULL */
	char *client_cert_data;	 /* ... or PEM bytes */
	char *client_key_file;	 /* client key PEM file, or NULL */
	char *client_key_data;	 /* ... or PEM bytes */
	int64_t token_expiry_ns; /* Unix ns when token expires (an oidc id-token's "exp" claim;
				    the client stops 10 s before, as client-go); 0 = never */
	struct vc_kube_exec_config *exec; /* a credential plugin (unused when token or token_file
					     is set, as in client-go), or NULL */
	bool exec_stdin;	 /* the program may lend its stdin to an interactive plugin (vcctl);
				    daemons leave it false and are never interactive */
	int64_t exec_timeout_ns; /* a plugin run's limit; 0 = VC_KUBE_EXEC_TIMEOUT_NS, or
				    VC_KUBE_EXEC_INTERACTIVE_TIMEOUT_NS when interactive */
	char *namespace;	 /* the context's namespace, "default" when unset */
	double qps;		 /* client-side rate limit; <= 0 disables it */
	int burst;		 /* token bucket size */
	int64_t timeout_ns;	 /* per-request timeout (not for watches); 0 = 30 s */
	char *user_agent;	 /* e.g. "vc-controller/0.1"; NULL = "caldera" */
	size_t max_body;	 /* cap on one response body; 0 = VC_KUBE_MAX_BODY */
};

/* client-go's defaults, which the loaders below put into qps and burst. */
#define VC_KUBE_DEFAULT_QPS   5.0
#define VC_KUBE_DEFAULT_BURST 10
/* The default cap on a response body (a list page included). */
#define VC_KUBE_MAX_BODY ((size_t)64 << 20)
/* The default per-request timeout. */
#define VC_KUBE_DEFAULT_TIMEOUT_NS (30 * INT64_C(1000000000))

/*
 * Load a kubeconfig file (path NULL: $KUBECONFIG, then ~/.kube/config), using its
 * current-context or `context` when not NULL. Supports clusters with server,
 * certificate-authority / -data, insecure-skip-tls-verify and the
 * client.authentication.k8s.io/exec extension; users with token, tokenFile,
 * client-certificate / -key and their -data forms, an exec credential plugin (cfg->exec, run by
 * the client: see vc_kube_new) and the oidc auth-provider (its id-token becomes the token, its
 * exp claim token_expiry_ns); the context's namespace. When master is not
 * NULL or empty it overrides the cluster's server (Volcano's --master). cfg is filled on
 * success (release with vc_kube_config_release) and left empty on failure, with a message that
 * names the file and the problem.
 *
 * Details: $KUBECONFIG may list several files separated by ':'; files that do not exist are
 * skipped and the others merged as kubectl does (the first file that names a context, cluster
 * or user wins; current-context comes from the first file that sets it). Relative file names
 * inside a kubeconfig are resolved against that file's folder. The -data forms are base64 and
 * win over the file forms (client-go's rule); tokenFile wins over token. A server without a
 * scheme gets "https://", a trailing '/' is dropped. qps and burst get VC_KUBE_DEFAULT_QPS and
 * VC_KUBE_DEFAULT_BURST. Errors: -ENOENT when the file (or every file of $KUBECONFIG, or the
 * default file) does not exist, other -errno when it cannot be read, VC_EPARSE for YAML errors
 * and for fields of the wrong type or bad base64, VC_ENOTFOUND for a context, cluster or user
 * that is not there (`context "x" not found in /path/kubeconfig`), VC_EINVALID for a config
 * that cannot work (no current-context, no server, a CA together with
 * insecure-skip-tls-verify, basic authentication, and what client-go refuses in a user's
 * plugins, with its words after `user "u" in FILE: `: an exec without command or apiVersion,
 * an apiVersion other than v1 and v1beta1 ("exec plugin: invalid apiVersion ..."), an env entry
 * without a name, v1 without interactiveMode or an unknown one, exec together with
 * auth-provider; an oidc auth-provider without idp-issuer-url, client-id or id-token, or whose
 * id-token is not a JWT with an exp claim; the gcp and azure auth-providers, which kubectl no
 * longer has, with its message naming the exec plugin to use instead; any other
 * auth-provider), VC_ENOMEM. A relative exec command with a '/' is made relative to the
 * kubeconfig's folder; one without is looked up in PATH when the plugin runs.
 */
int vc_kubeconfig_load(const char *path, const char *context, const char *master,
		       struct vc_kube_config *cfg, struct vc_error *err);

/*
 * In-cluster configuration: KUBERNETES_SERVICE_HOST/PORT, and the service-account token (as a
 * token_file, so rotation is picked up), CA and namespace under `sa_dir` (NULL means
 * /var/run/secrets/kubernetes.io/serviceaccount).
 *
 * The server is https://HOST:PORT, with an IPv6 HOST in brackets. The token file must be
 * readable now; ca.crt is used when it exists (client-go only logs a missing one); the
 * namespace file is optional ("default"). Errors: VC_ENOENT "unable to load in-cluster
 * configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined" (client-go's
 * text) when not in a cluster; -errno naming the token file when it cannot be read; VC_ENOMEM.
 */
int vc_kube_config_in_cluster(const char *sa_dir, struct vc_kube_config *cfg, struct vc_error *err);

/*
 * Volcano's rule for --kubeconfig and --master (client-go's BuildConfigFromFlags): both empty
 * -> in-cluster config, falling back to the default kubeconfig when not in a cluster; otherwise
 * the kubeconfig file (or the default one) with master overriding its server. With only
 * --master and no default kubeconfig on the machine, the config is just that server with no
 * credentials (as client-go gives). Errors as vc_kubeconfig_load.
 */
int vc_kube_config_from_flags(const char *kubeconfig, const char *master,
			      struct vc_kube_config *cfg, struct vc_error *err);

/* Free every string of cfg and zero it. cfg may be empty (zeroed) or NULL. */
void vc_kube_config_release(struct vc_kube_config *cfg);

/* Deep-copy src into dst (which is overwritten). 0 or VC_ENOMEM (dst then empty). */
int vc_kube_config_copy(struct vc_kube_config *dst, const struct vc_kube_config *src,
			struct vc_error *err);

/* ---- resources ---------------------------------------------------------------------------- */

/* A resource type: group ("" for core), version, plural resource name, and its scope. */
struct vc_gvr {
	const char *group;
	const char *version;
	const char *resource;
	bool namespaced;
};

extern const struct vc_gvr vc_gvr_pods, vc_gvr_nodes, vc_gvr_namespaces, vc_gvr_services,
	vc_gvr_configmaps, vc_gvr_secrets, vc_gvr_events, vc_gvr_pvcs, vc_gvr_pvs,
	vc_gvr_storageclasses, vc_gvr_csinodes, vc_gvr_leases, vc_gvr_priorityclasses,
	vc_gvr_networkpolicies, vc_gvr_jobs, vc_gvr_commands, vc_gvr_podgroups, vc_gvr_queues,
	vc_gvr_mutatingwebhookconfigurations, vc_gvr_validatingwebhookconfigurations,
	vc_gvr_replicationcontrollers, vc_gvr_replicasets, vc_gvr_statefulsets;

/* ---- requests ----------------------------------------------------------------------------- */

struct vc_list_opts {
	const char *label_selector;   /* NULL = none */
	const char *field_selector;   /* NULL = none */
	const char *resource_version; /* NULL = latest; "0" = any */
	int64_t limit;		      /* 0 = no paging */
	const char *continue_token;   /* NULL = first page */
	/*
	 * With limit > 0: return only the page asked for, its metadata.continue kept (the caller
	 * pages itself and holds one page at a time; vc_informer does). false: every page, merged.
	 */
	bool one_page;
};

enum vc_patch_type {
	VC_PATCH_MERGE,	    /* application/merge-patch+json */
	VC_PATCH_JSON,	    /* application/json-patch+json */
	VC_PATCH_STRATEGIC, /* application/strategic-merge-patch+json (built-in kinds only) */
};

struct vc_delete_opts {
	const char *propagation_policy; /* "Background", "Foreground", "Orphan" or NULL */
	int64_t grace_period_seconds;	/* < 0 = server default */
	const char *precondition_uid;	/* NULL = none */
	const char *precondition_resource_version; /* NULL = none */
};

struct vc_watch_opts {
	const char *label_selector;
	const char *field_selector;
	const char *resource_version; /* where to start; NULL/"" = now */
	int timeout_seconds;	      /* server-side timeout; 0 = server default */
	bool allow_bookmarks;
};

enum vc_watch_event_type {
	VC_WATCH_ADDED,
	VC_WATCH_MODIFIED,
	VC_WATCH_DELETED,
	VC_WATCH_BOOKMARK,
	VC_WATCH_ERROR, /* object is a metav1.Status; code 410 means "too old resource version" */
};

/*
 * Called for each event in order; object is borrowed for the duration of the call. Return 0 to
 * continue, non-zero to end the watch (vc_kube_watch then returns that value).
 */
typedef int (*vc_watch_fn)(void *ctx, enum vc_watch_event_type type, json_t *object);

/* ---- the client --------------------------------------------------------------------------- */

struct vc_kube;

/*
 * The operations behind every call. The real client's come from vc_kube_new; tests pass their
 * own to vc_kube_new_with_ops. ns is NULL or "" for cluster-scoped resources; subresource is
 * NULL for the main resource ("status", "binding", "eviction", ...). `stop` in watch is polled
 * at least every 200 ms: when it becomes non-zero the watch returns VC_ESHUTDOWN.
 */
struct vc_kube_ops {
	int (*get)(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		   const char *subresource, json_t **out, struct vc_error *err);
	int (*list)(void *ctx, const struct vc_gvr *r, const char *ns,
		    const struct vc_list_opts *opts, json_t **out, struct vc_error *err);
	int (*create)(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *subresource, const json_t *obj, json_t **out,
		      struct vc_error *err);
	int (*update)(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *subresource, const json_t *obj, json_t **out,
		      struct vc_error *err);
	int (*patch)(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		     const char *subresource, enum vc_patch_type type, const json_t *patch,
		     json_t **out, struct vc_error *err);
	int (*del)(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		   const struct vc_delete_opts *opts, struct vc_error *err);
	int (*watch)(void *ctx, const struct vc_gvr *r, const char *ns,
		     const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		     const volatile int *stop, struct vc_error *err);
	void (*free)(void *ctx); /* called by vc_kube_free; may be NULL */
};

/* Retries: at most this many attempts per request, within this much time in all. */
#define VC_KUBE_MAX_ATTEMPTS	5
#define VC_KUBE_RETRY_BUDGET_NS (60 * INT64_C(1000000000))
/* A token_file is looked at again at most this often (and on the request after a 401). */
#define VC_KUBE_TOKEN_RECHECK_NS (5 * INT64_C(1000000000))

/*
 * A real client for cfg (copied; cfg may be released afterwards). Fails with VC_EINVAL when cfg
 * has no server, with the token file's error when cfg->token_file cannot be read now, with
 * -errno when the CA file an exec plugin with provideClusterInfo needs cannot be read, and with
 * VC_ENOMEM. TLS material is checked by libcurl on the first request, whose error then names
 * the problem (VC_EIO).
 *
 * Behaviour of the real client's calls:
 *   - every attempt takes a token from the client's bucket (cfg->qps, cfg->burst) and sleeps
 *     until it may go;
 *   - 429, 502, 503 and 504 answers are retried, and other 5xx answers that carry Retry-After
 *     (kube-apiserver also answers 500 to requests that can never succeed, and those are not
 *     repeated); the wait is Retry-After's seconds when given, else 250 ms, 500 ms, 1 s, 2 s;
 *     at most VC_KUBE_MAX_ATTEMPTS attempts within VC_KUBE_RETRY_BUDGET_NS in all. A
 *     connection that cannot be made is retried the same way for every verb, a connection that
 *     breaks during a GET (get, list) too. The last answer decides the error;
 *   - each attempt has cfg->timeout_ns; watches have none, but TCP keep-alive probes (after
 *     30 s idle, every 10 s) notice a dead server;
 *   - response bodies are capped at cfg->max_body (VC_E2BIG "response to GET /api/v1/pods
 *     exceeds the limit of N bytes");
 *   - create and update take a missing ns (namespaced resources) and update a missing name from
 *     the object's metadata; a cluster-scoped resource ignores ns;
 *   - the token of cfg->token_file is re-read when the file changes (see
 *     VC_KUBE_TOKEN_RECHECK_NS); a file that cannot be read keeps the last token. Tokens are
 *     never logged;
 *   - with cfg->exec (and no token or token_file), the plugin runs before the first request
 *     and its credential is kept until its expirationTimestamp, or until a request sent with
 *     it gets 401: then the request is sent once more with a fresh credential (one plugin run
 *     however many threads saw the 401; the second 401 goes to the caller). Its token is the
 *     bearer token, its client certificate and key are used for TLS (a new certificate makes
 *     new connections). Threads wait while the plugin runs; a run has cfg->exec_timeout_ns.
 *     A plugin failure fails the request with the plugin's error ("getting credentials: exec:
 *     executable aws failed with exit code 1"), which is not retried; the next request runs it
 *     again. See vc_kube_exec.h;
 *   - with cfg->token_expiry_ns (an oidc id-token), requests from 10 s before that time fail
 *     with VC_EUNAUTHORIZED saying the id-token expired and is not refreshed.
 * One easy handle per calling thread is kept until the thread exits or vc_kube_free. Free the
 * client only when no thread uses it any more.
 */
int vc_kube_new(const struct vc_kube_config *cfg, struct vc_kube **out, struct vc_error *err);
/*
 * A client whose calls go to ops with ctx (tests, fakes). Calls whose op is NULL fail with
 * VC_EINVAL. NULL when ops is NULL or memory runs out.
 */
struct vc_kube *vc_kube_new_with_ops(const struct vc_kube_ops *ops, void *ctx);
/* Call ops->free(ctx) when set, and free c. NULL is allowed. */
void vc_kube_free(struct vc_kube *c);

/* The namespace of the client's context ("default" when unset, and for ops clients). Borrowed. */
const char *vc_kube_namespace(const struct vc_kube *c);

/* How the real client waits (rate limit, retry back-off): sleep ns nanoseconds. */
typedef void vc_sleep_fn(void *ctx, int64_t ns);

/*
 * Replace the real client's sleep (tests: record the wait and advance a fake clock instead).
 * fn NULL restores nanosleep. Set it before the client is used; no effect on ops clients.
 */
void vc_kube_set_sleep(struct vc_kube *c, vc_sleep_fn *fn, void *ctx);

/*
 * The verbs. create's name is used only for subresources (POST .../pods/<name>/binding); pass
 * NULL otherwise. list with opts->limit pages through `continue` tokens itself and returns one
 * List whose items are all pages' items and whose metadata.resourceVersion is the first page's
 * (an expired continue token gives VC_EGONE); its metadata has no continue or
 * remainingItemCount. With opts->one_page too, it returns the one page asked for as the server
 * sent it (continue token included). opts->resource_version goes with the first page only (the
 * server refuses it with a continue token). delete sends a DeleteOptions body only when opts asks
 * for something (opts NULL, or no policy, grace period < 0 and no preconditions: no body).
 */
int vc_kube_get(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		const char *subresource, json_t **out, struct vc_error *err);
int vc_kube_list(struct vc_kube *c, const struct vc_gvr *r, const char *ns,
		 const struct vc_list_opts *opts, json_t **out, struct vc_error *err);
int vc_kube_create(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		   const char *subresource, const json_t *obj, json_t **out, struct vc_error *err);
int vc_kube_update(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		   const char *subresource, const json_t *obj, json_t **out, struct vc_error *err);
int vc_kube_patch(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		  const char *subresource, enum vc_patch_type type, const json_t *patch,
		  json_t **out, struct vc_error *err);
int vc_kube_delete(struct vc_kube *c, const struct vc_gvr *r, const char *ns, const char *name,
		   const struct vc_delete_opts *opts, struct vc_error *err);
/*
 * Stream a watch until the server ends it (returns 0), fn returns non-zero (returns that),
 * *stop becomes non-zero (VC_ESHUTDOWN), or an error (negative; a 410 answer to the request is
 * VC_EGONE). ERROR events are delivered to fn like any other.
 *
 * The real client sends watch=true with opts' selectors, resourceVersion,
 * allowWatchBookmarks=true and timeoutSeconds when set, takes one rate-limit token and does not
 * retry (the caller, an informer, reconnects with its own backoff). The stream goes through
 * vc_watch.h's decoder: a line that is not an event is VC_EPARSE ("invalid watch event on line
 * N: ..."), an event over VC_WATCH_MAX_EVENT bytes VC_E2BIG, and a connection that breaks is
 * VC_EIO; events before the problem have been delivered. *stop is looked at every 100 ms and
 * may be NULL. A call of the same client from fn (on the same thread) works.
 */
int vc_kube_watch(struct vc_kube *c, const struct vc_gvr *r, const char *ns,
		  const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		  const volatile int *stop, struct vc_error *err);

/* The path of a resource: /api/v1/namespaces/ns/pods/name/status, /apis/g/v/queues, ... */
int vc_kube_path(const struct vc_gvr *r, const char *ns, const char *name, const char *subresource,
		 char *buf, size_t len);

#endif /* VC_KUBE_H */
