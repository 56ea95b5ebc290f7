#!/bin/bash
# The promise of vm/run.sh --icount: under -icount shift=0 the guest clock
# advances one nanosecond per retired instruction, so a ktime delta is an
# instruction count (each REP iteration counted, a WRMSR one; not cycles).
# A loop of known length (the hooks' icountloop: inline asm, interrupts
# off) must measure its own length within 1%, and the same twice.
set -uo pipefail
SUITE=${SUITE:-icount}
. "$(dirname "$0")/lib.sh"

# 10 million instructions: the timing's own few hundred are 0.01% of it.
ITERATIONS=2500000

loop_ns() {	# the ns the hook measured for ITERATIONS iterations, or nothing
	hook icountloop "$ITERATIONS" |
		sed -n 's/^icountloop iterations=[0-9]* insns_per_iteration=\([0-9]*\) ns=\([0-9]*\)$/\1 \2/p'
}

read -r per first < <(loop_ns)
read -r _ second < <(loop_ns)
want=$((ITERATIONS * ${per:-0}))
echo "# icount: counts are retired instructions (each REP iteration counts, WRMSR one), not cycles"

# within_1pct GOT WANT: |GOT - WANT| <= WANT / 100
within_1pct() {
	[ -n "$1" ] && [ "$2" -gt 0 ] && [ $((($1 - $2) * 100)) -le "$2" ] &&
		[ $((($2 - $1) * 100)) -le "$2" ]
}
ratio=$(awk -v a="${first:-0}" -v b="$want" 'BEGIN { if (b > 0) printf "%.4f", a / b; else print "n/a" }')
if within_1pct "${first:-}" "$want"; then
	pass "a loop of $want instructions measures $first ns = instructions (ratio $ratio, within 1%)"
else
	fail "a loop of $want instructions measures ${first:-nothing} ns (ratio $ratio, not within 1%: is this an icount boot?)"
fi
# ktime converts the TSC's count with the kernel's fixed-point factor for
# the frequency it calibrated (999.999 MHz for QEMU's exact 1 GHz), each
# reading rounded: equal instruction counts may read 1 ns apart.
if [ -n "${first:-}" ] && [ -n "${second:-}" ] &&
	[ $((first - second)) -le 1 ] && [ $((second - first)) -le 1 ]; then
	pass "the same loop twice measures the same count ($first, $second; 1 ns is ktime's rounding)"
else
	fail "the same loop twice measures the same count (${first:-nothing}, ${second:-nothing})"
fi
finish
