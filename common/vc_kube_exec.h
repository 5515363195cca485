/*
 * vc_kube_exec.h - client-go's exec credential plugins (k8s.io/client-go/plugin/pkg/client/auth/
 * exec): running the plugin a kubeconfig names, reading the ExecCredential it prints, and the
 * credential cache the REST client asks before each request.
 *
 * The protocol (client.authentication.k8s.io v1 and v1beta1): the plugin runs with the
 * program's environment plus the kubeconfig's env entries plus KUBERNETES_EXEC_INFO, an
 * ExecCredential whose spec says whether the plugin may be interactive and, with
 * provideClusterInfo, which cluster it is for. Its stdin is the program's only when it is
 * interactive (else /dev/null), its stderr is the program's, and its stdout must be an
 * ExecCredential of the same apiVersion whose status carries a token, a client certificate and
 * key, or both, and optionally an expirationTimestamp.
 */
#ifndef VC_KUBE_EXEC_H
#define VC_KUBE_EXEC_H

#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_kube.h"

/* The most a plugin may print on stdout. */
#define VC_KUBE_EXEC_MAX_OUTPUT ((size_t)1 << 20)

/* What a plugin returned (status of its ExecCredential). Strings are owned, NULL when absent. */
struct vc_kube_exec_cred {
	char *token;	   /* bearer token */
	char *client_cert; /* PEM */
	char *client_key;  /* PEM */
	int64_t expiry_ns; /* status.expirationTimestamp as Unix ns; 0 = it does not expire */
	bool has_expiry;   /* expirationTimestamp was given (it may be the epoch itself) */
};

/* Wipe and free every string of c and zero it; NULL is a no-op. */
void vc_kube_exec_cred_release(struct vc_kube_exec_cred *c);

/*
 * Parse a plugin's stdout (len bytes at data, untrusted) as an ExecCredential of api_version and
 * validate it as client-go does. 0 and *out filled, or an error with out zeroed and client-go's
 * message in err: VC_EPARSE "decoding stdout: ..." (not JSON, no kind or apiVersion, a kind that
 * is not ExecCredential, a field of the wrong type, a bad timestamp), VC_EINVALID "exec plugin is
 * configured to use API version X, plugin returned version Y", "exec plugin didn't return a
 * status field", "exec plugin didn't return a token or cert/key pair", "exec plugin returned
 * only certificate or key, not both", "failed parsing client key/certificate: ..."; VC_E2BIG
 * over VC_KUBE_EXEC_MAX_OUTPUT; VC_ENOMEM. Secrets never appear in err.
 */
int vc_kube_exec_cred_parse(const char *data, size_t len, const char *api_version,
			    struct vc_kube_exec_cred *out, struct vc_error *err) VC_WARN_UNUSED;

/*
 * The KUBERNETES_EXEC_INFO value for cfg's plugin: {"kind":"ExecCredential","apiVersion":...,
 * "spec":{"cluster":{...},"interactive":...}}, with spec.cluster (server,
 * certificate-authority-data from cfg's CA data or file, insecure-skip-tls-verify, config) only
 * when cfg->exec->provide_cluster_info. *out is a new string. VC_EINVAL when cfg has no exec,
 * -errno when the CA file cannot be read, VC_ENOMEM.
 */
int vc_kube_exec_info(const struct vc_kube_config *cfg, bool interactive, char **out,
		      struct vc_error *err) VC_WARN_UNUSED;

/*
 * Whether a plugin run may be interactive (client-go's isInteractive): Never: no;
 * IfAvailable: when stdin_ok and stdin is a terminal; Always: yes, or VC_EINVALID "exec plugin
 * cannot support interactive mode: standard input is not a terminal" (or "... is unavailable"
 * when stdin_ok is false).
 */
int vc_kube_exec_interactive(enum vc_kube_exec_interactive mode, bool stdin_ok, bool *out,
			     struct vc_error *err) VC_WARN_UNUSED;

