#!/bin/bash
# make stress: everything at once, for a bounded time, self-checking.
# Three namespaces on the NVDIMM: ext4-dax (fio verify), raw fsdax (fio
# verify), devdax (fio dev-dax verify).  Meanwhile: key alloc/free and
# protection-update churn, the stress hook (windows toggled on every CPU,
# a 200 us hrtimer per CPU, cross-CPU IPIs), and CPU 1 going offline and
# online.  Passes only with zero unexpected PKS faults, every verify
# clean, no WARN/BUG/lockdep report (the host's verdict), every CPU's PKRS
# at the default and every thread's window depth at zero at the end.
set -uo pipefail
SUITE=stress
. "$(dirname "$0")/lib.sh"

LOAD_SECONDS=${PKS_GUEST_STRESS_SECONDS:-240}
T=/sys/kernel/tracing
PKSTOP=$(cd "$(dirname "$0")/../.." && pwd)/build/tools/pkstop
MNT=/mnt/pmem
OUT=/tmp/stress
mkdir -p "$OUT" "$MNT"

ns_split_region
cd "$OUT"
read -r ext4_dev _ < <(make_ns fsdax 320M) || true
read -r raw_dev raw_ns < <(make_ns fsdax 320M) || true
read -r dax_dev _ < <(make_ns devdax 256M) || true
echo "# namespaces: ext4 on $ext4_dev, raw $raw_dev ($raw_ns), devdax $dax_dev"
if [ -z "${ext4_dev:-}" ] || [ -z "${raw_dev:-}" ] || [ -z "${dax_dev:-}" ]; then
	fail "three namespaces created"
	finish
	exit 1
fi
pass "three namespaces created (fsdax ext4, fsdax raw, devdax)"
check "ext4 on /dev/$ext4_dev mounted with DAX" bash -c \
	"mkfs.ext4 -q -F -b 4096 /dev/$ext4_dev && mount -o dax /dev/$ext4_dev $MNT"

# The stress hook's page: past the 200 MiB that fio uses on the raw device.
hook_phys=$(printf '%x' $((0x$(ns_start "$raw_ns") + (300 << 20))))

# The only stray accesses here are deliberate: the stress hook's reads with
# no window (fixed up) and the key-churn test's accesses to its own keys
# (let through by its handler).  Anything else, or any oops, is unexpected.
echo 0 >$T/events/pks/enable
echo >$T/trace
echo 'outcome == 2 || (owner != "pks test" && (depth > 0 || outcome != 0))' \
	>$T/events/pks/pks_fault/filter
echo 1 >$T/events/pks/pks_fault/enable

fio_job() {	# NAME FILE SIZE [ENGINE]
	fio --name="$1" --filename="$2" --size="$3" --ioengine="${4:-psync}" \
		--rw=randwrite --bs=4k --verify=crc32c --verify_backlog=256 \
		--verify_fatal=1 --do_verify=1 --time_based --runtime="$LOAD_SECONDS" \
		--randrepeat=0 --verify_state_save=0 --output-format=terse \
		>"$OUT/fio-$1.out" 2>&1
	echo $? >"$OUT/fio-$1.rc"
}

key_churn() {	# allocate every key, test each protection, free them
	local n=0 bad=0 end=$((SECONDS + LOAD_SECONDS))
	while [ $SECONDS -lt $end ]; do
		exec 4<>"$DBG/run_pks"
		echo 3 >&4
		grep -q PASS <&4 || bad=$((bad + 1))
		exec 4>&-
		n=$((n + 1))
	done
	echo "$n $bad" >"$OUT/churn"
}

hotplug() {	# CPU 1 offline and online until the end
	local n=0 end=$((SECONDS + LOAD_SECONDS))
	sleep 2	# let the stress hook start its thread on every CPU first
	while [ $SECONDS -lt $end ]; do
		echo 0 >/sys/devices/system/cpu/cpu1/online && sleep 0.3 &&
			echo 1 >/sys/devices/system/cpu/cpu1/online && n=$((n + 1))
		sleep 0.7
	done
	echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
	echo "$n" >"$OUT/hotplug"
}

start=$SECONDS
fio_job ext4 "$MNT/fio.dat" 128M &
fio_job raw "/dev/$raw_dev" 200M &
fio_job devdax "/dev/$dax_dev" 200M dev-dax &
key_churn &
hotplug &
stress_out=$(hook stress "$LOAD_SECONDS" "$hook_phys")
wait
held=$((SECONDS - start))

echo "# held $held s: $stress_out"
echo "# key churn (iterations, failures): $(cat $OUT/churn); CPU 1 offline/online cycles: $(cat $OUT/hotplug)"
for job in ext4 raw devdax; do
	rc=$(cat "$OUT/fio-$job.rc")
	ios=$(awk -F';' '{ print $6 + $47 }' "$OUT/fio-$job.out" 2>/dev/null | tail -n 1)
	echo "# fio $job: rc $rc, ${ios:-?} I/Os"
	[ "$rc" = 0 ] && [ "${ios:-0}" -gt 0 ] 2>/dev/null && pass "fio verify on $job: clean, $ios I/Os" ||
		{ fail "fio verify on $job (rc $rc, ${ios:-no} I/Os)"; tail -n 5 "$OUT/fio-$job.out" | sed 's/^/#   /'; }
done
read -r churn churn_bad <"$OUT/churn"
[ "$churn" -gt 0 ] && [ "$churn_bad" = 0 ] && pass "key churn: $churn rounds of alloc-all/test/free-all, all PASS" ||
	fail "key churn: $churn rounds, $churn_bad failed"
[ "$(cat $OUT/hotplug)" -gt 0 ] && [ "$(cat /sys/devices/system/cpu/cpu1/online)" = 1 ] &&
	[ "$(grep -c '^processor' /proc/cpuinfo)" = 2 ] &&
	pass "CPU 1 went offline and online $(cat $OUT/hotplug) times and is back online" ||
	fail "CPU hotplug did not cycle, or CPU 1 is not back online"
[[ "$stress_out" =~ mismatches=0\ unexpected_faults=0 ]] &&
	[[ "$stress_out" =~ cpus=2\ windows=[1-9][0-9]*\ irq_checks=[1-9][0-9]*\ ipis=[1-9] ]] &&
	[[ ! "$stress_out" =~ expected_faults=0$ ]] &&
	pass "stress hook: windows, handler checks, IPIs and expected faults all happened; zero mismatches, zero unexpected faults" ||
	fail "stress hook ($stress_out)"
echo 0 >$T/events/pks/enable
unexpected=$(grep -c 'pks_fault:' $T/trace)
grep -m3 'pks_fault:' $T/trace | sed 's/^/#   /'
[ "$unexpected" = 0 ] && pass "zero unexpected PKS faults (none with a window open, none unhandled)" ||
	fail "$unexpected unexpected PKS faults"
echo 0 >$T/events/pks/pks_fault/filter

umount "$MNT"
check "ext4 fsck clean after the run" fsck.ext4 -fn "/dev/$ext4_dev"
check "every CPU's PKRS is the default at the end" pkrs_all_default
if [ -x "$PKSTOP" ]; then
	depths=$("$PKSTOP" --json 1 1 2>&1)
	check "every thread's window depth is zero at the end (pkstop)" python3 -c '
import json, sys
doc = [d for d in map(json.loads, sys.stdin) if d["type"] == "sample"][-1]
bad = [t for t in doc["threads"] if t["depth"] not in (0, None)]
sys.exit(1 if bad else 0)' <<<"$depths"
else
	fail "pkstop not built: thread depths not checked"
fi
echo "# stress loaded for $held s"
finish
