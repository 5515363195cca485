/*
 * itest_leader - one leader-election candidate against a real API server, for
 * tests/e2e/test_leader_events.sh.
 *
 *   itest_leader --kubeconfig FILE --identity ID [Volcano's --leader-elect-* flags]
 *
 * It campaigns for the Lease named by the flags (the daemons' flag table rows, VC_LEADER_FLAGS),
 * records client-go's LeaderElection Events on the Lease, and logs every transition:
 * "new leader elected", "successfully acquired lease", "released leader lease". SIGTERM or
 * SIGINT stops it gracefully (the Lease is released) with status 0. Losing leadership ends it
 * with status 1 and "leaderelection lost", as Volcano's daemons do.
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_events.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_leader.h"
#include "vc_log.h"
#include "vc_time.h"

struct opts {
	const char *kubeconfig;
	const char *master;
	const char *identity;
	struct vc_leader_config le;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, kubeconfig),
	  "Path to kubeconfig file with authorization and master location information." },
	{ "master", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, master),
	  "The address of the Kubernetes API server (overrides any value in kubeconfig)" },
	{ "identity", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, identity),
	  "The candidate's identity (default: hostname_UUID, as Volcano makes it)" },
	VC_LEADER_FLAGS(struct opts, le, "itest-leader"),
};

static void on_started(void *ctx)
{
	(void)ctx;
	VC_INFO("started leading", "");
}

/* Volcano's OnStoppedLeading is klog.Fatalf("leaderelection lost"): wake main to exit 1. */
static void on_stopped(void *ctx)
{
	(void)ctx;
	VC_ERROR("leaderelection lost", "");
	kill(getpid(), SIGUSR1);
}

static void on_new_leader(void *ctx, const char *identity)
{
	(void)ctx;
	VC_INFO("observed leader", "identity=%s", identity[0] ? identity : "(released)");
}

int main(int argc, char **argv)
{
	const struct vc_leader_callbacks cb = {
		.on_started_leading = on_started,
		.on_stopped_leading = on_stopped,
		.on_new_leader = on_new_leader,
	};
	struct vc_events_config ecfg = { .component = "itest-leader" };
	struct vc_kube_config kcfg = { 0 };
	struct vc_events *rec = NULL;
	struct vc_leader *le = NULL;
	struct vc_kube *kube = NULL;
	struct vc_error err;
	struct opts o;
	sigset_t sigs;
	int first, sig = 0, rc, status = 2;

	vc_alloc_install_json();
	vc_log_set_component("itest-leader");
	rc = vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &o, argc, argv, &first, &err);
	if (rc == VC_FLAGS_HELP) {
		vc_flags_usage(flags, VC_ARRAY_SIZE(flags), argv[0], stdout);
		return 0;
	}
	if (rc || first != argc) {
		fprintf(stderr, "itest_leader: %s\n", rc ? err.text : "unexpected argument");
		return 2;
	}
	o.le.release_on_cancel = true;
	if (vc_leader_config_validate(&o.le, &err)) {
		fprintf(stderr, "itest_leader: %s\n", err.text);
		return 2;
	}

	/* Signals are taken by sigwait below, in no other thread. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (vc_kube_config_from_flags(o.kubeconfig, o.master, &kcfg, &err) ||
	    vc_kube_new(&kcfg, &kube, &err)) {
		VC_ERROR("cannot make the client", "err=\"%s\"", err.text);
		goto out;
	}
	if (vc_events_new(kube, &ecfg, &rec, &err) || vc_events_start(rec)) {
		VC_ERROR("cannot start the event recorder", "err=\"%s\"", err.text);
		goto out;
	}
	if (vc_leader_new(kube, &o.le, o.identity[0] ? o.identity : NULL, &cb, &le, &err)) {
		VC_ERROR("cannot make the elector", "err=\"%s\"", err.text);
		goto out;
	}
	vc_leader_set_recorder(le, rec);
	VC_INFO("candidate", "identity=%s lease=%s/%s", vc_leader_identity(le),
		vc_leader_config_namespace(&o.le), o.le.resource_name);
	if (vc_leader_start(le)) {
		VC_ERROR("cannot start the elector", "");
		goto out;
	}

	if (sigwait(&sigs, &sig) != 0)
		sig = SIGTERM;
	if (sig == SIGUSR1) {
		status = 1;
	} else {
		VC_INFO("stopping", "signal=%d", sig);
		vc_leader_stop(le);
		status = 0;
	}
	vc_events_stop(rec, 5 * VC_NSEC_PER_SEC);
out:
	vc_leader_free(le);
	vc_events_free(rec);
	vc_kube_free(kube);
	vc_kube_config_release(&kcfg);
	return status;
}
