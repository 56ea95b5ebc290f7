#!/usr/bin/env bash
# Judge a guest run from what it left: QEMU's exit code says nothing (a
# panic with panic=-1 exits it with 0).
# Usage: vm/verdict.sh JOB_LOG CONSOLE_LOG TIMED_OUT(0|1) RUN_ID [ALLOW_TAINT]
#   JOB_LOG      the guest script's output, with guest-init's sentinels
#   CONSOLE_LOG  the kernel's console, every message (ignore_loglevel)
#   RUN_ID       the id vm/run.sh gave this boot; another id is a stale log
#   ALLOW_TAINT  taint flags the run may leave (default: none); with P (bit 0)
#                allowed and left, lockdep off is expected, not a failure
# Exit: the guest script's status when the kernel stayed clean; 124 on a
# timeout; 125 when the kernel warned, oopsed, stalled, turned lockdep
# off or was left tainted, or this run's end sentinel is missing.  Every
# reason found is printed on stderr, one "vm: " line each.
set -euo pipefail
log=$1 console=$2 timed_out=$3 run_id=$4 allow_taint=${5:-0}

# What the kernel prints only when something went wrong, in its own words.
splat='Kernel panic|Oops|WARNING:|------------\[ cut here \]|BUG:|general protection fault|Call Trace:'
splat+='|UBSAN:|KASAN:|INFO: task .* blocked for more than|watchdog: BUG|soft lockup|hard LOCKUP'
splat+='|rcu: INFO: .* detected stalls|self-detected stall|rcu_.*kthread starved|RCU stall'
splat+='|possible circular locking dependency|possible recursive locking|inconsistent lock state'
splat+='|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|list_(add|del) corruption|INFO: lockdep is turned off'

bad=0
reason() {
	echo "vm: $*" >&2
	bad=1
}

if [ "$timed_out" = 1 ]; then
	# What a reader of a CI log needs first: where the kernel first
	# complained, then where the job and the kernel stopped.
	echo "vm: timed out" >&2
	first=$(grep -nE -m1 "$splat" "$console" 2>/dev/null | cut -d: -f1 || true)
	if [ -n "$first" ]; then
		echo "vm: first kernel splat, console line $first:" >&2
		sed -n "$((first > 3 ? first - 3 : 1)),$((first + 12))p" "$console" >&2
	fi
	echo "vm: last job lines:" >&2
	tail -n 4 "$log" >&2 2>/dev/null || true
	echo "vm: last console lines:" >&2
	tail -n 12 "$console" >&2
	cat "$log.cpus" >&2 2>/dev/null || true
	exit 124
fi

# Pinned to this run: its id must be the one guest-init printed.
[ -r "$log" ] || reason "no job log $log"
[ -r "$console" ] || reason "no console log $console"
ids=$(sed -n 's/\r$//; s/^PKS-VM-RUN id=//p' "$log" 2>/dev/null | sort -u || true)
[ "$ids" = "$run_id" ] || reason "job log is not this run's (run id '$run_id', log says '${ids//$'\n'/ }')"

if [ -r "$console" ] && grep -nE "$splat" "$console" | head -n 20 | sed 's/^/vm: console:/' >&2; then
	bad=1
	echo "vm: kernel splat in $console" >&2
fi

done_line=$(sed -n 's/\r$//; /^PKS-VM-DONE /p' "$log" 2>/dev/null | tail -n 1 || true)
rc=$(sed -n 's/^PKS-VM-DONE rc=\([0-9]*\) .*/\1/p' <<<"$done_line")
if [ -z "$rc" ]; then
	reason "no end sentinel in $log; last console lines:"
	tail -n 20 "$console" >&2 || true
	exit 125
fi
[[ "$done_line" == *" run=$run_id "* ]] || reason "end sentinel is not this run's: $done_line"

taint=$(sed -n 's/.* taint=\([0-9]*\).*/\1/p' <<<"$done_line")
if [ -z "$taint" ]; then
	reason "end sentinel without taint flags: $done_line"
elif ((taint & ~allow_taint)); then
	flags=""
	for bit in $(seq 0 18); do
		((taint & ~allow_taint & (1 << bit))) && flags+=" $bit"
	done
	reason "kernel tainted: $taint (allowed $allow_taint; unexpected bits:$flags; 9 = WARN, 7 = oops, 14 = soft lockup)"
fi
# A proprietary module (taint P, bit 0) makes the kernel turn lockdep off
# on purpose (LOCKDEP_NOW_UNRELIABLE); only a run allowed that taint, and
# left with it, may end so.  A lockdep report is still caught above.
if [[ "$done_line" == *" debug_locks=0"* ]] && ! ((taint & allow_taint & 1)); then
	reason "lockdep turned itself off (it does after a report)"
fi

[ "$bad" = 0 ] || exit 125
exit "$rc"
