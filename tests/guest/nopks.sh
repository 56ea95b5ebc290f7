#!/bin/bash
# PKS core on a CPU without PKS: everything must work, unprotected.
set -uo pipefail
SUITE=nopks
. "$(dirname "$0")/lib.sh"

check "CPU does not report pks" bash -c '! grep -qw pks /proc/cpuinfo'
check "no PKS debugfs files" bash -c "! ls $DBG/pks_keys_allocated $DBG/pks_cpu_pkrs $DBG/run_pks 2>/dev/null | grep ."
check "PKS test code reports PKS unavailable" grep -q 'pks_test: PKS unavailable' <(dmesg)

kunit_nopks() {
	dmesg -t | grep -E '^\s*(ok|not ok) [0-9]+ pks_' >/tmp/kunit.txt || true
	cat /tmp/kunit.txt
	grep -qE '^\s*ok [0-9]+ pks_test_unavailable$' /tmp/kunit.txt &&
		grep -qE '^\s*ok [0-9]+ pks_allocator' /tmp/kunit.txt &&
		! grep -q 'not ok' /tmp/kunit.txt
}
check "allocation fails cleanly (KUnit pks_test_unavailable)" kunit_nopks
check "test_pks skips cleanly" bash -c "'$GUEST_BIN/test_pks'; [ \$? = 4 ]"
check "protection_keys (user pkeys) selftest: all tests OK" pku_selftest
echo "# PKS unavailable: kernel runs unprotected, as designed"
finish
