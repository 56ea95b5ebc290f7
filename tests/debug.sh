#!/usr/bin/env bash
# make debug-test: the debug kernel (build/kobj-debug: lockdep,
# DEBUG_ENTRY, atomic-sleep and preempt checks) through objtool's noinstr
# validation and the guest suites that exercise PKS, then make stress.
# Any lockdep report, BUG or WARN fails the run through the verdict.
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

export PKS_KOBJ=$BUILD/kobj-debug
export PKS_KERNEL=$PKS_KOBJ/arch/x86/boot/bzImage
start=$(date +%s)

tap_run "debug kernel: objtool noinstr/uaccess validation of vmlinux.o is clean" \
	debug-objtool "$ROOT/tests/objtool.sh"

guest="$ROOT/tests/guest"
img=$BUILD/vm/debug.img
rm -f "$img"
guest_suite debug-core "--append pks-test-on-boot" "$guest/core.sh"
guest_suite debug-pmem "--pmem $img" "$guest/pmem.sh" full
rm -f "$img"
guest_suite debug-isolation "--pmem $img" "$guest/isolation.sh" full
rm -f "$img"
guest_suite debug-tracepoints "--pmem $img --append trace_event=pks:pks_key_alloc --append trace_clock=global" \
	"$guest/tracepoints.sh"
rm -f "$img"
STRESS_NAME=debug-stress "$ROOT/tests/stress.sh" >"$LOGS/debug-stress.tap" 2>&1
grep -v ' passed, .* failed$' "$LOGS/debug-stress.tap" >"$LOGS/debug-stress.lines"
tap_import "$LOGS/debug-stress.lines"

echo "# debug-test took $(($(date +%s) - start))s"
tap_summary
