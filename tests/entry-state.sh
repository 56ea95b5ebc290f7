#!/usr/bin/env bash
# The state every interrupt and exception entry keeps, irqentry_state_t,
# read from the built vmlinux: PKS adds what the interrupted context had
# open, and the type must stay within 16 bytes so that irqentry_enter()
# and irqentry_nmi_enter() return it in two registers, not through memory
# (the generic type is 1 byte).  Prints the size and the instruction
# count of the entry functions and of three of their callers (static, from
# the disassembly: TCG has no PMU); exits 1 if the type is over 16 bytes.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

vmlinux=${1:-$KOBJ/vmlinux}
[ -f "$vmlinux" ] || die "no $vmlinux: build the kernel first"

size=$(pahole -C irqentry_state "$vmlinux" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p' | head -n1)
[ -n "$size" ] || die "pahole found no struct irqentry_state in $vmlinux"
pahole -C irqentry_state "$vmlinux"
for fn in irqentry_enter irqentry_exit irqentry_nmi_enter irqentry_nmi_exit \
	sysvec_apic_timer_interrupt exc_page_fault exc_nmi; do
	n=$(objdump -d --no-show-raw-insn --disassemble="$fn" "$vmlinux" | grep -c '^ *[0-9a-f]*:	')
	echo "$fn: $n instructions"
done
if [ "$size" -gt 16 ]; then
	echo "irqentry_state_t is $size bytes: more than 16, returned through memory"
	exit 1
fi
echo "irqentry_state_t is $size bytes: returned in registers"
