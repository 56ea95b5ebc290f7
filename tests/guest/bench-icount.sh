#!/bin/bash
# Guest half of make bench's instruction rows for the tools, in an icount
# boot (vm/run.sh --icount: one ns of guest clock per retired
# instruction, each REP iteration counted, WRMSR one; not cycles).  For
# each of bare, the empty-program floor (tests/floor), pkstop, pksfault
# --leak 1000 --hist and the bpftrace one-liner counting the four pks
# window/fault events per thread: instructions per 4 KiB O_DIRECT write to
# fsdax pmem, and per window pair of the hooks' windowbench, which emits
# two events (one enable, one disable) and nothing else; pksfault also in
# each of its other modes, and the floor's programs doing one part each of
# the tools' per-event work (per pair only).  Each tool's own
# count is printed as evidence that it was attached while measured.
# Prints "BENCH name=value" lines (tests/bench.sh parses them).
set -uo pipefail
. "$(dirname "$0")/lib.sh"	# DBG, HOOKS, ns_mode
. "$(dirname "$0")/bench-lib.sh"	# protection_evidence
. "$(dirname "$0")/icount-lib.sh"	# write_insns, pair_insns, wait_for, pkstop_*
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSFAULT=${PKSFAULT:-$ROOT/build/tools/pksfault}
FLOOR=${FLOOR:-$ROOT/build/floor/floor}
OUT=$(mktemp -d)
PAIRS=20000

measure() {	# VARIANT: its two figures
	echo "BENCH icount_write_$1=$(write_insns)"
	echo "BENCH icount_pair_$1=$(pair_insns windowbench "$PAIRS")"
}

# floor [PART]: the empty programs (both figures), or the programs doing
# one PART of what the tools do at each event (the pair only).
floor() {
	local pid
	"$FLOOR" "${1:-empty}" >"$OUT/floor.out" 2>&1 &
	pid=$!
	if ! wait_for "$OUT/floor.out" '^attached' "$pid"; then
		echo "BENCH icount_floor${1:+_$1}_error=$(head -c 200 "$OUT/floor.out" | tr '\n' ' ')"
	elif [ -z "${1:-}" ]; then
		measure floor
	else
		echo "BENCH icount_pair_floor_$1=$(pair_insns windowbench "$PAIRS")"
	fi
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

pkstop() {
	if pkstop_start "$OUT/pkstop.json"; then
		measure pkstop
		echo "BENCH icount_pkstop_opens=$(pkstop_stop)"
	else
		echo "BENCH icount_pkstop_error=$(head -c 200 "$OUT/pkstop.json.err" | tr '\n' ' ')"
	fi
}

# pksfault VARIANT [OPTIONS...]: pksfault in one mode (faults only with
# no options), and the windows its summary counted, as evidence.
pksfault() {
	local name=$1 pid
	shift
	"$PKSFAULT" "$@" --json -d 100000 >"$OUT/pksfault.json" 2>"$OUT/pksfault.err" &
	pid=$!
	if wait_for "$OUT/pksfault.err" 'pksfault: tracing' "$pid"; then
		measure "$name"
	else
		echo "BENCH icount_${name}_error=$(head -c 200 "$OUT/pksfault.err" | tr '\n' ' ')"
	fi
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "BENCH icount_${name}_windows_closed=$(python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
print(s["windows_closed"], "lost", s["lost_events"])' "$OUT/pksfault.json" 2>/dev/null)"
}

# The one-liner of bench-pkstop.sh: the same per-thread counts as pkstop.
bpftrace_one_liner() {
	local pid
	bpftrace -e 'tracepoint:pks:dev_access_enable, tracepoint:pks:dev_access_disable,
tracepoint:pks:pks_update_protection, tracepoint:pks:pks_fault { @[tid, probe] = count(); }
interval:s:1 { print(@); clear(@); }' >"$OUT/bt.out" 2>"$OUT/bt.err" &
	pid=$!
	if wait_for "$OUT/bt.out" '^Attaching' "$pid"; then
		measure bpftrace
	else
		echo "BENCH icount_bpftrace_error=$(head -c 200 "$OUT/bt.err" | tr '\n' ' ')"
	fi
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "BENCH icount_bpftrace_events=$(awk -F': ' '/^@\[/ { n += $2 } END { print n + 0 }' "$OUT/bt.out")"
}

protection_evidence	# first: the boot's messages are all still in dmesg
ns_mode fsdax mem || { echo "BENCH error=ns_mode"; exit 1; }
measure bare
floor
for part in ktime pid_tgid preempt_count percpu_lookup; do
	floor "$part"
done
pkstop
pksfault pksfault --leak 1000 --hist
pksfault pksfault_faults
pksfault pksfault_leak --leak 1000
pksfault pksfault_hist --hist
bpftrace_one_liner
# Bare again: the figures the tools were compared with still hold.
echo "BENCH icount_write_bare_after=$(write_insns)"
echo "BENCH icount_pair_bare_after=$(pair_insns windowbench "$PAIRS")"
