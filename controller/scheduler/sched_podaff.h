/*
 * sched_podaff.h - the session's index of pods by topology domain, for Kubernetes' inter-pod
 * affinity and pod topology spread (docs/volcano/scheduler.md §4.7, §4.8): the InterPodAffinity
 * and PodTopologySpread filters of the predicates plugin and their scores in nodeorder.
 *
 * The index exists only when some pod of the snapshot (pending or placed, ours or not) has
 * spec.affinity.podAffinity, spec.affinity.podAntiAffinity or spec.topologySpreadConstraints, or
 * some pending pod gets Kubernetes' system default spread constraints (a Service of its namespace
 * or its ReplicationController, ReplicaSet or StatefulSet selects it: sched_objects.h):
 * otherwise sched_ssn_podaff() is NULL and the plugins register nothing, so a cluster without
 * such terms pays one scan of its pod specs when the session opens.
 *
 * What it keeps: pods with equal terms (the podAffinity, podAntiAffinity and
 * topologySpreadConstraints subtrees, compared as JSON) in one namespace share one parsed "spec".
 * Per spec, the counts of its own placed members per topology domain of each of its required
 * anti-affinity and preferred terms (the "existing pods" side, for symmetry), and, once a pod of
 * that spec is being placed, the counts of every placed pod matching each of its terms (the
 * "incoming pod" side). Both are updated on every allocation, pipelining, eviction and undo of
 * the session (the statement calls sched_podaff_update), so a pod placed earlier in the session
 * counts for the next one: gang members see each other. Pods evicted in this session do not
 * count (Volcano's predicates drop them from their node on the eviction's event).
 *
 * Nothing here locks: the index belongs to the session.
 */
#ifndef SCHED_PODAFF_H
#define SCHED_PODAFF_H

#include "sched_framework.h"

/* Kubernetes' reasons (pkg/scheduler/framework/plugins/interpodaffinity, podtopologyspread). */
#define PODAFF_REASON_AFFINITY	      "node(s) didn't match pod affinity rules"
#define PODAFF_REASON_ANTI_AFFINITY   "node(s) didn't match pod anti-affinity rules"
#define PODAFF_REASON_EXISTING_ANTI   "node(s) didn't satisfy existing pods anti-affinity rules"
#define PODAFF_REASON_SPREAD	      "node(s) didn't match pod topology spread constraints"
#define PODAFF_REASON_SPREAD_NO_LABEL PODAFF_REASON_SPREAD " (missing required label)"

struct sched_podaff;

/*
 * Build the index of a session whose tasks and nodes are set up (sched_session.c, before the
 * plugins open): *out stays NULL when no pod has inter-pod terms. 0 or VC_ENOMEM.
 */
int sched_podaff_new(struct sched_session *ssn, struct sched_podaff **out) VC_WARN_UNUSED;
void sched_podaff_free(struct sched_podaff *pa);

/*
 * Whether some pod has a term the filter checks (required affinity or anti-affinity, a
 * DoNotSchedule constraint): otherwise sched_podaff_filter passes every node and the predicates
 * plugin need not call it. Only the scores concern pods with the system default constraints
 * alone (they are ScheduleAnyway).
 */
bool sched_podaff_filters(const struct sched_podaff *pa);

/*
 * A task was placed (allocated, pipelined, or its eviction undone: counted on t->node) or left
 * its node (evicted, or its placement undone): the statement's events.
 */
void sched_podaff_update(struct sched_podaff *pa, const struct sched_ssn_task *t, bool placed);

/*
 * The InterPodAffinity filter (required terms of t against the pods counted in t's topology
 * domains, then the counted pods' required anti-affinity against t), then the PodTopologySpread
 * filter (DoNotSchedule constraints) of t on node n. Sets out->fit / out->reason (the
 * PODAFF_REASON_* texts) and *unresolvable as Kubernetes' statuses say
 * (UnschedulableAndUnresolvable for pod affinity and a missing topology label). 0 or VC_ENOMEM.
 */
int sched_podaff_filter(struct sched_podaff *pa, const struct sched_ssn_task *t,
			const struct sched_ssn_node *n, struct pred_result *out,
			bool *unresolvable) VC_WARN_UNUSED;

/*
 * Add to scores[i] the InterPodAffinity score (preferred terms of t and of the counted pods,
 * normalised over nodes[0..n) to 0..100) times aff_weight, and the PodTopologySpread score
 * (ScheduleAnyway constraints, normalised likewise) times spread_weight, for each of nodes[0..n).
 * Adds nothing for a task that no term concerns.
 */
void sched_podaff_score(struct sched_podaff *pa, const struct sched_ssn_task *t,
			const uint32_t *nodes, size_t n, double aff_weight, double spread_weight,
			double *scores);

#endif /* SCHED_PODAFF_H */
