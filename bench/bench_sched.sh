#!/usr/bin/env bash
# One scheduling cycle in process (sched_session_run on snapshots built in code): placements
# per second and cycle time at 5,000 nodes, next to reference loops in the same run. See
# bench/README.md ("Scheduler cycle, in process").
#
#   bench/bench_sched.sh [--reps R] [--gprof] [-- bench_sched options...]
#
# Builds build/bench/sched/bench_sched with the project's flags (make's object rules, every
# controller/scheduler/*.c except the runtime, which needs the API server), runs it (R
# repetitions, default 5; medians) for workload A (10,000 one-pod PodGroups) and B (100 groups
# of 100, minMember 100), each with Volcano's default configuration and with binpack added,
# and checks the floors: >= 20,000 placements/s and a cycle under 500 ms with 10,000 pending
# pods. --gprof builds with -pg into build/bench/sched-pg, runs workload A once with the
# default configuration and prints gprof's flat profile head. To check that a change keeps
# every decision, compare `build/bench/sched/bench_sched --mix 100 --dump FILE` (and --dump of
# the timed workloads) between the two builds.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
REPS=5
GPROF=0
EXTRA=()
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2 && shift ;;
	--gprof) GPROF=1 ;;
	--) shift && EXTRA=("$@") && break ;;
	*) echo "usage: bench/bench_sched.sh [--reps R] [--gprof] [-- bench_sched options...]" >&2 && exit 2 ;;
	esac
	shift
done

SRCS=()
for s in controller/scheduler/*.c; do
	case $s in */sched_runtime*) ;; *) SRCS+=("$s") ;; esac
done
build() { # build DIR [OPT]: objects through the Makefile's rules, then one link
	local dir=$1 opt=${2:-} objs=() s
	for s in "${SRCS[@]}"; do objs+=("$dir/obj/${s%.c}.o"); done
	local mk=(make --no-print-directory -j"$(nproc)" BUILD="$dir" CTRL_SRC="${SRCS[*]}" HOOK_SRC= SIM_SRC= VCCTL_SRC=)
	[ -z "$opt" ] || mk+=(OPT="$opt")
	"${mk[@]}" "$dir/libcaldera.a" "${objs[@]}" "$dir/obj/bench/bench_sched.o" >/dev/null
	local PKGS
	read -r -a PKGS <<<"$(make -s --no-print-directory print-pkgs)" # the Makefile's list
	# shellcheck disable=SC2046 # pkg-config prints several words
	cc ${opt:+-pg} "$dir/obj/bench/bench_sched.o" "${objs[@]}" "$dir/libcaldera.a" \
		$(pkg-config --libs "${PKGS[@]}") -lpthread -lm -o "$dir/bench_sched"
}

if [ "$GPROF" = 1 ]; then
	command -v gprof >/dev/null || { echo "bench: gprof is not installed" >&2; exit 1; }
	DIR=build/bench/sched-pg
	build "$DIR" "-O2 -g -pg -fno-omit-frame-pointer -fno-inline-functions-called-once"
	(cd "$DIR" && ./bench_sched --workload a --conf default --reps 1 "${EXTRA[@]}")
	gprof -b -p "$DIR/bench_sched" "$DIR/gmon.out" | head -n 40
	exit 0
fi

DIR=build/bench/sched
build "$DIR"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load average $(cut -d' ' -f1-3 /proc/loadavg)"
OUT=$("$DIR/bench_sched" --reps "$REPS" "${EXTRA[@]}")
field() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p"; }
echo "runs: $REPS per row, medians (min-max of the cycle in brackets)"
printf '%-9s %-8s %7s %10s %17s %10s %11s %11s\n' workload conf binds "cycle ms" "(min-max)" "cpu ms" "placed/s" "build ms"
while read -r line; do
	case $line in
	workload=*)
		printf '%-9s %-8s %7s %10s %17s %10s %11s %11s\n' \
			"$(sed -n 's/^workload=\([^ ]*\).*/\1/p' <<<"$line")" "$(field conf <<<"$line")" \
			"$(field binds <<<"$line")" "$(field cycle_ms <<<"$line")" \
			"($(field cycle_min_ms <<<"$line")-$(field cycle_max_ms <<<"$line"))" \
			"$(field cpu_ms <<<"$line")" "$(field placements_per_s <<<"$line")" \
			"$(field snapshot_build_ms <<<"$line")"
		;;
	reference=*)
		printf 'reference %-10s %6s pods placed in %8s ms (%s placements/s)\n' \
			"$(sed -n 's/^reference=\([^ ]*\).*/\1/p' <<<"$line")" "$(field placed <<<"$line")" \
			"$(field ms <<<"$line")" "$(field placements_per_s <<<"$line")"
		;;
	esac
done <<<"$OUT"
echo
echo "raw:"
echo "$OUT"
echo
# The floors: every row with 10,000 pending pods.
status=0
while read -r line; do
	case $line in workload=*) ;; *) continue ;; esac
	pods=$(field pods <<<"$line")
	[ "$pods" = 10000 ] || continue
	w=$(sed -n 's/^workload=\([^ ]*\).*/\1/p' <<<"$line")
	c=$(field conf <<<"$line")
	pps=$(field placements_per_s <<<"$line")
	ms=$(field cycle_ms <<<"$line")
	binds=$(field binds <<<"$line")
	cpu=$(field cpu_ms <<<"$line")
	verdict=$(awk -v p="$pps" -v m="$ms" -v b="$binds" 'BEGIN { print (p >= 20000 && m < 500 && b == 10000) ? "ok" : "MISSED" }')
	[ "$verdict" = ok ] || status=1
	printf 'floor %s/%s: %s placements/s (>= 20000), cycle %s ms (< 500), %s of 10000 placed: %s\n' \
		"$w" "$c" "$pps" "$ms" "$binds" "$verdict"
	# On a loaded machine the cycle's CPU time says what an idle one would do; the full scan
	# (same run, same load) gives a ratio that travels between machines.
	fs=$(grep '^reference=full_scan' <<<"$OUT" | field ms | head -n 1)
	awk -v c="$cpu" -v m="$ms" -v fs="$fs" 'BEGIN {
		printf "      cpu time %s ms (%.0f placements/s if the CPU were not shared)", c, 10000 / (c / 1000)
		if (fs != "") printf "; cycle / full-scan reference = %.2f", m / fs
		printf "\n" }'
done <<<"$OUT"
exit $status
