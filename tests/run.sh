#!/usr/bin/env bash
# make test: host checks, then guest suites in QEMU, TAP-like output and a
# closing "N passed, N failed".  Exit status non-zero on any failure.
#
# One kernel serves every guest suite: the test kernel carries lockdep,
# DEBUG_ENTRY (objtool's noinstr validation) and the atomic-sleep, preempt
# and list checks (kernel/config/debug.config).  Every suite has a plan
# (tests/plan): a suite that reports another number of checks, or does not
# run, fails.  Each stage's time is reported at the end.
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

start=$(date +%s)
from_scratch=yes
[ -f "$KOBJ/vmlinux" ] && from_scratch=no
# Progress of long steps (the kernel build) reaches the terminal or CI log
# even though each step's output goes to its log.
exec 3>&1
export PKS_PROGRESS=/dev/fd/3

declare -a STAGES=()
stage_start=$start
stage() {	# NAME: the stage that starts now (the previous one ends)
	local now
	now=$(date +%s)
	[ "${#STAGES[@]}" = 0 ] || STAGES[-1]="${STAGES[-1]} $((now - stage_start))"
	stage_start=$now
	[ "$1" = end ] || STAGES+=("$1")
	[ "$1" = end ] || echo "# --- $1"
}

plan_load

# --- host: unit tests of our own scripts and tools -------------------
stage "host unit tests"
for t in "$ROOT"/tests/host/*.sh; do
	name=host-$(basename "$t" .sh)
	log=$LOGS/$name.log
	rm -f "$log"
	rc=0
	"$t" >"$log" 2>&1 || rc=$?
	tap_import "$log"
	plan_check "$name" "$TAP_IMPORTED"
	# A test that dies before reporting must not pass by saying nothing.
	if [ "$rc" != 0 ] && ! grep -q '^not ok' "$log"; then
		tap_not_ok "$(basename "$t") exited $rc without reporting (log: $log)"
	fi
done

# --- host: the series -------------------------------------------------
stage "series: apply, checkpatch"
tap_run "kernel patches apply to $(basename "$TARBALL")" tree "$ROOT/kernel/tree.sh"
rm -f "$LOGS/checkpatch.log"
"$ROOT/tests/checkpatch.sh" >"$LOGS/checkpatch.log" 2>&1
tap_import "$LOGS/checkpatch.log"
plan_check checkpatch "$TAP_IMPORTED"
# The list is read: a patch whose checks are not all listed fails.
mut=$(mktemp -d)
cp "$(series | grep -m1 tracepoints)" "$mut/"
grep -v '^x86-pks-Add-tracepoints.*Lines should not end' "$ROOT/tests/checkpatch-allowed" >"$mut/allowed"
PKS_PATCHES=$mut CHECKPATCH_ALLOWED=$mut/allowed "$ROOT/tests/checkpatch.sh" >"$mut/out" 2>&1 || true
if grep -q '^not ok .*tracepoints' "$mut/out"; then
	tap_ok "checkpatch: a check missing from tests/checkpatch-allowed fails its patch"
else
	tap_not_ok "checkpatch: a check missing from tests/checkpatch-allowed fails its patch"
fi
rm -rf "$mut"
rm -f "$LOGS/authorship.log"
"$ROOT/tests/authorship.sh" >"$LOGS/authorship.log" 2>&1
tap_import "$LOGS/authorship.log"
plan_check authorship "$TAP_IMPORTED"
# The check reads the patches: a derived patch exported as ours fails.
mut=$(mktemp -d)
cp "$ROOT"/kernel/patches/*.patch "$mut/"
sed -i '0,/^From: .*/s//From: PKS series <pks@localhost>/' "$mut"/0003-*.patch
# (To a file: with pipefail, the check's own failing exit would fail a pipe.)
PKS_PATCHES=$mut "$ROOT/tests/authorship.sh" >"$mut/out" 2>&1 || true
if grep -q "^not ok .*Enable Protection Keys" "$mut/out"; then
	tap_ok "authorship: a seed-derived patch exported under the project's name fails"
else
	tap_not_ok "authorship: a seed-derived patch exported under the project's name fails"
