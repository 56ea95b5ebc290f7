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
# host_check NAME COMMAND...: a check of the series with its plan.
host_check() {
	local name=$1 log=$LOGS/$1.log
	shift
	rm -f "$log"
	"$@" >"$log" 2>&1
	tap_import "$log"
	plan_check "$name" "$TAP_IMPORTED"
}
# must_catch DESCRIPTION REGEX OUTPUT: a check run on input broken on
# purpose (its output in the file OUTPUT) failed with a line like REGEX.
# (To a file: with pipefail, the check's own failing exit would fail a pipe.)
must_catch() {
	if grep -q "$2" "$3"; then tap_ok "$1"; else tap_not_ok "$1"; fi
}

host_check checkpatch "$ROOT/tests/checkpatch.sh"
# The list is read: a patch whose checks are not all listed fails.
mut=$(mktemp -d)
cp "$(series | grep -m1 tracepoints)" "$mut/"
grep -v '^x86-pks-Add-tracepoints.*Lines should not end' "$ROOT/tests/checkpatch-allowed" >"$mut/allowed"
PKS_PATCHES=$mut CHECKPATCH_ALLOWED=$mut/allowed "$ROOT/tests/checkpatch.sh" >"$mut/out" 2>&1
must_catch "checkpatch: a check missing from tests/checkpatch-allowed fails its patch" \
	'^not ok .*tracepoints' "$mut/out"
rm -rf "$mut"

host_check authorship "$ROOT/tests/authorship.sh"
# The check reads the patches: a derived patch exported as ours fails.
mut=$(mktemp -d)
cp "$ROOT"/kernel/patches/*.patch "$mut/"
sed -i '0,/^From: .*/s//From: PKS series <pks@localhost>/' "$mut"/0003-*.patch
PKS_PATCHES=$mut "$ROOT/tests/authorship.sh" >"$mut/out" 2>&1
must_catch "authorship: a seed-derived patch exported under the project's name fails" \
	'^not ok .*Enable Protection Keys' "$mut/out"
rm -rf "$mut"

host_check docs "$ROOT/tests/docs.sh"
# The check reads the documentation: a boot parameter without an entry fails.
mut=$(mktemp -d)
grep -v '^	memremap.pks_fault_mode=' "$KSRC/Documentation/admin-guide/kernel-parameters.txt" >"$mut/kparams"
PKS_DOCS_KPARAMS=$mut/kparams "$ROOT/tests/docs.sh" >"$mut/out" 2>&1
must_catch "docs: a boot parameter missing from kernel-parameters.txt fails" \
	'^not ok .*kernel-parameters.txt' "$mut/out"
rm -rf "$mut"

host_check tools-headers "$ROOT/tests/tools-headers.sh"
# The check reads the copies: one that lacks a line the series adds fails.
mut=$(mktemp -d)
mkdir -p "$mut/arch/x86/include/asm"
cp "$KSRC"/tools/arch/x86/include/asm/{cpufeatures,disabled-features,msr-index}.h "$mut/arch/x86/include/asm/"
sed -i '/MSR_IA32_PKRS/d' "$mut/arch/x86/include/asm/msr-index.h"
PKS_TOOLS_COPIES=$mut "$ROOT/tests/tools-headers.sh" >"$mut/out" 2>&1
must_catch "tools-headers: a tools copy without MSR_IA32_PKRS fails" '^not ok .*msr-index.h lacks' "$mut/out"
rm -rf "$mut"

# Bisectability takes hours here, so it is `make check-series`; its last
# result is committed, and reported here with whether it covers this
# version of the series.
bisect_report() {
	local id
	if [ ! -r "$BISECT_RESULT" ]; then
		echo "# bisect: no make check-series result recorded (it takes hours here: run it as a nightly job)"
		return
	fi
	id=$(series_id)
	if grep -qx "series: $id" "$BISECT_RESULT"; then
		echo "# bisect: make check-series on this series ($id):"
	else
		echo "# bisect: make check-series ran on another version of the series (now $id), run it again; it said:"
	fi
	grep -v '^series: ' "$BISECT_RESULT" | sed 's/^/#   /'
}
bisect_report

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
# QEMU runs with one TCG thread (vm/run.sh), so two guests run at once,
# in two lanes of about equal length; each suite has its own log and
# images, and nothing is reported until both lanes are done, in a fixed
# order (guest_run prints nothing, guest_report does).

