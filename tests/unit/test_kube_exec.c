/*
 * Unit tests for vc_kube_exec: the ExecCredential parser (client-go's checks and messages),
 * KUBERNETES_EXEC_INFO, running the fake plugins of tests/data/exec (their output, exit codes,
 * a missing command, the time limit, args and env) and the credential cache (one run while the
 * credential is good, again after its expirationTimestamp and after a 401, once for many
 * threads). The wall clock is faked where expiry matters; the plugins are real processes.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_kube_exec.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

#define DATA "tests/data/exec/"
#define V1   VC_KUBE_EXEC_V1
#define SEC  VC_NSEC_PER_SEC

/* ---- the parser ---------------------------------------------------------------------------- */

static void expect_parse_error(const char *text, const char *version, int code, const char *msg)
{
	struct vc_kube_exec_cred c;
	struct vc_error err;

	assert_int_equal(vc_kube_exec_cred_parse(text, strlen(text), version, &c, &err), code);
	assert_string_equal(err.text, msg);
	assert_null(c.token);
	assert_null(c.client_cert);
}

static void test_parse(void **state)
{
	struct vc_kube_exec_cred c;
	struct vc_error err;
	const char *t;

	(void)state;
	t = "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
	    "\"spec\":{\"interactive\":false},"
	    "\"status\":{\"token\":\"abc\",\"expirationTimestamp\":\"2030-01-02T03:04:05Z\"}}";
	assert_int_equal(vc_kube_exec_cred_parse(t, strlen(t), V1, &c, &err), 0);
	assert_string_equal(c.token, "abc");
	assert_null(c.client_cert);
	assert_true(c.has_expiry);
	assert_int_equal(c.expiry_ns, INT64_C(1893553445) * SEC);
	vc_kube_exec_cred_release(&c);
	assert_null(c.token);

	/* v1beta1, a cert and key with no token, no expiry, unknown fields ignored. */
	t = "{\"apiVersion\":\"" VC_KUBE_EXEC_V1BETA1 "\",\"kind\":\"ExecCredential\",\"x\":1,"
	    "\"status\":{\"clientCertificateData\":\"-----BEGIN CERTIFICATE-----\\nA\\n\","
	    "\"clientKeyData\":\"-----BEGIN PRIVATE KEY-----\\nB\\n\",\"token\":null}}";
	assert_int_equal(vc_kube_exec_cred_parse(t, strlen(t), VC_KUBE_EXEC_V1BETA1, &c, &err), 0);
	assert_null(c.token);
	assert_string_equal(c.client_cert, "-----BEGIN CERTIFICATE-----\nA\n");
	assert_string_equal(c.client_key, "-----BEGIN PRIVATE KEY-----\nB\n");
	assert_false(c.has_expiry);
	vc_kube_exec_cred_release(&c);

	expect_parse_error("{\"kind\":", V1, VC_EPARSE,
			   "decoding stdout: couldn't get version/kind; json parse error: "
			   "unexpected token near end of file");
	expect_parse_error("[1]", V1, VC_EPARSE,
			   "decoding stdout: couldn't get version/kind; json parse error: not an "
			   "object");
	expect_parse_error("{\"apiVersion\":\"" V1 "\"}", V1, VC_EPARSE,
			   "decoding stdout: Object 'Kind' is missing");
	expect_parse_error("{\"kind\":\"ExecCredential\"}", V1, VC_EPARSE,
			   "decoding stdout: Object 'apiVersion' is missing");
	expect_parse_error("{\"kind\":1,\"apiVersion\":\"" V1 "\"}", V1, VC_EPARSE,
			   "decoding stdout: couldn't get version/kind; json parse error: \"kind\" "
			   "and \"apiVersion\" must be strings");
	expect_parse_error("{\"kind\":\"Pod\",\"apiVersion\":\"" V1 "\"}", V1, VC_EPARSE,
			   "decoding stdout: no kind \"Pod\" is registered for version "
			   "\"client.authentication.k8s.io/v1\"");
	expect_parse_error(
		"{\"kind\":\"ExecCredential\",\"apiVersion\":"
		"\"client.authentication.k8s.io/v1alpha1\",\"status\":{\"token\":\"t\"}}",
		VC_KUBE_EXEC_V1BETA1, VC_EPARSE,
		"decoding stdout: no kind \"ExecCredential\" is registered for version "
		"\"client.authentication.k8s.io/v1alpha1\"");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":\"t\"}}",
			   VC_KUBE_EXEC_V1BETA1, VC_EINVALID,
			   "exec plugin is configured to use API version "
			   "client.authentication.k8s.io/v1beta1, plugin returned version "
			   "client.authentication.k8s.io/v1");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\"}", V1,
			   VC_EINVALID, "exec plugin didn't return a status field");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":null}",
			   V1, VC_EINVALID, "exec plugin didn't return a status field");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{}}",
			   V1, VC_EINVALID, "exec plugin didn't return a token or cert/key pair");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":\"\"}}",
			   V1, VC_EINVALID, "exec plugin didn't return a token or cert/key pair");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":\"t\",\"clientKeyData\":\"-----BEGIN K\"}}",
			   V1, VC_EINVALID,
			   "exec plugin returned only certificate or key, not both");
	expect_parse_error(
		"{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
		"\"status\":{\"clientCertificateData\":\"x\",\"clientKeyData\":\"y\"}}",
		V1, VC_EINVALID,
		"failed parsing client key/certificate: tls: failed to find any PEM data "
		"in certificate input");
	expect_parse_error(
		"{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
		"\"status\":{\"clientCertificateData\":\"-----BEGIN C\","
		"\"clientKeyData\":\"y\"}}",
		V1, VC_EINVALID,
		"failed parsing client key/certificate: tls: failed to find any PEM data "
		"in key input");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":[]}",
			   V1, VC_EPARSE, "decoding stdout: \"status\" must be an object");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":7}}",
			   V1, VC_EPARSE, "decoding stdout: \"status.token\" must be a string");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":\"t\",\"expirationTimestamp\":5}}",
			   V1, VC_EPARSE,
			   "decoding stdout: \"status.expirationTimestamp\" must be a string");
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":\"t\",\"expirationTimestamp\":\"tomorrow\"}}",
			   V1, VC_EPARSE,
			   "decoding stdout: status.expirationTimestamp: cannot parse time "
			   "'tomorrow': too short for YYYY-MM-DDThh:mm:ssZ");
	/* The token never shows in a message. */
	expect_parse_error("{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
			   "\"status\":{\"token\":\"s3cr3t\",\"clientKeyData\":\"-----BEGIN\"}}",
			   V1, VC_EINVALID,
			   "exec plugin returned only certificate or key, not both");
}

