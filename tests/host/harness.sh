#!/usr/bin/env bash
# Host test of the test harness itself: the verdict on a guest run
# (vm/verdict.sh), suite plans (tests/lib.sh), stale logs, objtool's
# judge, and the guest-side assertions that used to pass on nothing.
# Each case feeds a deliberate failure and checks that it fails.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
LOGS=$t/logs
BUILD=$t/build
. "$ROOT/tests/lib.sh"

# --- vm/verdict.sh on synthetic runs ------------------------------------
id=123-456
boot() {	# CONSOLE_TEXT DONE_LINE: write a run's two logs
	printf '%s\n' "[    0.000000] Linux version 6.1" "$1" >"$t/console"
	printf '%s\n' "PKS-VM-RUN id=$id" "PKS-VM-BOOTED uptime=3.1" "ok - x: y" "$2" >"$t/job"
}
verdict() {	# [ALLOW_TAINT]: the verdict's exit status
	local rc=0
	"$ROOT/vm/verdict.sh" "$t/job" "$t/console" 0 "$id" "${1:-262144}" 2>"$t/verdict.err" || rc=$?
	echo "$rc"
}
expect() {	# WANT DESCRIPTION
	local got
	got=$(verdict "${3:-262144}")
	if [ "$got" = "$1" ]; then
		tap_ok "verdict: $2 -> exit $1"
	else
		tap_not_ok "verdict: $2 -> exit $got, want $1"
		sed 's/^/#   /' "$t/verdict.err"
	fi
}
clean_done="PKS-VM-DONE rc=0 run=$id taint=262144 debug_locks=1"

boot "[    1.0] ok" "$clean_done"
expect 0 "a clean run passes (KUnit's TAINT_TEST allowed)"
boot "[    1.0] ok" "PKS-VM-DONE rc=3 run=$id taint=0 debug_locks=1"
expect 3 "the script's own status is returned"
boot "[    2.1] ------------[ cut here ]------------
[    2.1] WARNING: CPU: 1 PID: 77 at lib/pks/dev_access_test.c:740 run_warn+0x1a/0x30" \
	"PKS-VM-DONE rc=0 run=$id taint=262656 debug_locks=1"
expect 125 "a WARN in the kernel log fails the run"
boot "[    1.0] quiet console" "PKS-VM-DONE rc=0 run=$id taint=262656 debug_locks=1"
expect 125 "the WARN taint flag alone fails the run (message never reached the console)"
boot "[    3.0] ======================================================
[    3.0] WARNING: possible circular locking dependency detected" \
	"PKS-VM-DONE rc=0 run=$id taint=262144 debug_locks=0"