# The oops suite passes only if the kernel oopses with a PKS report.
oops_run() {
	local log=$LOGS/guest-oops.log
	rm -f "$log" "$log.console"
	# The trace buffer is dumped on the oops: the pks_fault event's outcome.
	"$ROOT/vm/run.sh" --quiet --timeout 120 --log "$log" \
		--append "trace_event=pks:pks_fault ftrace_dump_on_oops" "$ROOT/tests/guest/oops.sh" \
		>/dev/null 2>&1 || true
}
oops_report() {
	local log=$LOGS/guest-oops.log con=$LOGS/guest-oops.log.console
	tap_import "$log"
	local n=$TAP_IMPORTED report key=-1 pkrs=none want
	# The key fault report says which key faulted and what PKRS the
	# write was checked against: the test key open for reading only.
	report=$(grep -oE 'pks: key [0-9]+ \(pks test file\), PKRS 0x[0-9a-f]+, thread PKRS 0x[0-9a-f]+, window depth 0' \
		"$con" 2>/dev/null | head -1) || true
	if [[ $report =~ key\ ([0-9]+).*PKRS\ 0x([0-9a-f]+),\ thread\ PKRS\ 0x([0-9a-f]+) ]] &&
		[ "${BASH_REMATCH[2]}" = "${BASH_REMATCH[3]}" ]; then
		key=${BASH_REMATCH[1]}
		pkrs=${BASH_REMATCH[2]}
	fi
	n=$((n + 1))
	want=none
	[ "$key" -ge 0 ] && want=$(printf '%08x' $(((0x55555554 & ~(3 << 2 * key)) | (2 << 2 * key))))
	if [ "$key" -ge 0 ] && [ "$pkrs" = "$want" ]; then
		tap_ok "oops: the key report names key $key and PKRS $pkrs (key open for reading only)"
	else
		tap_not_ok "oops: the key report names the key and its PKRS ('${report:-no report}', want PKRS $want; log: $con)"
	fi
	for want in '#PF: error_code\(0x0023\) - protection keys violation' \
		'pks_fault: address=0x[0-9a-f]+ key=[0-9]+ owner=pks test file write .* mode=strict outcome=oops' \
		"PKRS: $pkrs([^0-9a-f]|\$)" 'Kernel panic'; do
		n=$((n + 1))
		if grep -qE "$want" "$con" 2>/dev/null; then
			tap_ok "oops: stray write oopses with '$want'"
		else
			tap_not_ok "oops: stray write oopses with '$want' (log: $con)"
		fi
	done
	plan_check oops "$n"
}

# The harness itself, on a real guest: a run whose kernel WARNs, or
# whose lockdep reports, must fail, whatever its script says.
must_fail_run() {	# NAME: tests/guest/provoke.sh NAME
	local name=verdict-$1 log=$LOGS/guest-verdict-$1.log rc=0 img=$BUILD/vm/verdict-$1.img
	rm -f "$log" "$log.console" "$img"
	"$ROOT/vm/run.sh" --quiet --timeout 120 --pmem "$img" --log "$log" \
		"$ROOT/tests/guest/provoke.sh" "$1" 2>"$LOGS/guest-$name.verdict" || rc=$?
	echo "$rc" >"$LOGS/guest-$name.rc"
	rm -f "$img"
}
must_fail_report() {	# NAME PATTERN
	local name=verdict-$1 want=$2 log=$LOGS/guest-verdict-$1.log rc
	read -r rc <"$LOGS/guest-$name.rc" 2>/dev/null || rc=none
	tap_import "$log"
	plan_check "$name" "$TAP_IMPORTED"
	if [ "$rc" = 125 ] && grep -q "$want" "$log.console" &&
		grep -q 'vm: kernel splat' "$LOGS/guest-$name.verdict"; then
		tap_ok "$name: the harness fails a run whose kernel printed '$want' (vm/run.sh exit 125)"
	else
		tap_not_ok "$name: the harness fails a run whose kernel printed '$want' (exit $rc, log: $log.console)"
		sed 's/^/#   /' "$LOGS/guest-$name.verdict" | tail -n 10
	fi
}
declare -A must_fail_want=(
	[unbalanced]='dev_access: .* closed a window that was not open'
	[lockdep]='WARNING: possible circular locking dependency detected'
	# CONFIG_PKS_DEBUG's oracles, for what TCG cannot fault.
	[flush]='dev_access: .* flushes device memory at .* with no window open'
	[leakuser]='pks: .* returns to user space with PKRS 0x[0-9a-f]* (CPU 0x[0-9a-f]*): closed'
	[freedkey]='pks: .* freed key [0-9]* (pks test file) while pks-key-holder\[[0-9]*\] has it open'
)
must_fail_order=(unbalanced lockdep flush leakuser freedkey)