static void test_parse_allocation_failures(void **state)
{
	static const char t[] = "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
				"\"status\":{\"token\":\"abc\",\"clientCertificateData\":"
				"\"-----BEGIN C\",\"clientKeyData\":\"-----BEGIN K\","
				"\"expirationTimestamp\":\"2030-01-02T03:04:05Z\"}}";
	struct vc_kube_exec_cred c;
	struct vc_error err;
	long n, failures;
	int rc;

	(void)state;
	vc_alloc_install_json();
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kube_exec_cred_parse(t, strlen(t), V1, &c, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			vc_kube_exec_cred_release(&c);
			break;
		}
		/* jansson reports some failed allocations as parse errors. */
		assert_true(rc == VC_ENOMEM || rc == VC_EPARSE);
		assert_null(c.token);
	}
	assert_true(n > 3);
}

/* ---- KUBERNETES_EXEC_INFO ------------------------------------------------------------------ */

static void test_exec_info(void **state)
{
	struct vc_kube_exec_config e = { 0 };
	struct vc_kube_config cfg = { 0 };
	struct vc_error err;
	char *info;

	(void)state;
	e.api_version = (char *)V1;
	e.command = (char *)"x";
	cfg.server = (char *)"https://10.0.0.1:6443";
	cfg.ca_data = (char *)"PEM";
	cfg.exec = &e;
	assert_int_equal(vc_kube_exec_info(&cfg, false, &info, &err), 0);
	assert_string_equal(info, "{\"kind\":\"ExecCredential\",\"apiVersion\":"
				  "\"client.authentication.k8s.io/v1\",\"spec\":{\"interactive\":"
				  "false}}");
	vc_free(info);

	e.provide_cluster_info = true;
	e.cluster_config = (char *)"{\"audience\":\"a1\"}";
	assert_int_equal(vc_kube_exec_info(&cfg, true, &info, &err), 0);
	assert_string_equal(info,
			    "{\"kind\":\"ExecCredential\",\"apiVersion\":"
			    "\"client.authentication.k8s.io/v1\",\"spec\":{\"cluster\":{\"server\":"
			    "\"https://10.0.0.1:6443\",\"certificate-authority-data\":\"UEVN\","
			    "\"config\":{\"audience\":\"a1\"}},\"interactive\":true}}");
	vc_free(info);

	cfg.ca_data = NULL;
	cfg.insecure = true;
	e.cluster_config = NULL;
	assert_int_equal(vc_kube_exec_info(&cfg, false, &info, &err), 0);
	assert_string_equal(info,
			    "{\"kind\":\"ExecCredential\",\"apiVersion\":"
			    "\"client.authentication.k8s.io/v1\",\"spec\":{\"cluster\":{"
			    "\"server\":\"https://10.0.0.1:6443\",\"insecure-skip-tls-verify\":"
			    "true},\"interactive\":false}}");
	vc_free(info);

	/* A CA file is read (client-go's dataFromSliceOrFile); one that is gone is an error. */
	cfg.insecure = false;
	cfg.ca_file = (char *)"/nonexistent/ca.crt";
	assert_int_equal(vc_kube_exec_info(&cfg, false, &info, &err), -ENOENT);
	assert_string_equal(err.text, "failed to load CA bundle for execProvider: cannot read "
				      "'/nonexistent/ca.crt': No such file or directory");
	assert_null(info);
	cfg.ca_file = (char *)DATA "README.md";
	assert_int_equal(vc_kube_exec_info(&cfg, false, &info, &err), 0);
	assert_non_null(strstr(info, "\"certificate-authority-data\":\"IyB0ZXN0cy9kYXRh"));
	vc_free(info);
}

