#!/usr/bin/env bash
# /metrics during a real scheduling run: Volcano's metric names, types and labels
# (docs/volcano/metrics.md) scraped from vc-controller --enable-metrics, and the values moving
# as they should:
#
#   schedule   a 2-pod job is scheduled: volcano_e2e_job_scheduling_latency_milliseconds_count
#              + 1, schedule_attempts_total{result="scheduled"} + 2, the job's duration gauges,
#              volcano_queue_allocated_milli_cpu{queue_name="default"} = the 200m bound, action
#              and plugin latencies by label, task latency by stage
#   complete   the job ends: volcano_job_completed_phase_count{job_name,queue_name} + 1
#   unsched    a job that cannot fit: unschedule_job_count, unschedule_task_count{job_id} and
#              schedule_attempts_total{result="unschedulable"}
#   per-job    deleting a job deletes its per-job series (bounded /metrics)
#   promtool   `promtool check metrics` finds nothing to say about the scrape
#   dashboard  every metric that manifests/grafana/caldera-dashboard.json queries is in the scrape
#
# Checked against Volcano v1.7: this scenario passes with E2E_IMPL=volcano (its vc-scheduler
# serves /metrics on --listen-address with --enable-metrics): the same run shows volcano_e2e_job_scheduling_latency_milliseconds and
# volcano_e2e_scheduling_latency_milliseconds (histograms), volcano_queue_allocated_milli_cpu
# {queue_name="default"} = 200 while the job runs, and volcano_unschedule_job_count /
# volcano_unschedule_task_count{job_id}. v1.7 observes the job histogram once per task
# allocated (HEAD: per job, as Caldera), never increments schedule_attempts_total, names the
# action and plugin histograms ..._microseconds, lacks the HEAD metrics (open session, stage
# durations, evictions, inqueue, capacity), exports Go's runtime series (promtool lints them)
# and its vc-controller-manager serves no metrics: those checks are guarded with is_caldera.
# shellcheck source=tests/e2e/jobs_lib.sh
. "$(dirname "$0")/jobs_lib.sh"

command -v promtool >/dev/null || fail "promtool is missing (Debian package prometheus; make deps)"
E2E_CTRL_ARGS="${E2E_CTRL_ARGS:+$E2E_CTRL_ARGS }--enable-metrics"
jobs_setup 2:cpu=8,memory=32Gi,nvidia.com/gpu=4,pods=110
ns metrics

