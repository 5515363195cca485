/* vcctl (and the kubectl plugin kubectl-vc): Volcano's command line. Everything is in vcctl.h. */
#include "vcctl.h"

#include "vc_alloc.h"
#include "vc_log.h"

int main(int argc, char **argv)
{
	vc_alloc_install_json();
	vc_log_set_component("vcctl");
	/* A command line tool: the client's warnings would only clutter the output. */
	vc_log_set_verbosity(0);
	vc_log_threshold = VC_LOG_ERROR;
	return vcctl_main(argc, argv, NULL, stdout, stderr);
}