static void test_interactive(void **state)
{
	struct vc_error err;
	bool on = true;
	int fd, saved;

	(void)state;
	/* stdin is /dev/null here: not a terminal. */
	saved = dup(STDIN_FILENO);
	fd = open("/dev/null", O_RDONLY);
	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	assert_int_equal(vc_kube_exec_interactive(VC_KUBE_EXEC_NEVER, true, &on, &err), 0);
	assert_false(on);
	on = true;
	assert_int_equal(vc_kube_exec_interactive(VC_KUBE_EXEC_IF_AVAILABLE, true, &on, &err), 0);
	assert_false(on);
	assert_int_equal(vc_kube_exec_interactive(VC_KUBE_EXEC_ALWAYS, true, &on, &err),
			 VC_EINVALID);
	assert_string_equal(err.text, "exec plugin cannot support interactive mode: standard input "
				      "is not a terminal");
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

/* ---- running plugins --------------------------------------------------------------------- */

/* A scratch folder for the plugins' files. */
static char scratch[64];

static int setup(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/test_kube_exec.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	unsetenv("EXEC_TOKEN");
	unsetenv("EXEC_COUNT_FILE");
	unsetenv("EXEC_EXPIRY");
	unsetenv("EXEC_INFO_FILE");
	unsetenv("EXEC_ARGS_FILE");
	unsetenv("EXEC_API_VERSION");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	vc_time_set_source(NULL, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static const char *in_scratch(const char *name)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", scratch, name);
	return buf[i];
}

/* The whole of a small file (static buffer), "" when it is missing. */
static const char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* How many times a counting plugin ran. */
static int runs_of(const char *count_file)
{
	return (int)strtol(slurp(count_file), NULL, 10);
}

static struct vc_kube_exec_config plugin(const char *script)
{
	struct vc_kube_exec_config e = { 0 };

	e.api_version = (char *)V1;
	e.command = (char *)script;
	e.interactive_mode = VC_KUBE_EXEC_NEVER;
	return e;
}

/* Run fd 2 into a file while fn runs, and return what was written (static buffer). */
static const char *stderr_of(void (*fn)(void *), void *arg)
{
	const char *path = in_scratch("stderr");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(STDERR_FILENO);

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	fn(arg);
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	return slurp(path);
}

struct run {
	struct vc_kube_exec_config *e;
	const char *info;
	int64_t timeout;
	int rc;
	struct vc_kube_exec_cred cred;
	struct vc_error err;
};

static void do_run(void *arg)
{
	struct run *r = arg;

	r->rc = vc_kube_exec_run(r->e, r->info, false, r->timeout, &r->cred, &r->err);
}

static void test_run(void **state)
{
	static char *args[] = { (char *)"--region", (char *)"eu west", NULL };
	static char *env[] = { (char *)"EXEC_TOKEN=from-env", (char *)"HOME=/plugin-home", NULL };
	struct vc_kube_exec_config e = plugin(DATA "token.sh");
	struct run r = { &e, "{\"x\":1}", 10 * SEC, 0, { 0 }, { 0 } };
	const char *errout;

	(void)state;
	setenv("EXEC_INFO_FILE", in_scratch("info"), 1);
	setenv("EXEC_ARGS_FILE", in_scratch("args"), 1);
	setenv("KUBERNETES_EXEC_INFO", "stale", 1);
	e.args = args;
	e.env = env;
	/* The plugin's stderr is the program's. */
	errout = stderr_of(do_run, &r);
	assert_int_equal(r.rc, 0);
	assert_string_equal(errout, "token.sh: run 1\n");
	assert_string_equal(r.cred.token, "from-env");
	assert_false(r.cred.has_expiry);
	vc_kube_exec_cred_release(&r.cred);
	assert_string_equal(slurp(in_scratch("info")), "{\"x\":1}");
	assert_string_equal(slurp(in_scratch("args")), "--region\neu west\n");
	unsetenv("KUBERNETES_EXEC_INFO");

	/* The program's environment is the plugin's too; an expiry comes through. */
	e.args = NULL;
	e.env = NULL;
	setenv("EXEC_TOKEN", "from-parent", 1);
	setenv("EXEC_EXPIRY", "2031-05-06T07:08:09Z", 1);
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &r.cred, &r.err), 0);
	assert_string_equal(r.cred.token, "from-parent");
	assert_true(r.cred.has_expiry);
	vc_kube_exec_cred_release(&r.cred);

	/* A version the kubeconfig does not name. */
	setenv("EXEC_API_VERSION", VC_KUBE_EXEC_V1BETA1, 1);
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &r.cred, &r.err), VC_EINVALID);
	assert_string_equal(r.err.text, "exec: executable tests/data/exec/token.sh: exec plugin is "
					"configured to use API version "
					"client.authentication.k8s.io/v1, plugin returned version "
					"client.authentication.k8s.io/v1beta1");
}

