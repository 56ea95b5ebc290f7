#!/usr/bin/env bash
# Judge a guest run from its serial log alone: QEMU's exit code says
# nothing (a panic with panic=-1 exits it with 0).
# Usage: vm/verdict.sh LOG TIMED_OUT(0|1)
# Exit: the guest script's status; 124 timeout; 125 kernel splat or no
# end sentinel.
set -euo pipefail
log=$1 timed_out=$2

if [ "$timed_out" = 1 ]; then
	echo "vm: timed out; last console lines:" >&2
	tail -n 20 "$log" >&2
	exit 124
fi

# Anything the kernel says only when something went wrong.
if grep -nE 'Kernel panic|Oops|WARNING:|BUG:|general protection fault|Call Trace:|UBSAN:|KASAN:|INFO: task .* blocked|watchdog: BUG|RCU stall' "$log" >&2; then
	echo "vm: kernel splat in $log" >&2
	exit 125
fi

rc=$(sed -n 's/^PKS-VM-DONE rc=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$rc" ]; then
	echo "vm: no end sentinel in $log; last console lines:" >&2
	tail -n 20 "$log" >&2
	exit 125
fi
exit "$rc"
