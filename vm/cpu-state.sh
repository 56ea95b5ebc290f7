#!/usr/bin/env bash
# Where each vCPU of a hung guest is: asks QEMU's monitor (vm/run.sh's
# FIFO pair MON.in/MON.out) for the registers and names each RIP with
# System.map (the guest boots with nokaslr).
# Usage: vm/cpu-state.sh MON SYSTEM_MAP
set -euo pipefail
mon=$1 map=$2

exec 7<>"$mon.out"
# Drain the banner and prompts QEMU wrote since boot.
while read -r -t 0.2 _ <&7; do :; done
echo "info registers -a" >"$mon.in"
regs=$(while read -r -t 3 line <&7; do printf '%s\n' "${line//$'\r'/}"; done)

cpu=0
while read -r rip; do
	# System.map is sorted and its addresses, like QEMU's, are 16 hex
	# digits: string order is address order (mawk has no 64-bit ints).
	read -r addr name < <(awk -v a="$rip" '$2 ~ /^[tTwW]$/ { if ($1 "" <= a "") { b = $1; n = $3 } else exit }
		END { print b, n }' "$map" 2>/dev/null) || true
	sym="?"
	[ -n "${name:-}" ] && sym=$(printf '%s+%#x' "$name" $((16#${rip:8} - 16#${addr:8})))
	echo "vm: vCPU $cpu: RIP $rip $sym"
	cpu=$((cpu + 1))
done < <(grep -o 'RIP=[0-9a-f]*' <<<"$regs" | cut -d= -f2)
[ "$cpu" -gt 0 ] || echo "vm: the QEMU monitor gave no registers"
grep -E '^(RAX|RSI|R8 |CS |EFL|CR0)' <<<"$regs" | sed 's/^/vm:   /' || true
