#!/bin/bash
# Interrupts and exceptions run with the default PKRS, and the two modes of
# the device-memory fault policy.  Needs PKS and an emulated NVDIMM.
#   isolation.sh full         irq/IPI/NMI probes, 30 s stress, strict and
#                             relaxed stray writes, relaxed stray accesses in
#                             NMI, #DB, interrupt, REP and debugger contexts
set -uo pipefail
SUITE=${SUITE:-isolation}
. "$(dirname "$0")/lib.sh"

MODE=/sys/module/memremap/parameters/pks_fault_mode
STRESS_SECONDS=${PKS_GUEST_STRESS_SECONDS:-15}
N=50

# inject_and_check MODE: N stray accesses into namespace0.0 with no
# window; checks the hook's counts, the data, the kernel log and the
# pks_fault events.  Strict: N writes, all blocked.  Relaxed: the hook
# refuses to write where stray writes land, so N reads, all let through.
inject_and_check() {
	local mode=$1 kind=nowindow access=write fn=copy_to_kernel_nofault
	local want before after out events outcome=fixed_up
	before=$(dev_crc /dev/pmem0)
	want="inject nowindow attempted=$N blocked=$N landed=0"
	if [ "$mode" = relaxed ]; then
		check "relaxed: the hook refuses stray writes that would land" \
			bash -c "! echo 'inject $(inj_phys) $INJ_LEN $N 7 nowindow' >$HOOK"
		kind=read access=read fn=copy_from_kernel_nofault outcome=allowed
		want="inject read attempted=$N blocked=0 landed=$N"
	fi
	echo >/sys/kernel/tracing/trace
	echo 1 >/sys/kernel/tracing/events/pks/pks_fault/enable
	out=$(hook inject "$(inj_phys)" $INJ_LEN $N 7 $kind)
	echo 0 >/sys/kernel/tracing/events/pks/pks_fault/enable
	after=$(dev_crc /dev/pmem0)
	echo "# $mode: $out; checksum before $before after $after"
	[ "$out" = "$want" ] && pass "$mode: $N stray ${access}s: ${want#*attempted=$N }" ||
		fail "$mode: stray ${access}s ($out)"
	events=$(grep -c "pks_fault: .*owner=Device Memory $access ip=$fn.* mode=$mode outcome=$outcome" \
		/sys/kernel/tracing/trace)
	grep -m1 'pks_fault:' /sys/kernel/tracing/trace | sed 's/^/# trace: /'
	[ "$events" = $N ] && pass "$mode: one pks_fault event per stray $access, outcome $outcome" ||
		fail "$mode: $events pks_fault events with outcome $outcome, want $N"
	[ "$before" = "$after" ] && pass "$mode: data unchanged" ||
		fail "$mode: data changed by stray ${access}s"
	if [ "$mode" = relaxed ]; then
		dmesg | grep -m1 'dev_access: stray read of .* allowed (relaxed mode)' | sed 's/^/# /'
		check "relaxed: stray reads reported in the kernel log" \
			grep -q 'dev_access: stray read of .* by copy_from_kernel_nofault.*allowed (relaxed mode)' <(dmesg)
	fi
}

# Relaxed mode in the contexts that single-stepping treats specially: a
# load in an NMI handler and one in a #DB handler (a data breakpoint's, on
# the #DB IST stack) are refused (NMI-like: no step can end there); a REP
# MOVSB of a page in an hrtimer interrupt and in a thread, and a load in a
# thread that a stand-in debugger single-steps (kgdb's case: the step
# stays the debugger's), are stepped.  The hook checks the data (or the
# refusal), that the key was closed right after each access, and the
# default PKRS afterwards.
relaxed_contexts() {
	local out refused allowed trace=/sys/kernel/tracing
	echo >$trace/trace
	echo 1 >$trace/events/pks/pks_fault/enable
	out=$(hook relaxed "$(inj_phys)")
	echo 0 >$trace/events/pks/pks_fault/enable
	echo "# $out"
	grep 'pks_fault:' $trace/trace | sed 's/^/# trace: /'
	[[ "$out" == "relaxed nmi=PASS db=PASS rep=PASS rep_irq=PASS tf=PASS" ]] &&
		pass "relaxed: stray reads from an NMI and a #DB are refused; REP MOVSB (interrupt, thread) and a debugger-stepped load go through; the key is closed right after each" ||
		fail "relaxed: stray reads in special contexts ($out)"
	refused=$(grep -c 'pks_fault: .*owner=Device Memory read ip=copy_from_kernel_nofault.* mode=strict outcome=fixed_up' $trace/trace)
	allowed=$(grep -c 'pks_fault: .*owner=Device Memory read ip=.* mode=relaxed outcome=allowed' $trace/trace)
	# Allowed: the hook's first probe (is the mode relaxed?), the
	# debugger-stepped load and the two REP copies, one event each.
	[ "$refused" = 2 ] && [ "$allowed" = 4 ] &&
		pass "relaxed: traced as 2 refused (outcome fixed_up) and 4 allowed, one event per access" ||
		fail "relaxed: $refused refused (want 2), $allowed allowed (want 4)"
	check "relaxed: the refusals are reported in the kernel log" \
		grep -q 'dev_access: stray read of .*refused, cannot be stepped here (relaxed mode)' <(dmesg)
	check "relaxed: every CPU's PKRS is the default" pkrs_all_default
}