fi
rm -rf "$mut"
rm -f "$LOGS/docs.log"
"$ROOT/tests/docs.sh" >"$LOGS/docs.log" 2>&1
tap_import "$LOGS/docs.log"
plan_check docs "$TAP_IMPORTED"
# The check reads the documentation: a boot parameter without an entry fails.
mut=$(mktemp -d)
grep -v '^	memremap.pks_fault_mode=' "$KSRC/Documentation/admin-guide/kernel-parameters.txt" >"$mut/kparams"
PKS_DOCS_KPARAMS=$mut/kparams "$ROOT/tests/docs.sh" >"$mut/out" 2>&1 || true
if grep -q '^not ok .*kernel-parameters.txt' "$mut/out"; then
	tap_ok "docs: a boot parameter missing from kernel-parameters.txt fails"
else
	tap_not_ok "docs: a boot parameter missing from kernel-parameters.txt fails"
fi
rm -rf "$mut"

stage "kernel build"
kernel_ok=0
tap_run "kernel builds (bzImage with BTF, debug checks on)" kernel-build "$ROOT/kernel/build.sh" && kernel_ok=1
stage "selftests and tools build"
tap_run "guest selftests build" guest-bins "$ROOT/tests/build-guest-bins.sh" || kernel_ok=0
tap_run "BPF tools build (pksfault, pkstop; static, vmlinux.h from our kernel)" tools \
	bash -c "make -C '$ROOT/tools' && make -C '$ROOT/pkstop'" || kernel_ok=0
tap_run "a non-GPL out-of-tree module that uses kmap*() builds against the series (modpost)" \
	module "$ROOT/tests/module/build.sh" || true	# the module suite then fails alone
[ "$kernel_ok" = 1 ] &&
	tap_run "objtool noinstr/uaccess validation of vmlinux.o is clean" objtool "$ROOT/tests/objtool.sh"
[ "$kernel_ok" = 1 ] &&
	tap_run "irqentry_state_t is at most 16 bytes (returned in registers; sizes and entry instruction counts in the log)" \
		entry-state "$ROOT/tests/entry-state.sh"

# --- guest suites -------------------------------------------------------
# The oops suite passes only if the kernel oopses with a PKS report.
oops_suite() {
	local log=$LOGS/guest-oops.log
	rm -f "$log" "$log.console"
	# The trace buffer is dumped on the oops: the pks_fault event's outcome.
	"$ROOT/vm/run.sh" --quiet --timeout 120 --log "$log" \
		--append "trace_event=pks:pks_fault ftrace_dump_on_oops" "$ROOT/tests/guest/oops.sh" \
		>/dev/null 2>&1 || true
	tap_import "$log"
	local want n=$TAP_IMPORTED
	for want in '#PF: error_code\(0x0023\) - protection keys violation' \
		'pks: key [0-9]+ \(pks test file\), PKRS 0x55555554, thread PKRS 0x55555554, window depth 0' \
		'pks_fault: address=0x[0-9a-f]+ key=[0-9]+ owner=pks test file write .* mode=strict outcome=oops' \
		'PKRS: 55555554' 'Kernel panic'; do
		n=$((n + 1))
		if grep -qE "$want" "$log.console" 2>/dev/null; then
			tap_ok "oops: stray write oopses with '$want'"
		else
			tap_not_ok "oops: stray write oopses with '$want' (log: $log.console)"
		fi
	done
	plan_check oops "$n"
}

# The harness itself, on a real guest: a run whose kernel WARNs, or
# whose lockdep reports, must fail, whatever its script says.
must_fail_suite() {	# NAME PATTERN: tests/guest/provoke.sh NAME
	local name=verdict-$1 want=$2 log=$LOGS/guest-verdict-$1.log rc=0
	rm -f "$log" "$log.console"
	"$ROOT/vm/run.sh" --quiet --timeout 120 --pmem "$BUILD/vm/verdict.img" --log "$log" \
		"$ROOT/tests/guest/provoke.sh" "$1" 2>"$LOGS/guest-$name.verdict" || rc=$?
	tap_import "$log"
	plan_check "$name" "$TAP_IMPORTED"
	if [ "$rc" = 125 ] && grep -q "$want" "$log.console" &&
		grep -q 'vm: kernel splat' "$LOGS/guest-$name.verdict"; then
		tap_ok "$name: the harness fails a run whose kernel printed '$want' (vm/run.sh exit 125)"
	else
		tap_not_ok "$name: the harness fails a run whose kernel printed '$want' (exit $rc, log: $log.console)"
		sed 's/^/#   /' "$LOGS/guest-$name.verdict" | tail -n 10
	fi
	rm -f "$BUILD/vm/verdict.img"
}

