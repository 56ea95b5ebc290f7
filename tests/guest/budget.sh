#!/bin/bash
# make test's instruction budget guard, in an icount boot (vm/run.sh
# --icount): the window pair, the kmap_local pair, a 4 KiB pmem write bare
# and with pkstop attached, each against its budget in tests/budget.  A
# measure more than 5% over its budget fails.  The icount suite's checks
# run first: these numbers are instruction counts only if they pass.
#   budget.sh [BUDGET_FILE]
set -uo pipefail
SUITE=budget
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/icount-lib.sh"	# write_insns, pair_insns, pkstop_*
BUDGET=${1:-$(cd "$(dirname "$0")/.." && pwd)/budget}
TOLERANCE=1.05

SUITE=icount "$(dirname "$0")/icount.sh"
calibrated=$?
echo "# budget: instructions (retired, each REP iteration counted, WRMSR one; not cycles)"

# against NAME MEASURED [WHY-NOT]: one line: measured, budget, ratio.
against() {
	local name=$1 got=$2 why=${3:-} budget ratio
	budget=$(awk -v n="$name" '$1 == n { print $2 }' "$BUDGET")
	if [ -z "$budget" ]; then
		fail "$name: no budget in $BUDGET"
		return
	fi
	if [ -n "$why" ] || [ -z "$got" ]; then
		fail "$name: not measured (${why:-no figure}); budget $budget"
		return
	fi
	ratio=$(awk -v a="$got" -v b="$budget" 'BEGIN { printf "%.3f", a / b }')
	if awk -v r="$ratio" -v t="$TOLERANCE" 'BEGIN { exit !(r <= t) }'; then
		pass "$name: $got instructions, budget $budget, ratio $ratio (limit $TOLERANCE)"
	else
		fail "$name: $got instructions, budget $budget, ratio $ratio (over the limit $TOLERANCE)"
	fi
}

# fsdax: a protected pgmap exists, so the pairs take their protected
# paths and every write to /dev/pmem0 opens a window.
ns_mode fsdax mem || fail "namespace0.0 in fsdax mode"
against window_pair "$(pair_insns windowbench 20000)"
against kmap_pair "$(pair_insns kmapbench 2000000)"
against pmem_write_4k "$(write_insns)"

# With pkstop attached; its samples must have counted the writes' windows
# (4500 with the warm-up), or it measured a pkstop that was not there.
why=""
if pkstop_start /tmp/budget-pkstop.json; then
	got=$(write_insns)
	opens=$(pkstop_stop)
	[ "${opens:-0}" -ge 4500 ] || why="pkstop counted ${opens:-no} window opens, want at least 4500"
else
	why="pkstop did not start: $(head -c 200 /tmp/budget-pkstop.json.err)"
fi
against pmem_write_4k_pkstop "${got:-}" "$why"

[ "$calibrated" = 0 ] || failures=$((failures + 1))
finish