static void test_run_errors(void **state)
{
	struct vc_kube_exec_config e = plugin(DATA "fail.sh");
	struct run r = { &e, "{}", 10 * SEC, 0, { 0 }, { 0 } };
	struct vc_kube_exec_cred c;
	struct vc_error err;
	const char *errout;
	int64_t t0;

	(void)state;
	errout = stderr_of(do_run, &r);
	assert_int_equal(r.rc, VC_EIO);
	assert_string_equal(r.err.text,
			    "exec: executable tests/data/exec/fail.sh failed with exit code 3");
	assert_string_equal(errout, "fail.sh: no credentials for you\n");

	e.command = (char *)DATA "bad-json.sh";
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &c, &err), VC_EPARSE);
	assert_string_equal(err.text, "exec: executable tests/data/exec/bad-json.sh: decoding "
				      "stdout: couldn't get version/kind; json parse error: "
				      "string or '}' expected near end of file");

	/* Not in PATH: client-go's words, its help, and the kubeconfig's hint. */
	e.command = (char *)"caldera-no-such-plugin";
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &c, &err), VC_ENOENT);
	assert_string_equal(
		err.text, "exec: executable caldera-no-such-plugin not found\n\nIt looks like you "
			  "are trying to use a client-go credential plugin that is not "
			  "installed.\n\nTo learn more about this feature, consult the "
			  "documentation available at:\n      "
			  "https://kubernetes.io/docs/reference/access-authn-authz/authentication/"
			  "#client-go-credential-plugins");
	e.install_hint = (char *)"Install it with: apt-get install caldera-plugin";
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &c, &err), VC_ENOENT);
	assert_true(vc_str_has_suffix(err.text, "#client-go-credential-plugins\n\nInstall it "
						"with: apt-get install caldera-plugin"));
	e.command = (char *)"/nonexistent/plugin";
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &c, &err), VC_ENOENT);
	assert_true(vc_str_has_prefix(err.text, "exec: executable /nonexistent/plugin not found"));
	/* A file that is not executable is "not found" too, as os/exec has it. */
	e.command = (char *)DATA "README.md";
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 10 * SEC, &c, &err), VC_ENOENT);

	/* A plugin that hangs is killed at the time limit. */
	e.command = (char *)DATA "hang.sh";
	t0 = vc_time_mono_ns();
	assert_int_equal(vc_kube_exec_run(&e, "{}", false, 300 * VC_NSEC_PER_MSEC, &c, &err),
			 VC_ETIMEDOUT);
	assert_string_equal(err.text,
			    "exec: executable tests/data/exec/hang.sh did not finish within 300ms");
	assert_true(vc_time_mono_ns() - t0 < 5 * SEC);
}

