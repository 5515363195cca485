/*
 * libFuzzer target: arbitrary bytes as a kubeconfig file read by vc_kubeconfig_load (vcctl and
 * every daemon's --kubeconfig; a file a user may have been handed by someone else).
 *
 * The input is written to a file in a private scratch folder (the loader reads files, and
 * resolves relative names against the file's folder); the first byte picks the context (the
 * current one or "ctx") and whether --master overrides the server. The contract: no crash, no
 * undefined behaviour, no leak; a failure is a documented code (-errno for a file named inside
 * the kubeconfig that cannot be read, or one of Caldera's codes) with the config left empty; a
 * success has a server without a trailing '/', a namespace, a token that is not
 * empty, the client-go defaults for qps and burst, and an exec plugin only with a command and
 * one of the two API versions.
 */
#include "vc_prelude.h"

#include <fcntl.h>
#include <unistd.h>

#include "vc_err.h"
#include "vc_kube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char scratch[64];
static char path[96];

static void cleanup(void)
{
	unlink(path);
	rmdir(scratch);
}

static void setup(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/fuzz-kubeconfig.XXXXXX");
	if (!mkdtemp(scratch))
		abort();
	snprintf(path, sizeof(path), "%s/config", scratch);
	atexit(cleanup);
}

static void write_input(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0)
		abort();
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	close(fd);
}

static bool empty(const struct vc_kube_config *c)
{
	return !c->server && !c->ca_file && !c->ca_data && !c->token && !c->token_file &&
	       !c->client_cert_file && !c->client_cert_data && !c->client_key_file &&
	       !c->client_key_data && !c->exec && !c->namespace;
}

static void check_ok(const struct vc_kube_config *c)
{
	size_t n;

	/* Any scheme is kept, as client-go does (the transport refuses it later); trailing '/'
	 * are dropped. */
	if (!c->server || !*c->server)
		abort();
	n = strlen(c->server);
	if (c->server[n - 1] == '/' && !(n >= 3 && !strcmp(c->server + n - 3, "://")))
		abort();
	if (!c->namespace || (c->token && !*c->token))
		abort();
	if (c->qps != VC_KUBE_DEFAULT_QPS || c->burst != VC_KUBE_DEFAULT_BURST)
		abort();
	if (c->exec) {
		if (!c->exec->command || !*c->exec->command || !c->exec->api_version)
			abort();
		if (strcmp(c->exec->api_version, VC_KUBE_EXEC_V1) &&
		    strcmp(c->exec->api_version, VC_KUBE_EXEC_V1BETA1))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vc_kube_config cfg;
	struct vc_error err;
	const char *context, *master;
	int rc;

	if (size < 1 || size > 64 * 1024)
		return 0;
	if (!*path)
		setup();
	context = data[0] & 1 ? "ctx" : NULL;
	master = data[0] & 2 ? "https://master.example:6443/" : NULL;
	write_input(data + 1, size - 1);
	rc = vc_kubeconfig_load(path, context, master, &cfg, &err);
	if (rc == 0) {
		check_ok(&cfg);
		vc_kube_config_release(&cfg);
		if (!empty(&cfg))
			abort();
		return 0;
	}
	if (!(rc < 0 && rc > -4096) && rc != VC_EPARSE && rc != VC_EINVALID && rc != VC_ENOTFOUND &&
	    rc != VC_E2BIG)
		abort();
	if (err.code != rc || !empty(&cfg))
		abort();
	return 0;
}
