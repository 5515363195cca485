/*
 * vc_kube_exec.c - exec credential plugins: the ExecCredential parser, KUBERNETES_EXEC_INFO,
 * running the plugin with a time limit, and the per-client credential cache (client-go's
 * plugin/pkg/client/auth/exec Authenticator). The declarations are in vc_kube_exec.h.
 */
#include "vc_kube_exec.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

extern char **environ;

#define EXEC_INFO_ENV "KUBERNETES_EXEC_INFO"
/* client-go's installHintVerboseHelp, shown with a plugin that is not installed. */
#define INSTALL_HELP                                                                           \
	"\n\nIt looks like you are trying to use a client-go credential plugin that is not "   \
	"installed.\n\nTo learn more about this feature, consult the documentation available " \
	"at:\n      https://kubernetes.io/docs/reference/access-authn-authz/authentication/"   \
	"#client-go-credential-plugins"

/* ---- configuration helpers ----------------------------------------------------------------- */

static void strv_free(char **v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; v[i]; i++)
		vc_free(v[i]);
	vc_free(v);
}

/* A copy of a NULL-terminated vector (NULL stays NULL); false when out of memory. */
static bool strv_dup(char **const src, char ***dst)
{
	size_t n = 0, i;

	*dst = NULL;
	if (!src)
		return true;
	while (src[n])
		n++;
	*dst = vc_calloc(n + 1, sizeof(char *));
	if (!*dst)
		return false;
	for (i = 0; i < n; i++) {
		(*dst)[i] = vc_strdup(src[i]);
		if (!(*dst)[i]) {
			strv_free(*dst);
			*dst = NULL;
			return false;
		}
	}
	return true;
}

void vc_kube_exec_config_free(struct vc_kube_exec_config *e)
{
	if (!e)
		return;
	vc_free(e->api_version);
	vc_free(e->command);
	strv_free(e->args);
	strv_free(e->env);
	vc_free(e->install_hint);
	vc_free(e->cluster_config);
	vc_free(e);
}

static bool dup_str(char **dst, const char *src)
{
	*dst = src ? vc_strdup(src) : NULL;
	return !src || *dst;
}

int vc_kube_exec_config_dup(const struct vc_kube_exec_config *e, struct vc_kube_exec_config **out)
{
	struct vc_kube_exec_config *c;
	bool ok;

	*out = NULL;
	if (!e)
		return 0;
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return VC_ENOMEM;
	c->provide_cluster_info = e->provide_cluster_info;
	c->interactive_mode = e->interactive_mode;
	ok = dup_str(&c->api_version, e->api_version);
	ok = dup_str(&c->command, e->command) && ok;
	ok = strv_dup(e->args, &c->args) && ok;
	ok = strv_dup(e->env, &c->env) && ok;
	ok = dup_str(&c->install_hint, e->install_hint) && ok;
	ok = dup_str(&c->cluster_config, e->cluster_config) && ok;
	if (!ok) {
		vc_kube_exec_config_free(c);
		return VC_ENOMEM;
	}
	*out = c;
	return 0;
}

/* ---- the ExecCredential ---------------------------------------------------------------------- */

static void wipe_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		vc_free(s);
	}
}

void vc_kube_exec_cred_release(struct vc_kube_exec_cred *c)
{
	if (!c)
		return;
	wipe_free(c->token);
	wipe_free(c->client_cert);
	wipe_free(c->client_key);
	memset(c, 0, sizeof(*c));
}