# pmem_suite NAME "VM OPTIONS" SCRIPT [ARGS...]: a suite on a blank
# NVDIMM of its own (the pmem-persist suite reuses pmem's on purpose).
pmem_suite() {
	local name=$1 opts=$2 img=$BUILD/vm/pmem-$1.img
	shift 2
	rm -f "$img"
	guest_run "$name" "--pmem $img $opts" "$@"
	rm -f "$img"
}

guest="$ROOT/tests/guest"
# Lane 1: boots, must-fail runs, the pmem suites, the kernel's own checks,
# and the tools without PKS.
lane1() {
	local name img=$BUILD/vm/pmem-pmem.img
	guest_run core "--append pks-test-on-boot" "$guest/core.sh"
	guest_run nopks "--no-pks" "$guest/nopks.sh"
	oops_run
	for name in "${must_fail_order[@]}"; do
		must_fail_run "$name"
	done
	# "persist" restarts the VM on the same backing file.  The host says
	# what each boot is (PKS and protection on, no PKS, protection off);
	# the suite checks it is so.
	rm -f "$img"
	guest_run pmem "--pmem $img" "$guest/pmem.sh" full pks
	guest_run pmem-persist "--pmem $img" "$guest/pmem.sh" persist pks
	rm -f "$img"
	pmem_suite nopks-pmem "--no-pks" "$guest/pmem.sh" full nopks
	pmem_suite protoff-pmem "--append dev_access_protection=off" "$guest/pmem.sh" full protoff
	pmem_suite realpaths "" "$guest/realpaths.sh"
	# A non-GPL module: taints P (proprietary) and O (out of tree), allowed.
	pmem_suite module "--allow-taint $(((1 << 0) | (1 << 12) | (1 << 18)))" "$guest/module.sh"
	# Suites that go back from strict to relaxed at run time need the
	# command line's permission (memremap.pks_fault_mode_weaken=1).
	pmem_suite isolation "--kernel-fault-mode $weaken" "$guest/isolation.sh" full
	pmem_suite tracepoints "--append trace_event=pks:pks_key_alloc --append trace_clock=global" \
		"$guest/tracepoints.sh"
	pmem_suite garbage "--kernel-fault-mode --append dev_access_protection=bogus --append memremap.pks_fault_mode=bogus" \
		"$guest/garbage.sh"
	# The tools on a CPU without PKS (lane 2 has them with PKS).
	pmem_suite nopks-pkstop "--no-pks" "$guest/pkstop.sh" nopks
	pmem_suite nopks-pksfault "--no-pks $weaken" "$guest/pksfault.sh" nopks
	# One vCPU, the clock counting instructions (vm/run.sh --icount): the
	# icount suite's proof of that, then the budgets (tests/budget).
	pmem_suite budget "--icount" "$guest/budget.sh"
}
weaken="--append memremap.pks_fault_mode_weaken=1"
# Lane 2: real workloads, the tools with PKS, and everything at once.
lane2() {
	local disk=$BUILD/vm/bounce.img
	# Real workloads on every namespace type under the pksfault gate,
	# relaxed mode then strict; a disk whose I/O swiotlb bounces.
	rm -f "$disk"
	pmem_suite workloads "--disk $disk --append swiotlb=force $weaken" "$guest/workloads.sh"
	rm -f "$disk"
	pmem_suite pkstop "" "$guest/pkstop.sh" full
	pmem_suite pksfault "$weaken" "$guest/pksfault.sh"
	# Everything at once (make stress runs it for 240 s).
	PKS_GUEST_STRESS_SECONDS=${PKS_GUEST_STRESS_SECONDS:-30} \
		pmem_suite stress "" "$guest/stress.sh"
}
lane_order1=(core nopks oops "${must_fail_order[@]/#/verdict-}" pmem pmem-persist nopks-pmem protoff-pmem
	realpaths module isolation tracepoints garbage nopks-pkstop nopks-pksfault budget)
