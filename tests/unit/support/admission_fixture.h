/*
 * admission_fixture.h - the cluster state and configuration of an admission test case
 * (tests/data/admission/<case>/state.json, format in tests/data/admission/README.md), as the
 * struct admission_ctx the handlers read. One loader for test_admission.c (the whole review)
 * and test_admission_qpp.c (the handlers called directly).
 */
#ifndef CALDERA_TESTS_ADMISSION_FIXTURE_H
#define CALDERA_TESTS_ADMISSION_FIXTURE_H

#include "vc_prelude.h"

#include <jansson.h>

#include "admission.h"

struct admission_fixture {
	json_t *doc; /* state.json, or an empty object */
	const char *names[16];
	struct admission_config config;
	struct admission_state state;
	struct admission_ctx ctx; /* what to hand to the handlers */
};

/*
 * Set f up from doc (stolen; NULL for a case without state.json). The configuration starts at
 * Volcano's defaults (admission_config_init) with the scheduler name "volcano"; doc's "config"
 * member overrides them. Lookups find doc's queues and namespaces by name; the names listed in
 * "failing_queues" (get_queue, queue_children), "failing_children" (queue_children) and
 * "failing_namespaces" (get_namespace) fail with VC_EIO and the text "injected failure".
 * Returns 0, or VC_ENOMEM when doc is NULL and no empty object could be made.
 */
int admission_fixture_init(struct admission_fixture *f, json_t *doc);
void admission_fixture_release(struct admission_fixture *f);

#endif