/* status[key] as a non-empty string copy, or NULL; VC_EPARSE for another type. */
static int status_str(const json_t *status, const char *key, char **out, struct vc_error *err)
{
	const json_t *v = json_object_get(status, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return vc_error_set(err, VC_EPARSE,
				    "decoding stdout: \"status.%s\" must be a string", key);
	if (json_string_length(v) == 0)
		return 0;
	*out = vc_strndup(json_string_value(v), json_string_length(v));
	return *out ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
}

int vc_kube_exec_cred_parse(const char *data, size_t len, const char *api_version,
			    struct vc_kube_exec_cred *out, struct vc_error *err)
{
	struct vc_kube_exec_cred c = { 0 };
	const json_t *kind, *version, *status, *exp;
	struct vc_error jerr;
	json_t *doc = NULL;
	int64_t sec;
	int32_t nsec;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!data || !api_version)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	if (len > VC_KUBE_EXEC_MAX_OUTPUT)
		return vc_error_set(err, VC_E2BIG,
				    "exec plugin wrote more than %zu bytes to stdout",
				    VC_KUBE_EXEC_MAX_OUTPUT);
	rc = vc_json_parse(data, len, VC_KUBE_EXEC_MAX_OUTPUT, &doc, &jerr);
	if (rc == VC_ENOMEM)
		return vc_error_set(err, rc, "out of memory");
	if (rc)
		return vc_error_set(
			err, VC_EPARSE,
			"decoding stdout: couldn't get version/kind; json parse error: %s",
			jerr.text);
	if (!json_is_object(doc)) {
		rc = vc_error_set(
			err, VC_EPARSE,
			"decoding stdout: couldn't get version/kind; json parse error: not an object");
		goto out;
	}
	kind = json_object_get(doc, "kind");
	version = json_object_get(doc, "apiVersion");
	if ((kind && !json_is_string(kind) && !json_is_null(kind)) ||
	    (version && !json_is_string(version) && !json_is_null(version))) {
		rc = vc_error_set(
			err, VC_EPARSE,
			"decoding stdout: couldn't get version/kind; json parse error: \"kind\" and \"apiVersion\" must be strings");
		goto out;
	}
	if (!json_string_length(kind)) {
		rc = vc_error_set(err, VC_EPARSE, "decoding stdout: Object 'Kind' is missing");
		goto out;
	}
	if (!json_string_length(version)) {
		rc = vc_error_set(err, VC_EPARSE,
				  "decoding stdout: Object 'apiVersion' is missing");
		goto out;
	}
	/* Only the two versions client-go still registers know the kind ExecCredential. */
	if (!vc_str_eq(json_string_value(kind), "ExecCredential") ||
	    (!vc_str_eq(json_string_value(version), VC_KUBE_EXEC_V1) &&
	     !vc_str_eq(json_string_value(version), VC_KUBE_EXEC_V1BETA1))) {
		rc = vc_error_set(err, VC_EPARSE,
				  "decoding stdout: no kind \"%.64s\" is registered for version "
				  "\"%.128s\"",
				  json_string_value(kind), json_string_value(version));
		goto out;
	}
	if (!vc_str_eq(json_string_value(version), api_version)) {
		rc = vc_error_set(
			err, VC_EINVALID,
			"exec plugin is configured to use API version %s, plugin returned "
			"version %s",
			api_version, json_string_value(version));
		goto out;
	}
	status = json_object_get(doc, "status");
	if (!status || json_is_null(status)) {
		rc = vc_error_set(err, VC_EINVALID, "exec plugin didn't return a status field");
		goto out;
	}
	if (!json_is_object(status)) {
		rc = vc_error_set(err, VC_EPARSE, "decoding stdout: \"status\" must be an object");
		goto out;
	}
	rc = status_str(status, "token", &c.token, err);
	if (!rc)
		rc = status_str(status, "clientCertificateData", &c.client_cert, err);
	if (!rc)
		rc = status_str(status, "clientKeyData", &c.client_key, err);
	if (rc)
		goto out;
	exp = json_object_get(status, "expirationTimestamp");
	if (exp && !json_is_null(exp)) {
		if (!json_is_string(exp)) {
			rc = vc_error_set(
				err, VC_EPARSE,
				"decoding stdout: \"status.expirationTimestamp\" must be a string");
			goto out;
		}
		rc = vc_time_parse_rfc3339(json_string_value(exp), &sec, &nsec, &jerr);
		if (rc) {
			rc = vc_error_set(err, VC_EPARSE,
					  "decoding stdout: status.expirationTimestamp: %s",
					  jerr.text);
			goto out;
		}
		/* Years 0000-9999 fit int64 nanoseconds only from 1678 to 2262: clamp. */
		if (sec > INT64_MAX / VC_NSEC_PER_SEC - 1)
			c.expiry_ns = INT64_MAX;
		else if (sec < INT64_MIN / VC_NSEC_PER_SEC + 1)
			c.expiry_ns = INT64_MIN;
		else
			c.expiry_ns = sec * VC_NSEC_PER_SEC + nsec;
		c.has_expiry = true;
	}
	if (!c.token && !c.client_cert && !c.client_key) {
		rc = vc_error_set(err, VC_EINVALID,
				  "exec plugin didn't return a token or cert/key pair");
		goto out;
	}
	if (!c.client_cert != !c.client_key) {
		rc = vc_error_set(err, VC_EINVALID,
				  "exec plugin returned only certificate or key, not both");
		goto out;
	}
	/* Go's tls.X509KeyPair wording for input with no PEM block; OpenSSL checks the rest. */
	if (c.client_cert && !strstr(c.client_cert, "-----BEGIN ")) {
		rc = vc_error_set(
			err, VC_EINVALID,
			"failed parsing client key/certificate: tls: failed to find any PEM "
			"data in certificate input");
		goto out;
	}
	if (c.client_key && !strstr(c.client_key, "-----BEGIN ")) {
		rc = vc_error_set(
			err, VC_EINVALID,
			"failed parsing client key/certificate: tls: failed to find any PEM "
			"data in key input");
		goto out;
	}
	*out = c;
	memset(&c, 0, sizeof(c));
out:
	vc_kube_exec_cred_release(&c);
	json_decref(doc);
	return rc;
}