/* ---- the cache ------------------------------------------------------------------------------ */

static int64_t fake_now;

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return __atomic_load_n(&fake_now, __ATOMIC_SEQ_CST);
}

static struct vc_kube_exec_auth *auth_for(const char *script, const char *count_file)
{
	struct vc_kube_exec_config e = plugin(script);
	struct vc_kube_config cfg = { 0 };
	struct vc_kube_exec_auth *a;
	struct vc_error err;

	cfg.server = (char *)"https://127.0.0.1:1";
	cfg.exec = &e;
	setenv("EXEC_COUNT_FILE", count_file, 1);
	if (vc_kube_exec_auth_new(&cfg, &a, &err))
		fail_msg("vc_kube_exec_auth_new: %s", err.text);
	return a;
}

static void test_cache(void **state)
{
	const char *count = in_scratch("count");
	struct vc_kube_exec_auth *a = auth_for(DATA "token.sh", count);
	struct vc_kube_exec_creds *c1, *c2;
	struct vc_error err;

	(void)state;
	/* The credential expires at 2030-01-01T00:00:00Z; the clock starts an hour before. */
	fake_now = INT64_C(1893456000) * SEC - 3600 * SEC;
	vc_time_set_source(fake_clock, NULL, NULL);
	setenv("EXEC_EXPIRY", "2030-01-01T00:00:00Z", 1);
	c1 = vc_kube_exec_auth_get(a, &err);
	assert_non_null(c1);
	assert_string_equal(c1->cred.token, "token-1");
	assert_int_equal(c1->generation, 1);
	c2 = vc_kube_exec_auth_get(a, &err);
	assert_ptr_equal(c1, c2);
	vc_kube_exec_creds_put(c2);
	assert_int_equal(runs_of(count), 1);

	/* At the expiry itself it is still good (client-go: now.After(exp)); a second later not. */
	fake_now = INT64_C(1893456000) * SEC;
	c2 = vc_kube_exec_auth_get(a, &err);
	assert_ptr_equal(c1, c2);
	vc_kube_exec_creds_put(c2);
	fake_now += SEC;
	c2 = vc_kube_exec_auth_get(a, &err);
	assert_non_null(c2);
	assert_string_equal(c2->cred.token, "token-2");
	assert_int_equal(c2->generation, 2);
	assert_int_equal(runs_of(count), 2);
	/* The old credential is still whole for a request that holds it. */
	assert_string_equal(c1->cred.token, "token-1");
	vc_kube_exec_creds_put(c1);

	/* A 401 for the current credential: one more run, however many requests report it. */
	unsetenv("EXEC_EXPIRY");
	assert_true(vc_kube_exec_auth_unauthorized(a, 2));
	assert_true(vc_kube_exec_auth_unauthorized(a, 2));
	c1 = vc_kube_exec_auth_get(a, &err);
	assert_string_equal(c1->cred.token, "token-3");
	/* A 401 for an older credential changes nothing. */
	assert_true(vc_kube_exec_auth_unauthorized(a, 2));
	assert_false(vc_kube_exec_auth_unauthorized(a, 0));
	vc_kube_exec_creds_put(c2);
	c2 = vc_kube_exec_auth_get(a, &err);
	assert_ptr_equal(c1, c2);
	vc_kube_exec_creds_put(c2);
	vc_kube_exec_creds_put(c1);
	/* No expiry: good for ever. */
	fake_now += 1000 * 86400 * SEC;
	c1 = vc_kube_exec_auth_get(a, &err);
	assert_string_equal(c1->cred.token, "token-3");
	vc_kube_exec_creds_put(c1);
	assert_int_equal(runs_of(count), 3);
	assert_int_equal(vc_kube_exec_auth_runs(a), 3);
	vc_kube_exec_auth_free(a);
}