expect 125 "a lockdep report fails the run"
boot "[    1.0] ok" "PKS-VM-DONE rc=0 run=$id taint=262144 debug_locks=0"
expect 125 "lockdep turned off (debug_locks=0) alone fails the run"
boot "[   60.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" "$clean_done"
expect 125 "an RCU stall (detected stalls) fails the run"
boot "[   60.0] rcu: INFO: rcu_preempt self-detected stall on CPU" "$clean_done"
expect 125 "an RCU stall (self-detected) fails the run"
boot "[   60.0] watchdog: BUG: soft lockup - CPU#1 stuck for 22s!" "$clean_done"
expect 125 "a soft lockup fails the run"
boot "[   60.0] BUG: sleeping function called from invalid context at mm/memory.c:5600" "$clean_done"
expect 125 "a BUG: line fails the run"
boot "[    1.0] ok" "$clean_done"
expect 125 "a taint flag not allowed fails the run (TAINT_TEST with nothing allowed)" 0
boot "[    1.0] ok" "PKS-VM-DONE rc=0 run=$id taint=4096 debug_locks=none"
expect 0 "an allowed taint (out-of-tree module) passes when the host allows it" 4096
boot "[    1.0] ok" "PKS-VM-DONE rc=0 run=$id taint=262145 debug_locks=0"
expect 0 "lockdep off after an allowed proprietary-module taint (P) passes" 262145
boot "[    1.0] ok" "PKS-VM-DONE rc=0 run=$id taint=266240 debug_locks=0"
expect 125 "lockdep off with other allowed taints but no P fails" 266241
boot "[    1.0] ok" "PKS-VM-DONE rc=0 run=999-1 taint=262144 debug_locks=1"
sed -i "s/^PKS-VM-RUN id=.*/PKS-VM-RUN id=999-1/" "$t/job"
expect 125 "a log from another run (stale id) fails the run"
boot "[    1.0] ok" ""
expect 125 "no end sentinel fails the run"
rm -f "$t/job"
expect 125 "no job log fails the run"
boot "[    1.0] ok" "$clean_done"
rc=0
"$ROOT/vm/verdict.sh" "$t/job" "$t/console" 1 "$id" 262144 2>/dev/null || rc=$?
[ "$rc" = 124 ] && tap_ok "verdict: a timeout -> exit 124" || tap_not_ok "verdict: a timeout -> exit $rc, want 124"
# A hung guest's report names the kernel's first complaint and where each
# vCPU was (vm/cpu-state.sh's lines), not only the last console lines.
boot "$(printf '[    2.0] rcu: INFO: rcu_preempt self-detected stall on CPU\n%s' "$(seq -f '[    3.0] filler %g' 30)")" ""
echo "vm: vCPU 0: RIP ffffffff81029409 amd_e400_idle+0x39" >"$t/job.cpus"
rc=0
report=$("$ROOT/vm/verdict.sh" "$t/job" "$t/console" 1 "$id" 262144 2>&1) || rc=$?
if [ "$rc" = 124 ] && grep -q 'first kernel splat, console line 2' <<<"$report" &&
	grep -q 'self-detected stall' <<<"$report" && grep -q 'vCPU 0: RIP' <<<"$report"; then
	tap_ok "verdict: a timeout report shows the first splat and each vCPU's RIP"
else
	tap_not_ok "verdict: a timeout report shows the first splat and each vCPU's RIP (exit $rc)"
	sed 's/^/#   /' <<<"$report"
fi
rm -f "$t/job.cpus"

# --- plans ---------------------------------------------------------------
plan_case() {	# DESCRIPTION WANT(ok|not ok) PLAN_TEXT COMMANDS: run in a subshell;
	# the last line it prints must be WANT
	local desc=$1 want=$2 out
	printf '%s\n' "$3" >"$t/plan"
	out=$(PLAN_FILE=$t/plan bash -c ". '$ROOT/kernel/lib.sh'; LOGS='$t/logs'; . '$ROOT/tests/lib.sh'; plan_load; $4" 2>&1)
	if tail -n 1 <<<"$out" | grep -q "^$want [0-9]* - "; then
		tap_ok "plan: $desc"
	else
		tap_not_ok "plan: $desc"
		sed 's/^/#   /' <<<"$out"
	fi
}
plan_case "a suite that reports its plan passes" ok "s1 3" "plan_check s1 3; plan_finish"
plan_case "a short suite (2 of 3) fails" "not ok" "s1 3" "plan_check s1 2"
plan_case "a suite that reports nothing fails" "not ok" "s1 3" "plan_check s1 0"
plan_case "a suite with no plan fails" "not ok" "s1 3" "plan_check s2 5"
plan_case "a planned suite that never ran fails" "not ok" "s1 3
s2 4" "plan_check s1 3; plan_finish"

# A suite whose VM never starts (no kernel) must not count the log an
# earlier run left behind.
mkdir -p "$t/logs"
printf 'ok - old: passed yesterday\nok - old: again\n' >"$t/logs/guest-stale.log"
printf 'stale 2\n' >"$t/plan"
out=$(PLAN_FILE=$t/plan PKS_KERNEL=$t/no-kernel bash -c ". '$ROOT/kernel/lib.sh'; LOGS='$t/logs'; . '$ROOT/tests/lib.sh'; plan_load; guest_suite stale '' /bin/true" 2>&1)
if ! grep -q 'old: passed yesterday' <<<"$out" && grep -q '^not ok .*stale: reported 0 checks, plan is 2' <<<"$out" &&
	grep -q '^not ok .*stale: guest ran clean' <<<"$out"; then
	tap_ok "stale log: an earlier run's lines are never counted"
else
	tap_not_ok "stale log: an earlier run's lines are never counted"
	sed 's/^/#   /' <<<"$out"