# The report that motivated stepping REP: memset() through a stray
# pointer, then one more stray store 8 KiB further.  In relaxed mode both
# land, each is a stray access of its own (two events), and the key is
# closed right after each; block_writes() below keeps both off the
# namespace.
relaxed_repwrite() {
	local before after out events trace=/sys/kernel/tracing
	before=$(dev_crc /dev/pmem0)
	echo >$trace/trace
	echo 1 >$trace/events/pks/pks_fault/enable
	out=$(hook repwrite "$(inj_phys)" 4096)
	echo 0 >$trace/events/pks/pks_fault/enable
	after=$(dev_crc /dev/pmem0)
	echo "# relaxed: $out; checksum before $before after $after"
	grep 'pks_fault:' $trace/trace | sed 's/^/# trace: /'
	[ "$out" = "repwrite len=4096 faulted=N open_after=N store_faulted=N open_after_store=N" ] &&
		pass "relaxed: a stray REP STOSB of a page and a stray store after it both land, the key closed right after each" ||
		fail "relaxed: stray REP STOSB then store ($out)"
	events=$(grep -c 'pks_fault: .*owner=Device Memory write ip=.* mode=relaxed outcome=allowed' $trace/trace)
	[ "$events" = 2 ] && pass "relaxed: the REP write and the store are two stray accesses (two events)" ||
		fail "relaxed: $events pks_fault events for the REP write and the store, want 2"
	[ "$before" != "$after" ] && pass "relaxed: both writes landed (data changed)" ||
		fail "relaxed: data unchanged"
}

# block-writes: stray reads go ahead and are reported, stray writes never
# land, a REP STOSB among them (memset() through a stray pointer).
block_writes() {
	local before after out
	check "root tightens relaxed to block-writes" bash -c \
		"echo block-writes >$MODE && test \"\$(cat $MODE)\" = block-writes"
	before=$(dev_crc /dev/pmem0)
	out=$(hook repwrite "$(inj_phys)" 4096)
	echo "# block-writes: $out"
	[ "$out" = "repwrite len=4096 faulted=Y open_after=N store_faulted=Y open_after_store=N" ] &&
		pass "block-writes: a stray REP STOSB of a page and the store after it are refused (fixed up)" ||
		fail "block-writes: stray REP STOSB ($out)"
	out=$(hook inject "$(inj_phys)" $INJ_LEN $N 8 nowindow)
	[ "$out" = "inject nowindow attempted=$N blocked=$N landed=0" ] &&
		pass "block-writes: $N stray writes blocked" || fail "block-writes: stray writes ($out)"
	out=$(hook inject "$(inj_phys)" $INJ_LEN $N 9 read)
	[ "$out" = "inject read attempted=$N blocked=0 landed=$N" ] &&
		pass "block-writes: $N stray reads go ahead" || fail "block-writes: stray reads ($out)"
	after=$(dev_crc /dev/pmem0)
	[ "$before" = "$after" ] && pass "block-writes: namespace unchanged ($after)" ||
		fail "block-writes: namespace changed: $before -> $after"
	check "block-writes: stray reads reported in the kernel log" \
		grep -q 'dev_access: stray read of .* allowed (block-writes mode)' <(dmesg)
}

full() {
	local out
	check "fsdax namespace" ns_mode fsdax mem
	# Booted with the kernel's own fault mode (vm/run.sh --kernel-fault-mode).
	check "fault mode defaults to relaxed" test "$(cat $MODE)" = relaxed
	check "kernel announces relaxed mode" grep -q 'dev_access: device memory protected by PKS key [0-9]* (relaxed mode)' <(dmesg)
	# Strict for the probes and the stress: handlers' accesses must fault.
	check "root switches to strict at run time" bash -c "echo strict >$MODE && test \"\$(cat $MODE)\" = strict"

	out=$(hook irq "$(inj_phys)")
	echo "# $out"
	[[ "$out" == "irq hrtimer=PASS ipi=PASS nmi=PASS" ]] &&
		pass "hrtimer, IPI and NMI handlers run without the thread's window, fault on the page, open their own, leave the thread's intact" ||
		fail "interrupt isolation ($out)"

	out=$(hook stress "$STRESS_SECONDS" "$(inj_phys)")
	echo "# $out"
	[[ "$out" =~ mismatches=0\ unexpected_faults=0 ]] &&
		[[ "$out" =~ cpus=2\ windows=[1-9][0-9]*\ irq_checks=[1-9][0-9]*\ ipis=[1-9] ]] &&
		[[ ! "$out" =~ expected_faults=0$ ]] &&
		pass "stress ${STRESS_SECONDS}s on 2 CPUs: zero mismatches, zero unexpected faults" ||
		fail "stress ($out)"

	inject_and_check strict
	check "root switches to relaxed at run time" bash -c "echo relaxed >$MODE && test \"\$(cat $MODE)\" = relaxed"
	inject_and_check relaxed
	relaxed_contexts
	relaxed_repwrite
	check "bad mode refused" bash -c "! echo lenient >$MODE 2>/dev/null && test \"\$(cat $MODE)\" = relaxed"
	block_writes
	echo strict >$MODE
	check "fault mode file is root-only" test "$(stat -c %a $MODE)" = 600
	pkrs_ok
}

pkrs_ok() {
	check "every CPU's PKRS is the default afterwards" pkrs_all_default
}

SUITE=$SUITE${1:+-$1}
SUITE=${SUITE%-full}
"${1:-full}"
finish