/* ---- KUBERNETES_EXEC_INFO ---------------------------------------------------------------------
 */

/* The whole of a CA file (PEM is small; 1 MiB is plenty). */
static int read_ca_file(const char *path, struct vc_buf *b, struct vc_error *err)
{
	char chunk[4096];
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return vc_error_set(
			err, rc, "failed to load CA bundle for execProvider: cannot read '%s': %s",
			path, strerror(-rc));
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			vc_error_set(
				err, rc,
				"failed to load CA bundle for execProvider: cannot read '%s': %s",
				path, strerror(-rc));
			break;
		}
		if (n == 0)
			break;
		rc = vc_buf_add(b, chunk, (size_t)n);
		if (rc) {
			vc_error_set(err, rc, "failed to load CA bundle for execProvider: '%s': %s",
				     path, rc == VC_E2BIG ? "file too large" : "out of memory");
			break;
		}
	}
	close(fd);
	return rc;
}

/* spec.cluster (client-go's ConfigToExecCluster): a new reference, or NULL with err. */
static json_t *exec_cluster(const struct vc_kube_config *cfg, struct vc_error *err)
{
	struct vc_buf ca;
	json_t *cl, *conf = NULL;
	char *b64 = NULL;

	vc_buf_init(&ca, (size_t)1 << 20);
	cl = json_pack("{s:s}", "server", cfg->server ? cfg->server : "");
	if (!cl)
		goto nomem;
	if (cfg->insecure && json_object_set_new(cl, "insecure-skip-tls-verify", json_true()))
		goto nomem;
	if (cfg->ca_data) {
		if (vc_buf_adds(&ca, cfg->ca_data))
			goto nomem;
	} else if (cfg->ca_file) {
		if (read_ca_file(cfg->ca_file, &ca, err))
			goto fail;
	}
	if (ca.len) {
		b64 = vc_base64_encode(ca.data, ca.len);
		if (!b64 || json_object_set_new(cl, "certificate-authority-data", json_string(b64)))
			goto nomem;
	}
	if (cfg->exec->cluster_config) {
		if (vc_json_parse_flags(cfg->exec->cluster_config,
					strlen(cfg->exec->cluster_config), 0, VC_JSON_PARSE_ANY,
					&conf, err))
			goto fail;
		if (json_object_set_new(cl, "config", conf))
			goto nomem;
	}
	vc_free(b64);
	vc_buf_release(&ca);
	return cl;
nomem:
	vc_error_set(err, VC_ENOMEM, "out of memory");
fail:
	vc_free(b64);
	vc_buf_release(&ca);
	json_decref(cl);
	return NULL;
}

