/*
 * sched_registry.c - the action and plugin tables of sched_registry.h.
 */
#include "sched_registry.h"

static const struct sched_action *const actions[] = {
	&sched_action_enqueue, &sched_action_allocate, &sched_action_backfill,
	&sched_action_preempt, &sched_action_reclaim,
};

static const struct sched_plugin *const plugins[] = {
	&sched_plugin_priority,	    &sched_plugin_gang,	     &sched_plugin_conformance,
	&sched_plugin_overcommit,   &sched_plugin_drf,	     &sched_plugin_predicates,
	&sched_plugin_proportion,   &sched_plugin_nodeorder, &sched_plugin_binpack,
	&sched_plugin_tasktopology, &sched_plugin_capacity,
};

const struct sched_action *sched_action_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(actions[i]->name, name) == 0)
			return actions[i];
	return NULL;
}

const struct sched_plugin *sched_plugin_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
		if (strcmp(plugins[i]->name, name) == 0)
			return plugins[i];
	return NULL;
}