/*
 * Run the plugin of e once with KUBERNETES_EXEC_INFO = info and parse what it prints into *out
 * (vc_kube_exec_cred_parse). The command is looked up in the program's PATH unless it contains
 * a '/'. Its stdin is the program's when interactive, else /dev/null; its stderr is the
 * program's. The run is killed after timeout_ns (> 0). Errors, all naming the command:
 * VC_ENOENT "exec: executable CMD not found" followed by client-go's help and e's install hint;
 * VC_EIO "exec: executable CMD failed with exit code N" (or "... was killed by signal N");
 * VC_ETIMEDOUT "exec: executable CMD did not finish within D"; the parser's errors; -errno
 * when the process cannot be made; VC_ENOMEM. Safe to call from several threads at once.
 */
int vc_kube_exec_run(const struct vc_kube_exec_config *e, const char *info, bool interactive,
		     int64_t timeout_ns, struct vc_kube_exec_cred *out,
		     struct vc_error *err) VC_WARN_UNUSED;

/* ---- the credential cache of one client ----------------------------------------------------- */

/*
 * A credential as the cache hands it out: immutable and reference-counted, so a request can use
 * it without a lock while another thread replaces it. generation counts the plugin runs that
 * produced a credential (1, 2, ...): a request remembers the one it sent, to report a 401.
 */
struct vc_kube_exec_creds {
	int refs;
	uint64_t generation;
	struct vc_kube_exec_cred cred;
};

/* Drop a reference (the last one wipes the secrets); NULL is a no-op. */
void vc_kube_exec_creds_put(struct vc_kube_exec_creds *c);

struct vc_kube_exec_auth;

/*
 * The cache for cfg's plugin (cfg->exec must be set; cfg is copied). Nothing runs yet. Caches
 * are shared in the process, as client-go's are: a second client with the same plugin (command,
 * args, env, apiVersion, hint, modes, time limit) for the same cluster gets the same cache, so a
 * daemon with several clients runs the plugin once. VC_EINVAL without cfg->exec, the errors of
 * vc_kube_exec_info, VC_ENOMEM.
 */
int vc_kube_exec_auth_new(const struct vc_kube_config *cfg, struct vc_kube_exec_auth **out,
			  struct vc_error *err) VC_WARN_UNUSED;
/* Let go of the cache (freed with its last client); NULL is a no-op. */
void vc_kube_exec_auth_free(struct vc_kube_exec_auth *a);

/*
 * The credential to send (a new reference: put it when the request is done): the cached one
 * while it has not expired (vc_time_now_ns() before its expirationTimestamp) and no 401 was
 * reported for it, else a fresh one from a plugin run. One run at a time: the other threads wait
 * for it and share its result. A failed run caches nothing, so the next call tries again.
 * NULL with err filled ("getting credentials: " + vc_kube_exec_run's message) on failure.
 */
struct vc_kube_exec_creds *vc_kube_exec_auth_get(struct vc_kube_exec_auth *a,
						 struct vc_error *err) VC_WARN_UNUSED;

/*
 * The server answered 401 to a request sent with credential `generation`: when that is still
 * the cached one, drop it so the next vc_kube_exec_auth_get runs the plugin again (once, however
 * many requests report it: client-go's maybeRefreshCreds). Returns true when the credential was
 * dropped or already replaced (a retry may get a different one), false when no plugin is
 * involved (generation 0).
 */
bool vc_kube_exec_auth_unauthorized(struct vc_kube_exec_auth *a, uint64_t generation);

/* How many times the plugin has run (tests, logs). */
uint64_t vc_kube_exec_auth_runs(struct vc_kube_exec_auth *a);

/* ---- kubeconfig helpers (vc_kubeconfig.c) -------------------------------------------------- */

/* Free e and everything in it; NULL is a no-op. */
void vc_kube_exec_config_free(struct vc_kube_exec_config *e);
/* A deep copy of e (NULL gives NULL with 0); VC_ENOMEM. */
int vc_kube_exec_config_dup(const struct vc_kube_exec_config *e,
			    struct vc_kube_exec_config **out) VC_WARN_UNUSED;

#endif /* VC_KUBE_EXEC_H */