int vc_kube_exec_info(const struct vc_kube_config *cfg, bool interactive, char **out,
		      struct vc_error *err)
{
	json_t *doc, *spec, *cl;

	*out = NULL;
	if (!cfg || !cfg->exec || !cfg->exec->api_version)
		return vc_error_set(err, VC_EINVAL, "no exec credential plugin");
	doc = json_pack("{s:s, s:s}", "kind", "ExecCredential", "apiVersion",
			cfg->exec->api_version);
	spec = json_object();
	if (!doc || !spec || json_object_set_new(doc, "spec", spec)) {
		if (!doc)
			json_decref(spec);
		json_decref(doc);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	if (cfg->exec->provide_cluster_info) {
		cl = exec_cluster(cfg, err);
		if (!cl) {
			json_decref(doc);
			return err ? err->code : VC_ENOMEM;
		}
		if (json_object_set_new(spec, "cluster", cl))
			goto nomem;
	}
	if (json_object_set_new(spec, "interactive", json_boolean(interactive)))
		goto nomem;
	*out = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	return *out ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
nomem:
	json_decref(doc);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

int vc_kube_exec_interactive(enum vc_kube_exec_interactive mode, bool stdin_ok, bool *out,
			     struct vc_error *err)
{
	*out = false;
	switch (mode) {
	case VC_KUBE_EXEC_NEVER:
		return 0;
	case VC_KUBE_EXEC_IF_AVAILABLE:
		*out = stdin_ok && isatty(STDIN_FILENO);
		return 0;
	case VC_KUBE_EXEC_ALWAYS:
		if (!isatty(STDIN_FILENO))
			return vc_error_set(err, VC_EINVALID,
					    "exec plugin cannot support interactive mode: standard "
					    "input is not a terminal");
		if (!stdin_ok)
			return vc_error_set(err, VC_EINVALID,
					    "exec plugin cannot support interactive mode: standard "
					    "input is unavailable");
		*out = true;
		return 0;
	}
	return vc_error_set(err, VC_EINVAL, "unknown interactiveMode: %d", (int)mode);
}

/* ---- running the plugin ------------------------------------------------------------------- */

/*
 * The plugin's real time limit runs on the system's monotonic clock, not vc_time_mono_ns: a test
 * that fakes the clock still has a real process to wait for.
 */
static int64_t real_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * VC_NSEC_PER_SEC + ts.tv_nsec;
}

/* Does "NAME=value" entry have the name of "NAME=..." entry other (or other == "NAME")? */
static bool same_name(const char *entry, const char *name, size_t name_len)
{
	return !strncmp(entry, name, name_len) && entry[name_len] == '=';
}

/*
 * The plugin's environment: the program's, less what the kubeconfig's env and
 * KUBERNETES_EXEC_INFO replace (os/exec keeps the last of duplicate names), then those.
 * A new vector whose strings are borrowed except the last (*info_entry, owned).
 */
static int build_env(const struct vc_kube_exec_config *e, const char *info, char ***out,
		     char **info_entry)
{
	size_t n = 0, m = 0, i, j, k;
	char **env;
	bool replaced;

	*out = NULL;
	*info_entry = vc_asprintf("%s=%s", EXEC_INFO_ENV, info);
	if (!*info_entry)
		return VC_ENOMEM;
	while (environ && environ[n])
		n++;
	while (e->env && e->env[m])
		m++;
	env = vc_calloc(n + m + 2, sizeof(char *));
	if (!env) {
		vc_free(*info_entry);
		*info_entry = NULL;
		return VC_ENOMEM;
	}
	k = 0;
	for (i = 0; i < n; i++) {
		replaced = same_name(environ[i], EXEC_INFO_ENV, strlen(EXEC_INFO_ENV));
		for (j = 0; j < m && !replaced; j++) {
			const char *eq = strchr(e->env[j], '=');

			replaced = same_name(environ[i], e->env[j],
					     eq ? (size_t)(eq - e->env[j]) : strlen(e->env[j]));
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (j = 0; j < m; j++)
		env[k++] = e->env[j];
	env[k++] = *info_entry;
	env[k] = NULL;
	*out = env;
	return 0;
}

/* argv: the command, then its args. A new vector of borrowed strings. */
static char **build_argv(const struct vc_kube_exec_config *e)
{
	size_t n = 0, i;
	char **argv;

	while (e->args && e->args[n])
		n++;
	argv = vc_calloc(n + 2, sizeof(char *));
	if (!argv)
		return NULL;
	argv[0] = e->command;
	for (i = 0; i < n; i++)
		argv[i + 1] = e->args[i];
	return argv;
}

/* The not-found error: client-go's words, its help and the kubeconfig's hint. */
static int not_found(const struct vc_kube_exec_config *e, struct vc_error *err)
{
	if (e->install_hint && *e->install_hint)
		return vc_error_set(err, VC_ENOENT, "exec: executable %s not found%s\n\n%s",
				    e->command, INSTALL_HELP, e->install_hint);
	return vc_error_set(err, VC_ENOENT, "exec: executable %s not found%s", e->command,
			    INSTALL_HELP);
}

/* Start the plugin with stdout into a pipe; *pid and *rfd (the pipe's read end) on success. */
static int spawn(const struct vc_kube_exec_config *e, const char *info, bool interactive,
		 pid_t *pid, int *rfd, struct vc_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	char **argv = NULL, **envp = NULL, *info_entry = NULL;
	sigset_t none, dfl;
	int p[2] = { -1, -1 }, rc;

	*rfd = -1;
	argv = build_argv(e);
	if (!argv || build_env(e, info, &envp, &info_entry)) {
		vc_free(argv);
		vc_error_set(err, VC_ENOMEM, "out of memory");
		return VC_ENOMEM;
	}
	/* O_CLOEXEC: a plugin started by another thread at the same time must not hold it. */
	if (pipe2(p, O_CLOEXEC)) {
		rc = -errno;
		vc_error_set(err, rc, "exec: cannot make a pipe: %s", strerror(-rc));
		goto out_free;
	}
	rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		rc = -rc;
		vc_error_set(err, rc, "exec: %s", strerror(-rc));
		goto out_pipe;
	}
	rc = posix_spawnattr_init(&at);
	if (rc) {
		posix_spawn_file_actions_destroy(&fa);
		rc = -rc;
		vc_error_set(err, rc, "exec: %s", strerror(-rc));
		goto out_pipe;
	}
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGHUP);
	sigaddset(&dfl, SIGQUIT);
	sigaddset(&dfl, SIGCHLD);
	/* The plugin starts with no blocked signals and default dispositions, as from a shell. */
	rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &dfl);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	if (!rc && !interactive)
		rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawnp(pid, e->command, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT || rc == EACCES || rc == ENOTDIR) {
		/* os/exec reports a missing or non-executable file alike (an exec.Error). */
		rc = not_found(e, err);
		goto out_pipe;
	}
	if (rc) {
		rc = rc == ENOMEM ? VC_ENOMEM : -rc;
		vc_error_set(err, rc, "exec: cannot run executable %s: %s", e->command,
			     strerror(rc == VC_ENOMEM ? ENOMEM : -rc));
		goto out_pipe;
	}
	*rfd = p[0];
	p[0] = -1;
out_pipe:
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
out_free:
	vc_free(info_entry);
	vc_free(envp);
	vc_free(argv);
	return rc;
}

