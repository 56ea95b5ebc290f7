#!/bin/bash
# Bad input to every interface the series and the tools add: debugfs files
# (wrong values, huge writes, concurrent writers), the fault-mode
# parameter, boot parameters (booted with bogus values), and the tools'
# options and privileges.  Nothing may crash (the host's verdict), every
# bad input gets an error, and the data on pmem is unchanged.
set -uo pipefail
SUITE=garbage
. "$(dirname "$0")/lib.sh"

TOOLS=$(cd "$(dirname "$0")/../.." && pwd)/build/tools
MODE=/sys/module/memremap/parameters/pks_fault_mode

refused() {	# FILE DATA: the write must fail
	! printf '%s' "$2" >"$1" 2>/dev/null
}

# Booted with the kernel's own fault mode (vm/run.sh --kernel-fault-mode).
check "bogus boot values fall back to the defaults (relaxed, protected)" bash -c \
	"test \"\$(cat $MODE)\" = relaxed && grep -q '^[0-9]*: Device Memory' $DBG/pks_keys_allocated"
# Strict from here: every stray access below must be refused.
echo strict >$MODE
# Booted without memremap.pks_fault_mode_weaken=1: no way back.
check "at run time the fault mode only tightens: relaxed and block-writes refused after strict" bash -c \
	"! echo relaxed >$MODE 2>/dev/null && ! echo block-writes >$MODE 2>/dev/null && test \"\$(cat $MODE)\" = strict"
check "fsdax namespace" ns_mode fsdax mem
phys=$(inj_phys)
before=$(dev_crc /dev/pmem0)

for f in pks_keys_allocated pks_cpu_pkrs pks_dev_access run_pks; do
	mode=$(stat -c %a "$DBG/$f")
	[[ "$mode" =~ ^[46]00$ ]] && pass "debugfs x86/$f is root-only ($mode)" ||
		fail "debugfs x86/$f mode $mode"
done
mode=$(stat -c %a "$HOOKS")
[ "$mode" = 600 ] && pass "debugfs pks_hooks (out of tree) is root-only ($mode)" ||
	fail "debugfs pks_hooks mode $mode"
check "read-only debugfs files refuse writes" bash -c \
	"! echo 1 >$DBG/pks_keys_allocated 2>/dev/null && ! echo 1 >$DBG/pks_cpu_pkrs 2>/dev/null"

bad=0 total=0
while IFS= read -r cmd; do
	total=$((total + 1))
	# Both hook files dispatch on the verb: each must refuse every line.
	refused "$HOOK" "$cmd" && refused "$HOOKS" "$cmd" ||
		{ bad=$((bad + 1)); echo "# accepted: '$cmd'"; }
done <<EOC
bogus
inject
inject $phys
inject 0 1000 10 1 nowindow
inject $phys 0 10 1 nowindow
inject $phys 4 10 1 nowindow
inject ffffffffffffffff 1000 10 1 nowindow
inject $phys 1000 10 1 sideways
inject $phys 1000 1000001 1 read
inject $phys 1000 10 1 read trailing
nest $phys trailing
nest 0
nest ffffffffffff000
irq 0
stress 0 $phys
stress 601 $phys
stress 5 0
windows 0 10 1
windows 17 10 1
windows 1 0 1
windows 1 100001 1
windows 1 10 601
leak 600001
kmapbench 0
windowbench 100000001
hold 600001
hold 5 trailing
keyfree
keyfree x
repwrite $phys 0
repwrite $phys 4097
$(printf 'x%.0s' $(seq 1 300))
EOC
[ "$bad" = 0 ] && pass "pks_dev_access and pks_hooks refuse $total malformed or out-of-range commands" ||
	fail "pks_dev_access or pks_hooks accepted $bad of $total bad commands"
check "pks_dev_access and pks_hooks refuse a 1 MiB write" bash -c \
	"! head -c 1048576 /dev/zero | tr '\\0' 'a' >$HOOK 2>/dev/null &&
	 ! head -c 1048576 /dev/zero | tr '\\0' 'a' >$HOOKS 2>/dev/null"