/* Clients of the same user share one cache (client-go's globalCache); others do not. */
static void test_cache_shared(void **state)
{
	static char *args[] = { (char *)"other", NULL };
	struct vc_kube_exec_config e = plugin(DATA "token.sh");
	struct vc_kube_config cfg = { 0 };
	struct vc_kube_exec_auth *a, *b, *c;
	struct vc_kube_exec_creds *x, *y;
	struct vc_error err;

	(void)state;
	cfg.server = (char *)"https://127.0.0.1:1";
	cfg.exec = &e;
	setenv("EXEC_COUNT_FILE", in_scratch("count"), 1);
	assert_int_equal(vc_kube_exec_auth_new(&cfg, &a, &err), 0);
	assert_int_equal(vc_kube_exec_auth_new(&cfg, &b, &err), 0);
	assert_ptr_equal(a, b);
	e.args = args;
	assert_int_equal(vc_kube_exec_auth_new(&cfg, &c, &err), 0);
	assert_ptr_not_equal(a, c);
	x = vc_kube_exec_auth_get(a, &err);
	y = vc_kube_exec_auth_get(b, &err);
	assert_ptr_equal(x, y);
	assert_int_equal(runs_of(in_scratch("count")), 1);
	vc_kube_exec_creds_put(x);
	vc_kube_exec_creds_put(y);
	vc_kube_exec_auth_free(a);
	/* b still works after a is gone. */
	y = vc_kube_exec_auth_get(b, &err);
	assert_string_equal(y->cred.token, "token-1");
	vc_kube_exec_creds_put(y);
	vc_kube_exec_auth_free(b);
	vc_kube_exec_auth_free(c);
	/* A new client after the last one went starts afresh. */
	e.args = NULL;
	assert_int_equal(vc_kube_exec_auth_new(&cfg, &a, &err), 0);
	assert_int_equal(vc_kube_exec_auth_runs(a), 0);
	vc_kube_exec_auth_free(a);
}

static void test_cache_failure(void **state)
{
	const char *count = in_scratch("count");
	struct vc_kube_exec_auth *a = auth_for(DATA "fail.sh", count);
	struct vc_kube_exec_creds *c;
	struct vc_error err;
	int saved = dup(STDERR_FILENO), fd = open("/dev/null", O_WRONLY);

	(void)state;
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	c = vc_kube_exec_auth_get(a, &err);
	assert_null(c);
	assert_int_equal(err.code, VC_EIO);
	assert_string_equal(err.text, "getting credentials: exec: executable "
				      "tests/data/exec/fail.sh failed with exit code 3");
	/* Nothing is cached: the next request tries again. */
	assert_null(vc_kube_exec_auth_get(a, &err));
	assert_int_equal(vc_kube_exec_auth_runs(a), 2);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	vc_kube_exec_auth_free(a);
}

struct getter {
	struct vc_kube_exec_auth *a;
	int ok;
};

static void *get_many(void *arg)
{
	struct getter *g = arg;
	struct vc_kube_exec_creds *c;
	struct vc_error err;
	int i;

	for (i = 0; i < 50; i++) {
		c = vc_kube_exec_auth_get(g->a, &err);
		if (c && c->cred.token && vc_str_has_prefix(c->cred.token, "token-"))
			g->ok++;
		/* Every thread reports a 401 now and then: one run each time, not a storm. */
		if (c && i % 10 == 9)
			vc_kube_exec_auth_unauthorized(g->a, c->generation);
		vc_kube_exec_creds_put(c);
	}
	return NULL;
}

/* Many threads at once (TSan runs this): one plugin run at a time, shared results. */
static void test_cache_threads(void **state)
{
	const char *count = in_scratch("count");
	struct vc_kube_exec_auth *a = auth_for(DATA "token.sh", count);
	struct getter g[4];
	pthread_t t[4];
	int i, saved = dup(STDERR_FILENO), fd = open("/dev/null", O_WRONLY);
	uint64_t runs;

	(void)state;
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	for (i = 0; i < 4; i++) {
		g[i] = (struct getter){ a, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, get_many, &g[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(g[i].ok, 50);
	}
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	runs = vc_kube_exec_auth_runs(a);
	/* 4 threads x 5 reports each, some of them for the same credential. */
	assert_true(runs >= 2 && runs <= 21);
	assert_int_equal(runs_of(count), (int)runs);
	vc_kube_exec_auth_free(a);
}

static void quiet(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	(void)line;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_allocation_failures),
		cmocka_unit_test(test_exec_info),
		cmocka_unit_test(test_interactive),
		cmocka_unit_test_setup_teardown(test_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_threads, setup, teardown),
	};

	vc_log_set_sink(quiet, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
