#!/bin/bash
# Guest half of make bench for persistent memory: prints "BENCH name=value"
# lines.  The host boots it with and without protection and compares.
#   bench-pmem.sh [FIO_SECONDS]; PKS_GUEST_BENCH_RUN=N sets the order of
#   the compared measurements (bench-lib.sh)
set -uo pipefail
. "$(dirname "$0")/lib.sh"	# DBG, HOOK, ns_mode
. "$(dirname "$0")/bench-lib.sh"	# BENCH_RUN, baseline_first, protection_evidence
MNT=/mnt/pmem
RUNTIME=${1:-8}
cd /tmp || exit 1	# fio writes state files to the working directory
TR=/sys/kernel/tracing

# fio 4k random read/write, 50/50, one job: total IOPS, or nothing when
# fio failed.  SECONDS FILE [ENGINE] (the dev-dax engine maps the device
# and takes no O_DIRECT)
fio_job() {
	local direct=1
	[ "${3:-psync}" = dev-dax ] && direct=0
	fio --name=bench --filename="$2" --size=256M --rw=randrw --bs=4k \
		--ioengine="${3:-psync}" --direct=$direct --time_based --runtime="$1" \
		--randrepeat=1 --output-format=json 2>/dev/null |
		python3 -c 'import json, sys
j = json.load(sys.stdin)["jobs"][0]
print(round(j["read"]["iops"] + j["write"]["iops"]))' 2>/dev/null
}
fio_iops() { fio_job "$RUNTIME" "$@"; }	# FILE [ENGINE]: one timed measurement

# Before the first timed measurement on a target: write all of it once
# (the NVDIMM's backing file is sparse, so first writes allocate host
# pages, and on ext4 they convert unwritten extents), then 2 s of the
# timed job itself (QEMU translates its code paths on first use).
warm() {	# FILE [ENGINE]
	local direct=1
	[ "${2:-psync}" = dev-dax ] && direct=0
	fio --name=warm --filename="$1" --size=256M --rw=write --bs=1M \
		--ioengine="${2:-psync}" --direct=$direct >/dev/null 2>&1
	fio_job 2 "$@" >/dev/null
}

# The pair against page_address() alone, timed in alternating blocks by
# the hook itself: the ratio, and each side's ns per call.
kmapbench() {
	[ -e "$HOOK" ] || return 0
	echo "kmapbench 2000000" >"$HOOKS"
	sed -n 's/.*ns_per_pair=\([0-9.]*\) ns_per_page_address=\([0-9.]*\) ratio=\([0-9.]*\) static_branch=\([01]\).*/BENCH kmap_ns_branch\4=\1\nBENCH kmap_addr_ns_branch\4=\2\nBENCH kmap_ratio_branch\4=\3/p' "$HOOKS"
}

# What one window (two WRMSR to PKRS) costs: under TCG each PKRS write
# also flushes QEMU's software TLB.
windowbench() {
	[ -e "$HOOK" ] || return 0
	echo "windowbench 20000" >"$HOOKS"
	sed -n 's/.*ns_per_pair=\([0-9.]*\).*/BENCH window_ns=\1/p' "$HOOKS"
}

# PKRS writes per pmem request: count WRMSR(PKRS) with the msr tracepoint
# while fio issues requests of two sizes, and divide by the requests the
# block layer completed.
pkrs_writes_per_io() {
	local bs=$1 before after msrs reqs
	[ -d "$TR/events/msr/write_msr" ] || { echo "BENCH pkrs_per_io_$bs=n/a"; return; }
	echo 'msr == 0x6e1' >"$TR/events/msr/write_msr/filter"
	echo 0 >"$TR/tracing_on"
	echo >"$TR/trace"
	echo 1 >"$TR/events/msr/write_msr/enable"
	echo 1 >/sys/block/pmem0/queue/iostats	# pmem turns them off
	before=$(awk '{print $1 + $5}' /sys/block/pmem0/stat)
	echo 1 >"$TR/tracing_on"
	fio --name=count --filename=/dev/pmem0 --size=64M --rw=randwrite --bs="$bs" \
		--ioengine=psync --direct=1 --number_ios=2000 --randrepeat=1 >/dev/null 2>&1
	echo 0 >"$TR/tracing_on"
	after=$(awk '{print $1 + $5}' /sys/block/pmem0/stat)
	echo 0 >"$TR/events/msr/write_msr/enable"
	msrs=$(grep -c 'write_msr: 6e1' "$TR/trace")
	reqs=$((after - before))
	echo "BENCH pkrs_per_io_$bs=$(python3 -c "print(round($msrs / max($reqs, 1), 2))") (msr=$msrs requests=$reqs)"
}

# Raw pmem without and with every pks event enabled and recorded, same
# device, same boot; which goes first alternates with the run.
raw_plain() { echo "BENCH raw_iops=$(fio_iops /dev/pmem0)"; }
raw_traced() {
	echo 1 >"$TR/events/pks/enable"
	echo "BENCH raw_iops_tracepoints_on=$(fio_iops /dev/pmem0)"
	echo 0 >"$TR/events/pks/enable"
	echo >"$TR/trace"
}

protection_evidence		# first: the boot's messages are all still in dmesg
kmapbench			# raw namespace: no protected pgmap yet
ns_mode fsdax mem
kmapbench			# a protected pgmap exists (when protection is on)
windowbench
warm /dev/pmem0
if [ ! -d "$TR/events/pks" ]; then
	raw_plain
elif baseline_first 1; then
	echo "BENCH order_tracepoints=baseline-first"
	raw_plain
	raw_traced
else
	echo "BENCH order_tracepoints=traced-first"
	raw_traced
	raw_plain
fi
pkrs_writes_per_io 4k
pkrs_writes_per_io 128k
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 "$MNT"
warm "$MNT/bench.dat"
echo "BENCH ext4dax_iops=$(fio_iops "$MNT/bench.dat")"
python3 "$(dirname "$0")/bench-ops.py" "$MNT/bench.dat" 256
umount "$MNT"
ns_mode devdax
warm /dev/dax0.0 dev-dax
echo "BENCH devdax_iops=$(fio_iops /dev/dax0.0 dev-dax)"
