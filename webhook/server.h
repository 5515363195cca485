/*
 * server.h - vc-webhook's HTTPS server (docs/volcano/webhooks.md §1.2-§1.4, §2).
 *
 * One vc_httpd (libmicrohttpd with TLS, a pool of handler threads) serves each enabled admission
 * path by handing the request to admission_serve (admission.h), plus GET /healthz ("ok") and
 * GET /metrics. The common methods (POST, PUT, PATCH, GET, DELETE, OPTIONS) all reach an
 * admission path, as any method does in Go's mux (the API server sends POST). A body over 3 MiB
 * gets 413 "request body too large", a Content-Type other than exactly application/json 415, a body
 * that is not an AdmissionReview with a request 400, an unknown path 404 "404 page not found"; each
 * with a text body. With opts.enable_healthz a second listener (Volcano's --enable-healthz,
 * --healthz-address) serves /healthz and /metrics with the same certificate.
 *
 * Metrics, per enabled path (the label `path`):
 *   vc_webhook_requests_total{path,code}       reviews answered, by HTTP status
 *   vc_webhook_denials_total{path}             reviews answered with allowed: false
 *   vc_webhook_request_duration_seconds{path}  handling time of a review (histogram, 50 µs to
 *                                              about 1.6 s)
 *   vc_webhook_tls_reloads_total{result}       certificate reloads, result "success"/"failure"
 *
 * Files: the certificate and key (and the CA and the admission configuration when given) are
 * read at start. webhook_server_poll looks at their stat() (device, inode, size, mtime, so
 * the symlink swap of a Kubernetes Secret volume counts) and re-reads what changed: a new
 * certificate or key is put in service with vc_httpd_reload_tls on every listener (a pair that
 * does not load leaves the old one serving and is tried again when a file changes again); a new
 * CA is handed to opts.on_ca_change (vc-webhook re-registers its configurations with it); a
 * changed admission configuration is parsed again (Volcano's rule: a missing or unparsable file
 * means no configuration). A thread calls it every opts.poll_interval_ns.
 *
 * Thread safety: handlers run concurrently; the admission configuration is swapped under a lock
 * and each review holds a reference to the one it started with. webhook_server_poll may be
 * called from any thread; the file checks are serialized (the CA callback runs after them).
 */
#ifndef WEBHOOK_SERVER_H
#define WEBHOOK_SERVER_H

#include "vc_prelude.h"

#include <jansson.h>

#include "admission.h"
#include "vc_err.h"
#include "vc_metrics.h"

/* The request body cap of docs/volcano/webhooks.md §2.2, and the listener's. */
#define WEBHOOK_BODY_MAX ((size_t)3 << 20)

/* Bits of webhook_server_poll's *changed. */
#define WEBHOOK_RELOADED_TLS  0x1u /* a new certificate and key are serving */
#define WEBHOOK_RELOADED_CA   0x2u /* the CA file's content changed */
#define WEBHOOK_RELOADED_CONF 0x4u /* the admission configuration was read again */

/*
 * Called with the new CA's PEM text (borrowed for the call) from the thread that polls, after
 * the reload, with no lock of the server held.
 */
typedef void webhook_ca_fn(void *ctx, const char *ca_pem);

struct webhook_server_opts {
	const char *address;	    /* --listen-address; NULL or "" = every interface */
	uint16_t port;		    /* --port; 0 picks a free port (tests) */
	const char *cert_file;	    /* --tls-cert-file; required */
	const char *key_file;	    /* --tls-private-key-file; required */
	const char *ca_file;	    /* --ca-cert-file; NULL or "": not watched */
	const char *admission_conf; /* --admission-conf; NULL or "": none */
	/* --enabled-admission: paths of admission_paths, NULL-terminated; NULL = all of them. */
	const char *const *paths;
	/*
	 * Scheduler names and feature gates (borrowed, must outlive the server); its pod_config is
	 * ignored, the server's comes from admission_conf. NULL = defaults (all zero).
	 */
	const struct admission_config *config;
	/* The cluster state the handlers read (borrowed, must outlive the server); NULL = none. */
	const struct admission_state *state;
	/* Where the metrics go (borrowed, must outlive the server); NULL = a registry of its own.
	 */
	struct vc_metrics *metrics;
	unsigned threads;	     /* handler threads; 0 = 4 */
	bool enable_healthz;	     /* the second listener for /healthz */
	const char *healthz_address; /* its address; NULL or "" = every interface */
	uint16_t healthz_port;	     /* its port; 0 picks a free one */
	int64_t poll_interval_ns;    /* how often the files are looked at; 0 = no thread */
	webhook_ca_fn *on_ca_change;
	void *ca_ctx;
};

