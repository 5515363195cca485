#!/usr/bin/env bash
# make fuzz: run each libFuzzer target for SECONDS on a scratch copy of its seed corpus (so the
# committed seeds stay small), stop at the first crash, and keep crash inputs in build/fuzz/.
set -euo pipefail
seconds=$1
shift
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	target=${name#fuzz_}
	work=build/fuzz/work/$target
	rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
	if [ -d "tests/fuzz/corpus/$target" ]; then
		cp -r "tests/fuzz/corpus/$target/." "$work/corpus/"
	fi
	echo "fuzz: $name for ${seconds}s"
	if "$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
		"$work/corpus" >"$work/log" 2>&1; then
		grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$work/log" | sed 's/^/  /'
	else
		echo "fuzz: $name FAILED; log: $work/log, inputs: $work/artifacts/" >&2
		tail -n 30 "$work/log" >&2
		status=1
	fi
done
exit $status