check "run_pks refuses unknown commands" bash -c "! echo 7 >$DBG/run_pks 2>/dev/null && ! echo >$DBG/run_pks 2>/dev/null"
check "pks_fault_mode refuses garbage and stays strict" bash -c \
	"! echo 'relaxed now' >$MODE 2>/dev/null && ! echo STRICT >$MODE 2>/dev/null && test \"\$(cat $MODE)\" = strict"

# Concurrent writers: valid and invalid commands from four processes.
for w in 1 2 3 4; do
	(for i in $(seq 1 40); do
		echo "inject $phys 1000 5 $i read" >"$HOOK" 2>/dev/null
		echo "bogus $i" >"$HOOK" 2>/dev/null
		echo "nest $phys" >"$HOOK" 2>/dev/null
		cat "$HOOK" >/dev/null
	done) &
done
wait
check "concurrent writers: the hook still answers" bash -c \
	"echo 'inject $phys 1000 10 9 nowindow' >$HOOK && grep -qx 'inject nowindow attempted=10 blocked=10 landed=0' $HOOK"

# A module that unloads without freeing its key (tests/hooks/pks_key_orphan.c,
# which frees and poisons the name it passed): the kernel's copy of the
# name stays readable, and no other module may free that key or the
# device-memory key.
orphan=$(dirname "$GUEST_BIN")/hooks/pks_key_orphan.ko
check "a module that leaves its key allocated loads and unloads" bash -c "insmod $orphan && rmmod pks_key_orphan"
okey=$(sed -n 's/^\([0-9]*\): orphan of pid [0-9]*$/\1/p' "$DBG/pks_keys_allocated")
dkey=$(sed -n 's/^\([0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated")
[ -n "$okey" ] && pass "its key $okey still names its owner after the module and the name are gone" ||
	fail "orphaned key's owner: $(tr '\n' ';' <"$DBG/pks_keys_allocated")"
hook keyfree "${okey:-0}" >/dev/null
hook keyfree "${dkey:-0}" >/dev/null
check "pks_key_free() from another module refused: key $okey and the device-memory key $dkey stay allocated" \
	bash -c "grep -qx '$okey: orphan of pid [0-9]*' $DBG/pks_keys_allocated && grep -qx '$dkey: Device Memory' $DBG/pks_keys_allocated"
check "both refusals logged, naming why" bash -c \
	"dmesg | grep -q 'freed key $okey (orphan of pid [0-9]*), which is another module.s; refused' &&
	 dmesg | grep -q 'freed key $dkey (Device Memory), which is never freed; refused'"

after=$(dev_crc /dev/pmem0)
[ "$before" = "$after" ] && pass "pmem data unchanged by all of it ($after)" ||
	fail "pmem data changed: $before -> $after"
check "every CPU's PKRS is the default" pkrs_all_default

# The tools: bad options and missing privileges give exit 2 and one line.
for tool in pksfault pkstop; do
	[ -x "$TOOLS/$tool" ] || { fail "$tool not built"; continue; }
	for args in "--bogus" "-p notapid" "-p -5" "0 0" "--json --json=3"; do
		# shellcheck disable=SC2086
		err=$("$TOOLS/$tool" $args 2>&1 >/dev/null </dev/null); rc=$?
		lines=$(printf '%s\n' "$err" | grep -c .)
		[ "$rc" = 2 ] && [ "$lines" -ge 1 ] && pass "$tool $args: exit 2 ($(head -n1 <<<"$err"))" ||
			fail "$tool $args: exit $rc, $lines lines"
	done
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOLS/$tool" 2>&1 >/dev/null </dev/null); rc=$?
	[ "$rc" = 2 ] && [ "$(grep -c . <<<"$err")" = 1 ] && pass "$tool as nobody: exit 2, one line ($err)" ||
		fail "$tool as nobody: exit $rc ($err)"
done
finish