/* Collect the child: waitpid through EINTR. */
static int reap(pid_t pid, int *status)
{
	pid_t r;

	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r == pid ? 0 : -errno;
}

/*
 * Read the plugin's stdout into b until EOF and wait for it to exit, all before deadline
 * (real monotonic ns). VC_ETIMEDOUT when the deadline passes (the plugin is then killed),
 * VC_E2BIG when it prints too much; *status is its wait status otherwise.
 */
static int collect(pid_t pid, int rfd, int64_t deadline, struct vc_buf *b, int *status)
{
	char chunk[4096];
	struct pollfd pfd = { rfd, POLLIN, 0 };
	int64_t left;
	ssize_t n;
	pid_t r;
	int rc = 0;

	for (;;) {
		left = deadline - real_mono_ns();
		if (left <= 0) {
			rc = VC_ETIMEDOUT;
			goto kill;
		}
		n = poll(&pfd, 1, (int)VC_MIN(left / VC_NSEC_PER_MSEC + 1, 1000));
		if (n < 0 && errno != EINTR) {
			rc = -errno;
			goto kill;
		}
		if (n <= 0)
			continue;
		n = read(rfd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			rc = -errno;
			goto kill;
		}
		if (n == 0)
			break;
		rc = vc_buf_add(b, chunk, (size_t)n);
		if (rc)
			goto kill;
	}
	explicit_bzero(chunk, sizeof(chunk));
	/* stdout is closed; the plugin should be exiting. */
	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (real_mono_ns() >= deadline) {
			rc = VC_ETIMEDOUT;
			goto kill;
		}
		poll(NULL, 0, 5);
	}
