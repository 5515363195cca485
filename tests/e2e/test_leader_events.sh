#!/usr/bin/env bash
# Leader election on a Lease and the Event recorder (common/vc_leader, common/vc_events) against
# the local cluster, through build/itest/itest_leader and build/itest/itest_events:
#   - two candidates, exactly one leader, and it stays the leader while it renews;
#   - the leader is killed (SIGKILL: no release): the standby waits out the lease and takes over;
#   - the new leader stops gracefully (SIGTERM: release): a standby takes over at its next retry,
#     well within one lease duration;
#   - each leader records client-go's LeaderElection Event on the Lease;
#   - one event recorded 5 times is one Event with count 5, which kubectl describe shows as
#     "(x5 over ...)"; 12 similar events are 9 Events plus one "(combined from similar events)"
#     Event with count 3.
#
# E2E_ITEST_DIR (default build/itest) is where the integration programs are.
# shellcheck source=tests/e2e/lib.sh
. "$(dirname "$0")/lib.sh"

ITEST=${E2E_ITEST_DIR:-$E2E_ROOT/build/itest}
for b in itest_leader itest_events; do
	[ -x "$ITEST/$b" ] || fail "$ITEST/$b is missing: run make build"
done

# Short durations, valid for client-go (lease > renew > 1.2 x retry).
LEASE=4 RENEW=3 RETRY=1
JITTER=1.2 # client-go's JitterFactor: a candidate polls every retry x [1, 2.2)
NS=volcano-system
LOCK=itest-lock

e2e_cluster_up
kube create namespace $NS >/dev/null

candidate() {
	start_daemon "$1" "$ITEST/itest_leader" --kubeconfig="$KUBECONFIG" --identity="$1" \
		--leader-elect-lease-duration=${LEASE}s --leader-elect-renew-deadline=${RENEW}s \
		--leader-elect-retry-period=${RETRY}s --leader-elect-resource-name=$LOCK
}
log_of() { cat "$E2E_DIR/daemons/$1.log"; }
holder() { kube get lease -n $NS $LOCK -o jsonpath='{.spec.holderIdentity}'; }
transitions() { kube get lease -n $NS $LOCK -o jsonpath='{.spec.leaseTransitions}'; }
holder_is() { [ "$(holder)" = "$1" ]; }
has_holder() { [ -n "$(holder)" ]; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# le X Y: X <= Y as numbers.
le() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x <= y) }'; }
# until_holder ID TIMEOUT_S: poll every 0.1 s until ID holds the Lease; fail after TIMEOUT_S.
until_holder() {
	local deadline=$((SECONDS + $2))
	until holder_is "$1"; do
		[ $SECONDS -lt $deadline ] || fail "$1 did not get the Lease within $2s (holder: '$(holder)')"
		sleep 0.1
	done
}
# kill_daemon NAME: SIGKILL it (no graceful release) and forget it, so the harness does not
# count its death as a crash.
kill_daemon() {
	local f=$E2E_DIR/daemons/$1.pid pid _
	read -r pid _ <"$f"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	rm -f "$f"
}

step "two candidates, one leader"
candidate cand-a
candidate cand-b
wait_for "a holder of Lease $NS/$LOCK" 30 has_holder
leader=$(holder)
case $leader in
cand-a) standby=cand-b ;;
cand-b) standby=cand-a ;;
*) fail "unexpected holder '$leader'" ;;
esac
wait_for "$standby to observe $leader" 10 \
	grep -q "msg=\"observed leader\" identity=$leader" "$E2E_DIR/daemons/$standby.log"
[ "$(kube get lease -n $NS $LOCK -o jsonpath='{.spec.leaseDurationSeconds}')" = $LEASE ] ||
	fail "leaseDurationSeconds is not $LEASE"
renew1=$(kube get lease -n $NS $LOCK -o jsonpath='{.spec.renewTime}')
[[ $renew1 =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$ ]] ||
	fail "renewTime '$renew1' is not a MicroTime"
sleep $((3 * RETRY))
holder_is "$leader" || fail "leadership moved from $leader to '$(holder)' while $leader was renewing"
[ "$(kube get lease -n $NS $LOCK -o jsonpath='{.spec.renewTime}')" != "$renew1" ] ||
	fail "$leader did not renew (renewTime still $renew1)"
[ "$(transitions)" = 0 ] || fail "leaseTransitions is $(transitions), not 0"
n=$(cat "$E2E_DIR"/daemons/cand-*.log | grep -c 'msg="started leading"')
[ "$n" = 1 ] || fail "$n candidates started leading, not exactly one"
pass "$leader leads and renews (renewTime $renew1 -> later), $standby waits; leaseTransitions 0"

