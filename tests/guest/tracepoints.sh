#!/bin/bash
# The pks trace events fire with the right fields for known sequences.
# Boot with an emulated NVDIMM and "trace_event=pks:pks_key_alloc
# trace_clock=global" (the boot-time allocation; without a fixed clock the
# switch to the global clock under TCG empties the buffer at late init).
set -uo pipefail
SUITE=${SUITE:-tracepoints}
. "$(dirname "$0")/lib.sh"

T=/sys/kernel/tracing

trace_start() {	# EVENT...: clear the buffer, enable the events
	local e
	echo 0 >$T/events/pks/enable
	echo >$T/trace
	for e in "$@"; do echo 1 >"$T/events/pks/$e/enable"; done
}
trace_lines() {	# stop recording; the events recorded, without headers
	echo 0 >$T/events/pks/enable
	grep -v '^#' $T/trace
}
# expect DESCRIPTION REGEX...: the recorded events match the regexes in
# order, one line each (other events in between are allowed).
cat >/tmp/expect.py <<'PY'
import re, sys
lines, pats, i = sys.stdin.read().splitlines(), sys.argv[1:], 0
for line in lines:
    if i < len(pats) and re.search(pats[i], line):
        i += 1
sys.exit(0 if i == len(pats) else 1)
PY
expect() {
	local desc=$1 lines
	shift
	lines=$(trace_lines 2>/dev/null)
	printf '%s\n' "$lines" | sed 's/^/# trace: /' | head -n 12
	if printf '%s\n' "$lines" | python3 /tmp/expect.py "$@"; then
		pass "$desc"
	else
		fail "$desc"
	fi
}

key=$(sed -n 's/^\([0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated")
[ -n "$key" ] || { fail "device memory key not allocated"; finish; exit 1; }
# The device key's bits in PKRS: closed (AD) by default, open when cleared.
closed=0x55555554
open=$(printf '%#010x' $((0x55555554 & ~(3 << (2 * key)))))
echo "# device memory key $key: PKRS closed $closed, open $open"

# Boot-time allocation, recorded thanks to trace_event= on the command line.
expect "pks_key_alloc at boot: owner and key" \
	"pks_key_alloc: owner=Device Memory key=$key\$"

# A test file allocates a key on first use and frees it on close.
trace_start pks_key_alloc pks_key_free
exec 3>"$DBG/run_pks"
echo 0 >&3
exec 3>&-
expect "pks_key_alloc and pks_key_free for a test key" \
	'pks_key_alloc: owner=pks test file key=([2-9]|1[0-5])$' \
	'pks_key_free: key=([2-9]|1[0-5]) owner=pks test file$'

# Allocating every key: the one past the last fails with -ENOSPC.
trace_start pks_key_alloc
echo 3 >"$DBG/run_pks"
expect "pks_key_alloc reports -ENOSPC when the keys run out" \
	'pks_key_alloc: owner=pks test key=15$' \
	'pks_key_alloc: owner=pks test key=-28$'

check "fsdax namespace" ns_mode fsdax mem
phys=$(inj_phys)

# A key owner's own pks_update_protection() call: one event, with the
# PKRS before and after (a new key is closed for access; this also
# closes it for writes).
trace_start pks_update_protection
exec 3>"$DBG/run_pks"
echo 1 >&3
expect "pks_update_protection for a key owner's update" \
	'pks_update_protection: key=([2-9]|1[0-5]) protection=none pkrs_before=0x[0-9a-f]{8} pkrs_after=0x[0-9a-f]{8} wrmsr=1$'
exec 3>&-

# dev_access_enable() then kmap_local_page(): depth 2; only the outer
# pair writes PKRS.
# The caller is the function the call sits in after inlining: run_nest()
# is inlined into the debugfs handler.
nest='(run_nest|run_command|dev_access_test_write)'
trace_start pks_update_protection dev_access_enable dev_access_disable
hook nest "$phys" >/dev/null
expect "windows nested to depth 2, PKRS written by the outer pair" \
	"dev_access_enable: key=$key depth=1 pkrs_written=1 caller=$nest\\+" \
	"dev_access_enable: key=$key depth=2 pkrs_written=0 caller=$nest\\+" \
	"dev_access_disable: key=$key depth=1 pkrs_written=0 caller=$nest\\+" \
	"dev_access_disable: key=$key depth=0 pkrs_written=1 caller=$nest\\+"
# A window's PKRS writes are in its own events (pkrs_written), not
# reported twice: a tracer pays one program run per open and per close.
check "a window emits no pks_update_protection (its events carry pkrs_written)" \
	bash -c "! grep -v '^#' $T/trace | grep pks_update_protection"

# Stray reads and writes: one pks_fault each, fixed up in strict mode.
trace_start pks_fault
hook inject "$phys" $INJ_LEN 3 5 read >/dev/null
hook inject "$phys" $INJ_LEN 3 6 nowindow >/dev/null
fault="pks_fault: address=0xff[0-9a-f]{14} key=$key owner=Device Memory"
expect "pks_fault for stray reads and writes: address, key, owner, ip, PKRS, depth, mode, outcome" \
	"$fault read ip=copy_from_kernel_nofault\\+.* pkrs=$closed depth=0 mode=strict outcome=fixed_up" \
	"$fault read ip=copy_from_kernel_nofault\\+.* pkrs=$closed depth=0 mode=strict outcome=fixed_up" \
	"$fault read ip=copy_from_kernel_nofault\\+.* pkrs=$closed depth=0 mode=strict outcome=fixed_up" \
	"$fault write ip=copy_to_kernel_nofault\\+.* pkrs=$closed depth=0 mode=strict outcome=fixed_up" \
	"$fault write ip=copy_to_kernel_nofault\\+.* pkrs=$closed depth=0 mode=strict outcome=fixed_up" \
	"$fault write ip=copy_to_kernel_nofault\\+.* pkrs=$closed depth=0 mode=strict outcome=fixed_up"

# Disabled events cost nothing visible and record nothing.
trace_start
hook nest "$phys" >/dev/null
check "disabled events record nothing" test -z "$(grep -v '^#' $T/trace)"

check "event format files present for all six events" bash -c \
	"for e in pks_key_alloc pks_key_free pks_update_protection dev_access_enable dev_access_disable pks_fault; do test -f $T/events/pks/\$e/format || exit 1; done"
finish
