#!/bin/bash
# PKS core, on a CPU with PKS, booted with pks-test-on-boot.
set -uo pipefail
SUITE=core
. "$(dirname "$0")/lib.sh"

check "CPU reports pks in /proc/cpuinfo" grep -qw pks /proc/cpuinfo
check "boot-time access tests pass on every free key" \
	grep -q 'pks_test: all keys: PASS' <(dmesg)
check "boot-time test result reported" grep -q 'pks_test: boot test: PASS' <(dmesg)
echo "# $(dmesg | grep -m1 'pks_test: all keys')"

check "every CPU's PKRS is the default after boot" pkrs_all_default
if [ "${PKS_GUEST_CORE_PART:-0}" = 1 ]; then
	# make check-series boots the series' last commit before device-memory
	# protection: the core must stand alone, with no key taken for it.
	check "end of the core part: no device-memory protection yet" \
		test ! -e /sys/module/memremap/parameters/pks_fault_mode
	check "end of the core part: no key allocated but the kernel's" \
		test "$(cat "$DBG/pks_keys_allocated")" = "0: kernel"
else
	# vm/run.sh boots every run but two with memremap.pks_fault_mode=strict:
	# a module parameter of built-in code, parsed from the command line.
	check "memremap.pks_fault_mode=strict on the command line honoured" \
		test "$(cat /sys/module/memremap/parameters/pks_fault_mode)" = strict
	check "kernel announces strict mode" \
		grep -q 'dev_access: device memory protected by PKS key [0-9]* (strict mode)' <(dmesg)
fi
check "pks_keys_allocated lists key 0 as kernel" grep -qx '0: kernel' "$DBG/pks_keys_allocated"
check "PKS debugfs files are root-only (0400)" \
	test "$(stat -c %a "$DBG/pks_keys_allocated" "$DBG/pks_cpu_pkrs" | sort -u)" = 400

run_pks_all() {
	exec 3<>"$DBG/run_pks"
	printf 3 >&3
	local res
	res=$(cat <&3)
	exec 3>&-
	[ "$res" = PASS ] || { echo "run_pks '3': $res"; dmesg | grep pks_test | tail; return 1; }
}
check "run_pks '3': access tests on all keys" run_pks_all

kunit_ok() {
	dmesg -t | grep -E '^\s*(ok|not ok) [0-9]+ pks_' >/tmp/kunit.txt || true
	cat /tmp/kunit.txt
	grep -qE '^\s*ok [0-9]+ pks_allocator' /tmp/kunit.txt &&
		! grep -q 'not ok' /tmp/kunit.txt &&
		[ "$(grep -cE '^\s*ok [0-9]+ pks_test_[a-z_]+$' /tmp/kunit.txt)" -ge 4 ]
}
check "KUnit pks_allocator: alloc/free, exhaustion, invalid frees, update" kunit_ok

check "test_pks: context switch across all CPUs" "$GUEST_BIN/test_pks"
check "protection_keys (user pkeys) selftest: all tests OK" pku_selftest

cpu_cycle() {
	local c=/sys/devices/system/cpu/cpu1/online
	echo 0 >"$c" || return 1
	[ "$(grep -c '^processor' /proc/cpuinfo)" = 1 ] || return 1
	pkrs_all_default || return 1
	echo 1 >"$c" || return 1
	grep -q '^cpu1:' "$DBG/pks_cpu_pkrs" || { echo "cpu1 missing"; return 1; }
	pkrs_all_default || return 1
	# CR4.PKS on the new CPU: the access tests fault as they should there.
	taskset -c 1 bash -c 'exec 3<>'"$DBG"'/run_pks; printf 0 >&3; r=$(cat <&3); [ "$r" = PASS ]'
}
check "CPU offline/online keeps PKS and the default PKRS" cpu_cycle

check "every CPU's PKRS is the default after the tests" pkrs_all_default
finish