kill:
	explicit_bzero(chunk, sizeof(chunk));
	kill(pid, SIGKILL);
	reap(pid, status);
	return rc;
}

int vc_kube_exec_run(const struct vc_kube_exec_config *e, const char *info, bool interactive,
		     int64_t timeout_ns, struct vc_kube_exec_cred *out, struct vc_error *err)
{
	char dur[VC_DURATION_STR_MAX];
	struct vc_buf b;
	pid_t pid = -1;
	int rfd = -1, rc, status = 0;

	memset(out, 0, sizeof(*out));
	if (!e || !e->command || !e->api_version || !info || timeout_ns <= 0)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	rc = spawn(e, info, interactive, &pid, &rfd, err);
	if (rc)
		return rc;
	vc_buf_init(&b, VC_KUBE_EXEC_MAX_OUTPUT);
	rc = collect(pid, rfd, real_mono_ns() + timeout_ns, &b, &status);
	close(rfd);
	if (rc == VC_ETIMEDOUT) {
		if (vc_duration_format(timeout_ns, dur, sizeof(dur)))
			snprintf(dur, sizeof(dur), "%" PRId64 "ns", timeout_ns);
		vc_error_set(err, rc, "exec: executable %s did not finish within %s", e->command,
			     dur);
	} else if (rc == VC_E2BIG) {
		vc_error_set(err, rc,
			     "exec: executable %s: exec plugin wrote more than %zu bytes to "
			     "stdout",
			     e->command, VC_KUBE_EXEC_MAX_OUTPUT);
	} else if (rc == VC_ENOMEM) {
		vc_error_set(err, rc, "out of memory");
	} else if (rc) {
		vc_error_set(err, rc, "exec: executable %s: %s", e->command, strerror(-rc));
	} else if (WIFSIGNALED(status)) {
		rc = vc_error_set(err, VC_EIO, "exec: executable %s was killed by signal %d",
				  e->command, WTERMSIG(status));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = vc_error_set(err, VC_EIO, "exec: executable %s failed with exit code %d",
				  e->command, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	} else {
		rc = vc_kube_exec_cred_parse(b.data ? b.data : "", b.len, e->api_version, out, err);
		if (rc && rc != VC_ENOMEM)
			vc_error_prefix(err, "exec: executable %s", e->command);
	}
	if (b.data)
		explicit_bzero(b.data, b.alloc);
	vc_buf_release(&b);
	return rc;
}

/* ---- the credential cache ------------------------------------------------------------------ */

struct vc_kube_exec_auth {
	/* The process-wide list of caches (client-go's globalCache), under auths_lock. */
	struct vc_kube_exec_auth *next;
	int users; /* clients sharing this cache */
	char *key; /* what makes two configurations the same plugin for the same cluster */

	pthread_mutex_t lock; /* everything below; held while the plugin runs */
	struct vc_kube_exec_config *exec;
	bool stdin_ok;
	int64_t timeout_ns; /* 0: the defaults */
	char *info[2];	    /* KUBERNETES_EXEC_INFO, [interactive] */
	struct vc_kube_exec_creds *cur;
	uint64_t generation;
	uint64_t runs;
};

void vc_kube_exec_creds_put(struct vc_kube_exec_creds *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	vc_kube_exec_cred_release(&c->cred);
	vc_free(c);
}

/*
 * Clients made from the same kubeconfig user share one cache, as client-go's Authenticators are
 * shared through its globalCache: a daemon with several clients runs the plugin once, not once
 * per client.
 */
static pthread_mutex_t auths_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vc_kube_exec_auth *auths;

/* Append a length-prefixed string (NULL: "-") to the key: no two configurations collide. */
static int key_add(struct vc_buf *b, const char *s)
{
	return s ? vc_buf_addf(b, "%zu:%s;", strlen(s), s) : vc_buf_adds(b, "-;");
}

static char *auth_key(const struct vc_kube_exec_auth *a)
{
	const struct vc_kube_exec_config *e = a->exec;
	struct vc_buf b;
	int rc;
	size_t i;

	vc_buf_init(&b, 0);
	rc = vc_buf_addf(&b, "%d;%d;%d;%" PRId64 ";", e->provide_cluster_info,
			 (int)e->interactive_mode, a->stdin_ok, a->timeout_ns);
	rc = rc ? rc : key_add(&b, e->api_version);
	rc = rc ? rc : key_add(&b, e->command);
	for (i = 0; !rc && e->args && e->args[i]; i++)
		rc = key_add(&b, e->args[i]);
	rc = rc ? rc : vc_buf_adds(&b, "|");
	for (i = 0; !rc && e->env && e->env[i]; i++)
		rc = key_add(&b, e->env[i]);
	rc = rc ? rc : key_add(&b, e->install_hint);
	rc = rc ? rc : key_add(&b, a->info[0]);
	if (rc) {
		vc_buf_release(&b);
		return NULL;
	}
	return vc_buf_take(&b);
}

static void auth_destroy(struct vc_kube_exec_auth *a)
{
	vc_kube_exec_creds_put(a->cur);
	vc_free(a->info[0]);
	vc_free(a->info[1]);
	vc_free(a->key);
	vc_kube_exec_config_free(a->exec);
	pthread_mutex_destroy(&a->lock);
	vc_free(a);
}

int vc_kube_exec_auth_new(const struct vc_kube_config *cfg, struct vc_kube_exec_auth **out,
			  struct vc_error *err)
{
	struct vc_kube_exec_auth *a, *o;
	int rc, i;

	*out = NULL;
	if (!cfg || !cfg->exec)
		return vc_error_set(err, VC_EINVAL, "no exec credential plugin");
	a = vc_calloc(1, sizeof(*a));
	if (!a)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	pthread_mutex_init(&a->lock, NULL);
	a->stdin_ok = cfg->exec_stdin;
	a->timeout_ns = cfg->exec_timeout_ns;
	rc = vc_kube_exec_config_dup(cfg->exec, &a->exec);
	if (rc) {
		auth_destroy(a);
		return vc_error_set(err, rc, "out of memory");
	}
	for (i = 0; i < 2; i++) {
		rc = vc_kube_exec_info(cfg, i == 1, &a->info[i], err);
		if (rc) {
			auth_destroy(a);
			return rc;
		}
	}
	a->key = auth_key(a);
	if (!a->key) {
		auth_destroy(a);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	pthread_mutex_lock(&auths_lock);
	for (o = auths; o && strcmp(o->key, a->key); o = o->next)
		;
	if (o) {
		o->users++;
	} else {
		a->users = 1;
		a->next = auths;
		auths = a;
	}
	pthread_mutex_unlock(&auths_lock);
	if (o) {
		auth_destroy(a);
		a = o;
	}
	*out = a;
	return 0;
}

void vc_kube_exec_auth_free(struct vc_kube_exec_auth *a)
{
	struct vc_kube_exec_auth **p;
	bool last;

	if (!a)
		return;
	pthread_mutex_lock(&auths_lock);
	last = --a->users == 0;
	if (last) {
		for (p = &auths; *p && *p != a; p = &(*p)->next)
			;
		if (*p)
			*p = a->next;
	}
	pthread_mutex_unlock(&auths_lock);
	if (last)
		auth_destroy(a);
}

/* Is c past its expirationTimestamp (client-go: now.After(exp))? */
static bool expired(const struct vc_kube_exec_creds *c)
{
	return c->cred.has_expiry && vc_time_now_ns() > c->cred.expiry_ns;
}

struct vc_kube_exec_creds *vc_kube_exec_auth_get(struct vc_kube_exec_auth *a, struct vc_error *err)
{
	struct vc_kube_exec_creds *c = NULL, *old;
	struct vc_kube_exec_cred cred;
	bool interactive;
	int64_t timeout;
	int rc;

	pthread_mutex_lock(&a->lock);
	if (a->cur && !expired(a->cur)) {
		c = a->cur;
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
		goto out;
	}
	rc = vc_kube_exec_interactive(a->exec->interactive_mode, a->stdin_ok, &interactive, err);
	if (rc)
		goto fail;
	timeout = a->timeout_ns > 0 ? a->timeout_ns
		  : interactive	    ? VC_KUBE_EXEC_INTERACTIVE_TIMEOUT_NS
				    : VC_KUBE_EXEC_TIMEOUT_NS;
	a->runs++;
	rc = vc_kube_exec_run(a->exec, a->info[interactive], interactive, timeout, &cred, err);
	if (rc)
		goto fail;
	c = vc_calloc(1, sizeof(*c));
	if (!c) {
		vc_kube_exec_cred_release(&cred);
		vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	c->refs = 2; /* the cache's and the caller's */
	c->generation = ++a->generation;
	c->cred = cred;
	old = a->cur;
	a->cur = c;
	vc_kube_exec_creds_put(old);
	VC_LOG(VC_LOG_V(2), "got credentials from the exec plugin",
	       "command=%s generation=%" PRIu64 " token=%s cert=%s expires_in_s=%" PRId64,
	       a->exec->command, c->generation, c->cred.token ? "yes" : "no",
	       c->cred.client_cert ? "yes" : "no",
	       c->cred.has_expiry ? (c->cred.expiry_ns - vc_time_now_ns()) / VC_NSEC_PER_SEC
				  : (int64_t)-1);
	goto out;
fail:
	c = NULL;
	if (err && err->code != VC_ENOMEM)
		vc_error_prefix(err, "getting credentials");
out:
	pthread_mutex_unlock(&a->lock);
	return c;
}

bool vc_kube_exec_auth_unauthorized(struct vc_kube_exec_auth *a, uint64_t generation)
{
	struct vc_kube_exec_creds *drop = NULL;

	if (!a || !generation)
		return false;
	pthread_mutex_lock(&a->lock);
	if (a->cur && a->cur->generation == generation) {
		drop = a->cur;
		a->cur = NULL;
	}
	pthread_mutex_unlock(&a->lock);
	if (drop)
		VC_INFO("the API server refused the exec plugin's credentials, will run it again",
			"command=%s generation=%" PRIu64, a->exec->command, generation);
	vc_kube_exec_creds_put(drop);
	return true;
}

uint64_t vc_kube_exec_auth_runs(struct vc_kube_exec_auth *a)
{
	uint64_t n;

	pthread_mutex_lock(&a->lock);
	n = a->runs;
	pthread_mutex_unlock(&a->lock);
	return n;
}