struct webhook_server;

/*
 * Read the files and set up the routes; nothing listens yet. Errors, with Volcano's texts where
 * it has them (docs/volcano/webhooks.md §1.2; <reason> is Go's os error text, "open <path>: no such
 * file or directory"): VC_EINVAL "failed to read cert file (<path>): <reason>" "failed to read key
 * file (<path>): <reason>" "Failed to parse CA file: failed to read cacert file (<path>): <reason>"
 *             "enabled admission <p> not found on the admission registered map"
 *             "tls: failed to find any tls config data" (no cert_file or key_file)
 *             "cannot parse the certificate in '<cert_file>'"
 *             "cannot parse the private key in '<key_file>'"
 *             "the private key in '<key_file>' does not match the certificate in '<cert_file>'"
 *   VC_EEXIST "metric '<name>' is already registered" (opts->metrics has the server's names)
 *   VC_ENOMEM.
 * A missing or unparsable admission configuration is not an error (it is logged).
 */
int webhook_server_new(const struct webhook_server_opts *opts, struct webhook_server **out,
		       struct vc_error *err) VC_WARN_UNUSED;

/*
 * Listen and serve (and start the polling thread when opts.poll_interval_ns > 0). Errors from
 * vc_httpd_start ("cannot listen on <a>:<port>: Address already in use", "cannot start the
 * https server" for a certificate or key that does not load), or a negative errno when the
 * thread cannot start. On failure nothing is left listening.
 */
int webhook_server_start(struct webhook_server *srv, struct vc_error *err) VC_WARN_UNUSED;

/* The main listener's port (0 when not serving), and the health listener's. */
uint16_t webhook_server_port(const struct webhook_server *srv);
uint16_t webhook_server_healthz_port(const struct webhook_server *srv);

/*
 * Look at the files now and reload what changed (see the top of this file). *changed (may be
 * NULL) receives WEBHOOK_RELOADED_* bits. Returns 0 when everything that changed was put in
 * service; a pair that does not parse or match gives VC_EINVAL (the texts of
 * webhook_server_new), one the TLS library refuses VC_EIO ("cannot start the https server
 * with the new certificate"), and a file that cannot be read -errno ("cannot reload the
 * certificate: open <path>: no such file or directory"), with the old certificate still
 * serving in every case; VC_ENOMEM.
 */
int webhook_server_poll(struct webhook_server *srv, unsigned *changed,
			struct vc_error *err) VC_WARN_UNUSED;

/* The admission configuration in use: a new reference, or NULL when none is loaded. */
json_t *webhook_server_admission_conf(struct webhook_server *srv);

/*
 * The CA file's content as last read (a new vc_malloc'd string to free with vc_free), or NULL
 * when there is no CA file or memory runs out.
 */
char *webhook_server_ca(struct webhook_server *srv) VC_WARN_UNUSED;

/* The metrics registry (borrowed). */
struct vc_metrics *webhook_server_metrics(struct webhook_server *srv);

/* Stop the polling thread and the listeners; waits for running handlers. Idempotent. */
void webhook_server_stop(struct webhook_server *srv);

/* Stop and free. NULL is allowed. */
void webhook_server_free(struct webhook_server *srv);

/*
 * Volcano's enabled-admission list: split s at commas, trim blanks, skip empty entries, and
 * store in out[0..max) the matching entries of admission_paths (borrowed strings), NULL-
 * terminated; max counts the NULL. Paths Volcano serves but Caldera does not
 * (/hypernodes/validate, /cronjobs/validate, /jobflows/validate) are skipped and counted in
 * *skipped (may be NULL); a path listed twice is kept once. Errors: VC_EINVAL
 * "enabled admission <p> not found on the admission registered map" for any other entry,
 * VC_E2BIG when out is too small.
 */
int webhook_parse_paths(const char *s, const char **out, size_t max, int *skipped,
			struct vc_error *err) VC_WARN_UNUSED;

/*
 * Split Go's "host:port" listen address (":11251", "127.0.0.1:8080", "[::1]:443") into host
 * (copied into host[0..len), "" for every interface) and port. Errors: VC_EINVAL
 * "invalid address '<s>': <why>" (no port, a port outside 0..65535, an unbracketed IPv6 literal),
 * VC_E2BIG when the host does not fit.
 */
int webhook_parse_hostport(const char *s, char *host, size_t len, uint16_t *port,
			   struct vc_error *err) VC_WARN_UNUSED;

#endif /* WEBHOOK_SERVER_H */