# The cross builds (tests/cross-build.sh: no warnings outside x86 PKS) run
# on the host while the guest suites run: QEMU runs with one TCG thread
# (vm/run.sh), so the second CPU is free for them.  Reported after.
nice -n 19 "$ROOT/tests/cross-build.sh" >"$LOGS/cross-build.log" 2>&1 &
cross_pid=$!
cross_start=$(date +%s)

stage "guest suites"
if [ "$kernel_ok" = 1 ]; then
	guest="$ROOT/tests/guest"
	guest_suite core "--append pks-test-on-boot" "$guest/core.sh"
	guest_suite nopks "--no-pks" "$guest/nopks.sh"
	oops_suite
	must_fail_suite unbalanced 'dev_access: .* closed a window that was not open'
	must_fail_suite lockdep 'WARNING: possible circular locking dependency detected'
	# CONFIG_PKS_DEBUG's oracles, for what TCG cannot fault.
	must_fail_suite flush 'dev_access: .* flushes device memory at .* with no window open'
	must_fail_suite leakuser 'returns to user space with window depth 1'
	must_fail_suite freedkey 'pks: .* freed key [0-9]* (pks test file) while pks-key-holder\[[0-9]*\] has it open'
	# Each pmem run starts from a blank NVDIMM; "persist" restarts the VM
	# on the same backing file.  The host says what each boot is (PKS and
	# protection on, no PKS, protection off); the suite checks it is so.
	img=$BUILD/vm/pmem-test.img
	rm -f "$img"
	guest_suite pmem "--pmem $img" "$guest/pmem.sh" full pks
	guest_suite pmem-persist "--pmem $img" "$guest/pmem.sh" persist pks
	rm -f "$img"
	guest_suite nopks-pmem "--no-pks --pmem $img" "$guest/pmem.sh" full nopks
	rm -f "$img"
	guest_suite protoff-pmem "--append dev_access_protection=off --pmem $img" "$guest/pmem.sh" full protoff
	rm -f "$img"
	guest_suite realpaths "--pmem $img" "$guest/realpaths.sh"
	rm -f "$img"
	# A non-GPL module: taints P (proprietary) and O (out of tree), allowed.
	guest_suite module "--pmem $img --allow-taint $(((1 << 0) | (1 << 12) | (1 << 18)))" \
		"$guest/module.sh"
	rm -f "$img"
	# Real workloads on every namespace type under the pksfault gate,
	# relaxed mode then strict; a disk whose I/O swiotlb bounces.
	rm -f "$BUILD/vm/bounce.img"
	guest_suite workloads "--pmem $img --disk $BUILD/vm/bounce.img --append swiotlb=force" "$guest/workloads.sh"
	rm -f "$img" "$BUILD/vm/bounce.img"
	guest_suite isolation "--pmem $img --kernel-fault-mode" "$guest/isolation.sh" full
	rm -f "$img"
	guest_suite tracepoints "--pmem $img --append trace_event=pks:pks_key_alloc --append trace_clock=global" \
		"$guest/tracepoints.sh"
	rm -f "$img"
	guest_suite garbage "--pmem $img --kernel-fault-mode --append dev_access_protection=bogus --append memremap.pks_fault_mode=bogus" \
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
	# Everything at once (make stress runs it for 240 s).
	img=$BUILD/vm/stress.img
	rm -f "$img"
	PKS_GUEST_STRESS_SECONDS=${PKS_GUEST_STRESS_SECONDS:-30} \
		guest_suite stress "--pmem $img" "$guest/stress.sh"
	rm -f "$img"
else
	tap_not_ok "guest suites skipped: the kernel or guest binaries did not build"
fi
stage "cross builds (the rest of the time they took beside the guest suites)"
wait "$cross_pid"
echo "# cross builds: $(($(date +%s) - cross_start)) s in the background"
tap_import "$LOGS/cross-build.log"
plan_check cross-build "$TAP_IMPORTED"
plan_finish

stage end
total=$(($(date +%s) - start))
for s in "${STAGES[@]}"; do
	echo "# time: ${s% *}: ${s##* } s"
done
echo "# time: make test: $total s (from scratch: $from_scratch)"
echo "$(date -u +%FT%TZ) seconds=$total passed=$TEST_PASSED failed=$TEST_FAILED from_scratch=$from_scratch" >>"$LOGS/make-test-times"
tap_summary