lane_order2=(workloads pkstop pksfault stress)

# The cross builds (tests/cross-build.sh: no warnings outside x86 PKS) and
# sparse on the touched files (tests/sparse.sh) run niced beside the
# guests, on what CPU time they leave.  Reported after.
rm -f "$LOGS/sparse-check.log"
(
	nice -n 19 "$ROOT/tests/cross-build.sh" >"$LOGS/cross-build.log" 2>&1
	[ "$kernel_ok" = 1 ] && nice -n 19 "$ROOT/tests/sparse.sh" >"$LOGS/sparse-check.log" 2>&1
) &
cross_pid=$!
cross_start=$(date +%s)

stage "guest suites (two lanes at once)"
if [ "$kernel_ok" = 1 ]; then
	t0=$SECONDS
	( lane1; echo $((SECONDS - t0)) >"$LOGS/guest-lane1.secs" ) &
	lane1_pid=$!
	( lane2; echo $((SECONDS - t0)) >"$LOGS/guest-lane2.secs" ) &
	lane2_pid=$!
	wait "$lane1_pid" "$lane2_pid"
	for name in "${lane_order1[@]}" "${lane_order2[@]}"; do
		case $name in
		oops) oops_report ;;
		verdict-*) must_fail_report "${name#verdict-}" "${must_fail_want[${name#verdict-}]}" ;;
		*) guest_report "$name" ;;
		esac
	done
	echo "# guest lanes: lane 1 $(cat "$LOGS/guest-lane1.secs" 2>/dev/null || echo '?') s," \
		"lane 2 $(cat "$LOGS/guest-lane2.secs" 2>/dev/null || echo '?') s"
else
	tap_not_ok "guest suites skipped: the kernel or guest binaries did not build"
fi
stage "cross builds and sparse (the rest of the time they took beside the guest suites)"
wait "$cross_pid"
echo "# cross builds and sparse: $(($(date +%s) - cross_start)) s in the background"
tap_import "$LOGS/cross-build.log"
plan_check cross-build "$TAP_IMPORTED"
if [ "$kernel_ok" = 1 ]; then
	tap_import "$LOGS/sparse-check.log"
	plan_check sparse "$TAP_IMPORTED"
	# The filter is read: a warning on a line the series added fails,
	# one on a line it did not touch does not.
	mut=$(mktemp -d)
	line=$(git -C "$KSRC" diff -U0 base..HEAD -- mm/memremap.c | sed -n 's/^@@ .* +\([0-9]*\).*/\1/p' | head -n 1)
	echo "mm/memremap.c:$line:1: warning: made up" >"$mut/new.log"
	echo "mm/memremap.c:1:1: warning: made up" >"$mut/old.log"
	"$ROOT/tests/sparse.sh" "$mut/new.log" >"$mut/new.out" 2>&1
	"$ROOT/tests/sparse.sh" "$mut/old.log" >"$mut/old.out" 2>&1
	{ grep -q '^not ok' "$mut/new.out" && grep -q '^ok ' "$mut/old.out" && echo caught; } >"$mut/out"
	must_catch "sparse: a warning on a line the series added fails, one on Linux's own line does not" \
		'^caught$' "$mut/out"
	rm -rf "$mut"
fi
plan_finish

stage end
total=$(($(date +%s) - start))
for s in "${STAGES[@]}"; do
	echo "# time: ${s% *}: ${s##* } s"
done
echo "# time: make test: $total s (from scratch: $from_scratch)"
echo "$(date -u +%FT%TZ) seconds=$total passed=$TEST_PASSED failed=$TEST_FAILED from_scratch=$from_scratch" >>"$LOGS/make-test-times"
tap_summary