fi

# --- objtool's judge -----------------------------------------------------
: >"$t/vmlinux.o"
objtool_case() {	# DESCRIPTION WANT_RC FAKE_OBJTOOL_BODY
	printf '#!/bin/sh\n%s\n' "$3" >"$t/objtool"
	chmod +x "$t/objtool"
	local rc=0
	OBJTOOL=$t/objtool VMLINUX_O=$t/vmlinux.o "$ROOT/tests/objtool.sh" >"$t/objtool.out" 2>&1 || rc=$?
	if { [ "$2" = 0 ] && [ "$rc" = 0 ]; } || { [ "$2" != 0 ] && [ "$rc" != 0 ]; }; then
		tap_ok "objtool check: $1"
	else
		tap_not_ok "objtool check: $1 (exit $rc)"
		sed 's/^/#   /' "$t/objtool.out"
	fi
}
objtool_case "silent and exit 0 passes" 0 'exit 0'
objtool_case "a warning with exit 0 fails" 1 'echo "vmlinux.o: warning: objtool: foo+0x1: call to bar() leaves .noinstr.text section" >&2; exit 0'
objtool_case "a crash fails" 1 'kill -SEGV $$'
objtool_case "a refusal (exit 1, no output) fails" 1 'exit 1'

# --- guest-side assertions, on the host with fake inputs -----------------
GUEST_BIN=$t/bin
mkdir -p "$GUEST_BIN"
DBG=$t/dbg
. "$ROOT/tests/guest/lib.sh"
DBG=$t/dbg HOOK=$t/dbg/pks_dev_access
mkdir -p "$DBG"
assert_fails() {	# DESCRIPTION COMMAND...: must fail
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then tap_not_ok "guest assertion: $d (passed)"; else tap_ok "guest assertion: $d"; fi
}
assert_passes() {
	local d=$1
	shift
	if "$@" >/dev/null 2>&1; then tap_ok "guest assertion: $d"; else tap_not_ok "guest assertion: $d (failed)"; fi
}
echo data >"$t/f"
good=$(sha256sum <"$t/f" | cut -d' ' -f1)
assert_passes "same_sha256: the right checksum passes" same_sha256 "$good" "$t/f"
assert_fails "same_sha256: two missing files do not compare equal" same_sha256 "" "$t/missing"
assert_fails "same_sha256: a missing file fails" same_sha256 "$good" "$t/missing"
assert_fails "same_sha256: other data fails" same_sha256 "$good" /dev/null

# pku_selftest hides the guest's huge pages with a bind mount: not here.
mountpoint() { return 0; }
umount() { :; }
printf '#!/bin/sh\nexit 0\n' >"$GUEST_BIN/protection_keys"
chmod +x "$GUEST_BIN/protection_keys"
assert_fails "pku_selftest: exit 0 with no test run fails" pku_selftest
printf '#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8 9 10 11; do echo "test $i PASSED (iteration 1)"; done\necho "done (all tests OK)"\n' \
	>"$GUEST_BIN/protection_keys"
assert_passes "pku_selftest: tests run and all OK passes" pku_selftest

cpus() {	# PKRS: one pks_cpu_pkrs line per CPU of this machine
	local i
	for ((i = 0; i < $(grep -c '^processor' /proc/cpuinfo); i++)); do
		echo "cpu$i: pkrs $1 cache 0x55555554"
	done >"$DBG/pks_cpu_pkrs"
}
cpus 0x55555554
: >"$HOOK"
hook() { echo "threads checked=120 open=0"; }
assert_passes "pkrs_all_default: default CPUs and no thread with a window passes" pkrs_all_default
hook() { echo "threads checked=120 open=1 77:pks-leak:depth=1:pkrs=0x55555550"; }
assert_fails "pkrs_all_default: a sleeping thread holding a window fails" pkrs_all_default
hook() { echo "threads checked=0 open=0"; }
assert_fails "pkrs_all_default: a walk that saw no thread fails" pkrs_all_default
hook() { echo "threads checked=120 open=0"; }
cpus 0x55555550
assert_fails "pkrs_all_default: a CPU with a key open fails" pkrs_all_default

echo "1..$TEST_N"
tap_summary