SCRAPE=$E2E_DIR/scrape.txt
scrape() { curl -fsS --max-time 5 "http://127.0.0.1:$METRICS_PORT/metrics" >"$SCRAPE"; }
# val SERIES: the value of the series written exactly so (name{labels} in the exposition's
# order), 0 when absent.
val() {
	scrape || return 1
	awk -v k="$1" '$1 == k { v = $2 } END { print (v == "" ? 0 : v) }' "$SCRAPE"
}
# has_type NAME TYPE: the scrape declares NAME with TYPE.
has_type() { grep -qx "# TYPE $1 $2" "$SCRAPE"; }
val_is() { [ "$(val "$1")" = "$2" ]; }
val_ge() { awk -v a="$(val "$1")" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

wait_for "/metrics on 127.0.0.1:$METRICS_PORT" 30 scrape
JOBLAT=volcano_e2e_job_scheduling_latency_milliseconds_count
c0=$(val $JOBLAT)
a0=$(val 'volcano_schedule_attempts_total{result="scheduled"}')

# --- schedule ------------------------------------------------------------------------------------
job_yaml m1 "  minAvailable: 2
  schedulerName: volcano
  tasks:
$(task_yaml w 2 4)" | apply_job -
wait_phase m1 Running
PG=$(k get podgroup -o jsonpath='{.items[0].metadata.name}')
check "the podgroup of m1 is known" [ -n "$PG" ]
alloc_200() { val_is 'volcano_queue_allocated_milli_cpu{queue_name="default"}' 200; }
wait_for "volcano_queue_allocated_milli_cpu{queue_name=\"default\"} = 200 (2 pods of 100m bound)" 20 alloc_200
scrape
c1=$(val $JOBLAT)
if is_caldera; then
	eq "one job scheduled: e2e job latency count + 1" "$((c1 - c0))" 1
	eq "two pods bound: schedule_attempts_total{result=scheduled} + 2" \
		"$(($(val 'volcano_schedule_attempts_total{result="scheduled"}') - a0))" 2
	check "per-job duration of $PG" \
		grep -q "^volcano_e2e_job_scheduling_duration{job_name=\"$PG\",queue=\"default\",job_namespace=\"metrics\"} " "$SCRAPE"
	check "per-job start time of $PG" \
		grep -q "^volcano_e2e_job_scheduling_start_time{job_name=\"$PG\",queue=\"default\",job_namespace=\"metrics\"} " "$SCRAPE"
	check "allocate's latency" val_ge 'volcano_action_scheduling_latency_milliseconds_count{action="allocate"}' 1
	check "gang's OnSessionOpen latency" \
		val_ge 'volcano_plugin_scheduling_latency_milliseconds_count{plugin="gang",OnSession="OnSessionOpen"}' 1
	for st in Watched Assumed PreBound Bound; do
		check "task latency to $st" val_ge "volcano_task_scheduling_latency_milliseconds_count{stage=\"$st\"}" 2
	done
	for st in Predicate Scoring Bind; do
		check "per-task stage $st" val_ge "volcano_scheduling_stage_duration_milliseconds_count{stage=\"$st\"}" 2
	done
	check "open session duration" val_ge volcano_open_session_duration_milliseconds_count 1
	check "queue weight" val_is 'volcano_queue_weight{queue_name="default"}' 1
	check "job share of $PG" val_ge "volcano_job_share{job_ns=\"metrics\",job_id=\"$PG\"}" 0.0000001
else
	check "Volcano: e2e job latency counted" [ "$((c1 - c0))" -ge 1 ]
fi
check "e2e scheduling latency is a histogram" has_type volcano_e2e_scheduling_latency_milliseconds histogram
check "e2e job scheduling latency is a histogram" has_type volcano_e2e_job_scheduling_latency_milliseconds histogram
check "queue allocated cpu is a gauge" has_type volcano_queue_allocated_milli_cpu gauge
pass "schedule: latency, attempts, per-job gauges and queue allocation moved"

# A job that runs to the end of the scenario keeps its per-job series for the dashboard check.
job_yaml keep "  minAvailable: 1
  schedulerName: volcano
  tasks:
$(task_yaml w 1 "")" | apply_job -
wait_phase keep Running

# --- complete ------------------------------------------------------------------------------------
done0=$(val "volcano_job_completed_phase_count{job_name=\"m1\",queue_name=\"default\"}")
wait_phase m1 Completed 60
if is_caldera; then
	done_1() { val_is "volcano_job_completed_phase_count{job_name=\"m1\",queue_name=\"default\"}" "$((done0 + 1))"; }
	wait_for "volcano_job_completed_phase_count{m1} + 1" 10 done_1
	check "job to pod creation latency observed" \
		val_ge volcano_controller_job_to_pod_creation_latency_milliseconds_count 2
	pass "complete: the completed phase counter of m1 is 1"
fi

# --- unschedulable -------------------------------------------------------------------------------
u0=$(val 'volcano_schedule_attempts_total{result="unschedulable"}')
job_yaml big "  minAvailable: 1
  schedulerName: volcano
  tasks:
$(task_yaml w 1 "" | sed 's/cpu: 100m/cpu: "10"/')" | apply_job -
big_pg() { k get podgroup -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' | grep '^big-'; }
wait_for "the podgroup of big" 20 big_pg
BIG=$(big_pg)
unsched() { val_ge volcano_unschedule_job_count 1 && val_is "volcano_unschedule_task_count{job_id=\"$BIG\"}" 1; }
wait_for "unschedule_job_count >= 1 and unschedule_task_count of big = 1" 20 unsched
if is_caldera; then
	unsched_attempts() { val_ge 'volcano_schedule_attempts_total{result="unschedulable"}' "$((u0 + 1))"; }
	wait_for "schedule_attempts_total{result=unschedulable} grows" 20 unsched_attempts
	check "retries of $BIG counted" val_ge "volcano_job_retry_counts{job_id=\"$BIG\"}" 1
fi
pass "unsched: the job that cannot fit is counted"

# --- dashboard ----------------------------------------------------------------------------------------
if is_caldera; then
	DASH=$E2E_ROOT/manifests/grafana/caldera-dashboard.json
	names=$(python3 - "$DASH" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
print("\n".join(sorted({n for p in d["panels"] for t in p.get("targets", [])
                        for n in re.findall(r"\bvolcano_[a-zA-Z0-9_:]*", t["expr"])})))
PY
)
	check "the dashboard queries metrics" [ -n "$names" ]
	scrape
	missing=
	for n in $names; do
		# A histogram's samples are <name>_bucket, _sum and _count.
		b=$(sed -E 's/_(bucket|sum|count)$//' <<<"$n")
		grep -q "^# TYPE $n " "$SCRAPE" || grep -q "^# TYPE $b histogram$" "$SCRAPE" ||
			missing="$missing $n"
	done
	check "every metric the dashboard queries is exposed (missing:$missing)" [ -z "$missing" ]
	pass "dashboard: $(wc -w <<<"$names") metrics, all in the scrape"
fi

# --- per-job series go with the job --------------------------------------------------------------
if is_caldera; then
	k delete vcjob big --wait=false >/dev/null
	# The test cluster runs no garbage collector for owner references: delete the PodGroup too.
	k delete podgroup "$BIG" --wait=false >/dev/null
	gone() { scrape && ! grep -q "job_id=\"$BIG\"" "$SCRAPE"; }
	wait_for "no series of $BIG once its PodGroup is gone" 30 gone
	pass "per-job: the deleted job's series are gone"
fi

# --- promtool --------------------------------------------------------------------------------------
# promtool parses the scrape (a text-format error is a finding of its own) and lints the names.
# Volcano's names are the contract (docs/volcano/metrics.md): their units (milliseconds), the
# label OnSession and the counters named *_count draw four lint findings, allowed for those
# names only; anything else fails.
scrape
out=$(promtool check metrics <"$SCRAPE" 2>&1) || true
VOLCANO_LINT='(counter metrics should have "_total" suffix|label names should be written in .snake_case. not .camelCase.|non-histogram and non-summary metrics should not have "_count" suffix|use base unit "seconds" instead of "milliseconds")'
check "promtool parses the scrape ($out)" eval '! grep -q "error while linting" <<<"$out"'
# Volcano v1.7 also exports Go's runtime series and names two histograms ..._microseconds:
# only the parse is checked there.
if is_caldera; then
	bad=$(grep -vE "^volcano_[a-z0-9_]+ $VOLCANO_LINT\$" <<<"$out" || true)
	check "promtool finds nothing but Volcano's own naming (found: $bad)" [ -z "$bad" ]
	for n in $(awk '{print $1}' <<<"$out" | sort -u); do
		check "$n, linted for its name, is Volcano's" grep -q "\`$n\`" "$E2E_ROOT/docs/volcano/metrics.md"
	done
fi
pass "promtool: the exposition parses; lint findings only on Volcano's contract names"

