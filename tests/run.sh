#!/usr/bin/env bash
# make test: host checks, then guest suites in QEMU, TAP-like output and a
# closing "N passed, N failed".  Exit status non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

start=$(date +%s)

# --- host: unit tests of our own scripts and tools -------------------
for t in "$ROOT"/tests/host/*.sh; do
	log=$LOGS/host-$(basename "$t" .sh).log
	rc=0
	"$t" >"$log" 2>&1 || rc=$?
	tap_import "$log"
	# A test that dies before reporting must not pass by saying nothing.
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$log"; then
		tap_not_ok "$(basename "$t") exited $rc without reporting (log: $log)"
	fi
done

# --- host: the series -------------------------------------------------
tap_run "kernel patches apply to $(basename "$TARBALL")" tree "$ROOT/kernel/tree.sh"
if "$ROOT/tests/checkpatch.sh" >"$LOGS/checkpatch.log" 2>&1 || true; then :; fi
while read -r p e w c; do
	if [ "$e" = errors=0 ]; then
		tap_ok "checkpatch --strict: $p ($e $w $c)"
	else
		tap_not_ok "checkpatch --strict: $p ($e $w $c)"
	fi
done < <(grep -E '^[0-9]{4}-.*errors=' "$LOGS/checkpatch.log")
grep -q 'errors=' "$LOGS/checkpatch.log" || tap_not_ok "checkpatch ran (log: $LOGS/checkpatch.log)"

kernel_ok=0
tap_run "kernel builds (bzImage with BTF)" kernel-build "$ROOT/kernel/build.sh" && kernel_ok=1
tap_run "guest selftests build" guest-bins "$ROOT/tests/build-guest-bins.sh" || kernel_ok=0
tap_run "BPF tools build (pksfault, pkstop; static, vmlinux.h from our kernel)" tools \
	bash -c "make -C '$ROOT/tools' && make -C '$ROOT/pkstop'" || kernel_ok=0

# --- guest suites -------------------------------------------------------
# The oops suite passes only if the kernel oopses with a PKS report.
oops_suite() {
	local log=$LOGS/guest-oops.log
	# The trace buffer is dumped on the oops: the pks_fault event's outcome.
	"$ROOT/vm/run.sh" --quiet --timeout 120 --log "$log" \
		--append "trace_event=pks:pks_fault ftrace_dump_on_oops" "$ROOT/tests/guest/oops.sh" \
		>/dev/null 2>&1 || true
	tap_import "$log"
	local want
	for want in '#PF: error_code\(0x0023\) - protection keys violation' \
		'pks: key [0-9]+ \(pks test file\), PKRS 0x55555554, thread PKRS 0x55555554, window depth 0' \
		'pks_fault: address=0x[0-9a-f]+ key=[0-9]+ owner=pks test file write .* mode=strict outcome=oops' \
		'PKRS: 55555554' 'Kernel panic'; do
		if grep -qE "$want" "$log"; then
			tap_ok "oops: stray write oopses with '$want'"
		else
			tap_not_ok "oops: stray write oopses with '$want' (log: $log)"
		fi
	done
}

if [ "$kernel_ok" = 1 ]; then
	guest="$ROOT/tests/guest"
	guest_suite core "--append pks-test-on-boot" "$guest/core.sh"
	guest_suite nopks "--no-pks" "$guest/nopks.sh"
	oops_suite
	# Each pmem run starts from a blank NVDIMM; "persist" restarts the VM
	# on the same backing file.
	img=$BUILD/vm/pmem-test.img
	rm -f "$img"
	guest_suite pmem "--pmem $img" "$guest/pmem.sh" full
	guest_suite pmem-persist "--pmem $img" "$guest/pmem.sh" persist
	rm -f "$img"
	guest_suite nopks-pmem "--no-pks --pmem $img" "$guest/pmem.sh" full
	rm -f "$img"
	guest_suite protoff-pmem "--append dev_access_protection=off --pmem $img" "$guest/pmem.sh" full
	rm -f "$img"
	guest_suite isolation "--pmem $img" "$guest/isolation.sh" full
	rm -f "$img"
	guest_suite isolation-relaxed-boot "--pmem $img --append memremap.pks_fault_mode=relaxed" \
		"$guest/isolation.sh" relaxed-boot
	rm -f "$img"
	guest_suite tracepoints "--pmem $img --append trace_event=pks:pks_key_alloc --append trace_clock=global" \
		"$guest/tracepoints.sh"
	rm -f "$img"
	guest_suite garbage "--pmem $img --append dev_access_protection=bogus --append memremap.pks_fault_mode=bogus" \
		"$guest/garbage.sh"
	rm -f "$img"
	guest_suite pkstop "--pmem $img" "$guest/pkstop.sh" full
	rm -f "$img"
	guest_suite nopks-pkstop "--no-pks --pmem $img" "$guest/pkstop.sh" nopks
	rm -f "$img"
	guest_suite pksfault "--pmem $img" "$guest/pksfault.sh"
	rm -f "$img"
	guest_suite nopks-pksfault "--no-pks --pmem $img" "$guest/pksfault.sh" nopks
	rm -f "$img"
else
	tap_not_ok "guest suites skipped: the kernel or guest binaries did not build"
fi

# --- the debug kernel: lockdep, DEBUG_ENTRY (objtool noinstr check), ------
# atomic-sleep and preempt checks; the PKS suites and a shorter stress
# (make debug-test runs the full 240 s one).
if [ "$kernel_ok" = 1 ] &&
	tap_run "debug kernel builds (kernel/config/debug/debug.config)" debug-kernel-build \
		env PKS_KOBJ="$BUILD/kobj-debug" PKS_EXTRA_CONFIGS="$ROOT/kernel/config/debug/debug.config" \
		"$ROOT/kernel/build.sh"; then
	PKS_GUEST_STRESS_SECONDS=${PKS_GUEST_STRESS_SECONDS:-120} \
		"$ROOT/tests/debug.sh" >"$LOGS/debug-test.tap" 2>&1
	grep -v ' passed, .* failed$' "$LOGS/debug-test.tap" >"$LOGS/debug-test.lines"
	tap_import "$LOGS/debug-test.lines"
fi

echo "# make test took $(($(date +%s) - start))s"
echo "$(date -u +%FT%TZ) seconds=$(($(date +%s) - start)) passed=$TEST_PASSED failed=$TEST_FAILED" >>"$LOGS/make-test-times"
tap_summary