step "SIGKILL of the leader: the standby takes over after the lease expires"
t0=$(now)
kill_daemon "$leader"
until_holder "$standby" 30
took=$(secs "$t0" "$(now)")
# The standby starts its clock when it sees the last renewal (at most one jittered retry after
# it), and then polls every jittered retry: between LEASE - RETRY and LEASE + 2 x 2.2 x RETRY.
min=$((LEASE - RETRY))
max=$(awk -v l=$LEASE -v r=$RETRY -v j=$JITTER 'BEGIN { print l + 2 * (1 + j) * r + 1 }')
le "$min" "$took" || fail "$standby took the Lease ${took}s after the kill: before it could expire"
le "$took" "$max" || fail "$standby took the Lease only ${took}s after the kill (bound ${max}s)"
[ "$(transitions)" = 1 ] || fail "leaseTransitions is $(transitions), not 1"
pass "$standby took over ${took}s after SIGKILL (lease ${LEASE}s, retry ${RETRY}s; bounds ${min}s..${max}s); leaseTransitions 1"

step "SIGTERM of the leader: the Lease is released and taken at the next retry"
candidate cand-c
wait_for "cand-c to observe $standby" 10 \
	grep -q "msg=\"observed leader\" identity=$standby" "$E2E_DIR/daemons/cand-c.log"
t0=$(now)
stop_daemon "$standby"
log_of "$standby" | grep -q 'msg="released leader lease"' || fail "$standby did not release the Lease"
until_holder cand-c 30
took=$(secs "$t0" "$(now)")
max=$(awk -v r=$RETRY -v j=$JITTER 'BEGIN { print (1 + j) * r + 1 }')
le "$took" "$max" || fail "cand-c took the released Lease only ${took}s after SIGTERM (bound ${max}s)"
[ "$(transitions)" = 2 ] || fail "leaseTransitions is $(transitions), not 2"
pass "cand-c took the released Lease ${took}s after SIGTERM (< lease ${LEASE}s); leaseTransitions 2"

step "LeaderElection Events on the Lease"
lease_events() {
	kube get events -n $NS --field-selector "involvedObject.kind=Lease,involvedObject.name=$LOCK,reason=LeaderElection" \
		-o jsonpath='{range .items[*]}{.source.component}|{.type}|{.message}{"\n"}{end}'
}
has_lease_events() {
	local out
	out=$(lease_events)
	for who in "$leader" "$standby" cand-c; do
		grep -qx "itest-leader|Normal|$who became leader" <<<"$out" || return 1
	done
}
wait_for "a 'became leader' Event for each leader" 30 has_lease_events
pass "Events: $(lease_events | cut -d'|' -f3 | paste -sd ',')"
stop_daemon cand-c
[ "$(holder)" = "" ] || fail "the Lease is still held by '$(holder)' after the last candidate stopped"
[ "$(kube get lease -n $NS $LOCK -o jsonpath='{.spec.leaseDurationSeconds}')" = 1 ] ||
	fail "a released Lease has leaseDurationSeconds 1"
pass "the last candidate released the Lease (holderIdentity \"\", leaseDurationSeconds 1)"

step "Events: 5 identical records are one Event with count 5"
kube create configmap ev-cm -n default >/dev/null
uid=$(kube get configmap ev-cm -n default -o jsonpath='{.metadata.uid}')
out=$("$ITEST/itest_events" --kubeconfig="$KUBECONFIG" --namespace=default --configmap=ev-cm \
	--count=5 --similar=12 2>&1) || fail "itest_events failed" "$out"
pass "itest_events: $(grep '^queued=' <<<"$out")"
events() { # REASON: "count|message|uid|component" per Event about ev-cm
	kube get events -n default --field-selector "involvedObject.name=ev-cm,reason=$1" \
		-o jsonpath='{range .items[*]}{.count}|{.message}|{.involvedObject.uid}|{.source.component}{"\n"}{end}'
}
got=$(events ItestRepeat)
[ "$got" = "5|the same thing happened again|$uid|itest-events" ] ||
	fail "expected one ItestRepeat Event with count 5 about configmap ev-cm ($uid), got:" "$got"
desc=$(kube describe configmap ev-cm -n default)
grep -qE 'Normal +ItestRepeat +[0-9smh]+ \(x5 over [0-9smh]+\) +itest-events +the same thing happened again' <<<"$desc" ||
	fail "kubectl describe configmap ev-cm does not show the event with x5:" "$desc"
pass "one Event, count 5; describe: $(grep ItestRepeat <<<"$desc" | tr -s ' ')"

step "Events: 12 similar records are 9 Events and one combined Event"
got=$(events ItestSimilar | sort)
want=$( (
	for i in 1 2 3 4 5 6 7 8 9; do echo "1|similar $i|$uid|itest-events"; done
	echo "3|(combined from similar events): similar 12|$uid|itest-events"
) | sort)
[ "$got" = "$want" ] || fail "similar events are not aggregated as client-go does; got:" "$got"
pass "similar 1..9 as they are, similar 10..12 combined: count 3, '(combined from similar events): similar 12'"
