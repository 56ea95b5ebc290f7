#!/bin/bash
# Real workloads on every protected namespace type, each group under the
# pksfault gate: first in relaxed mode, where a stray access on any path
# is let through and counted, then in strict mode, where it would oops.
# Every workload checks its data (tests/guest/workloads.py, fio verify).
# Any WARN of CONFIG_PKS_DEBUG's oracle (a flush with no window open)
# fails the run on the host.
#   workloads.sh          the battery in relaxed mode, then strict mode;
#                         booted with swiotlb=force and vm/run.sh --disk
#   workloads.sh --group GROUP MODE FS_DEV DAX_DEV CACHE_DEV
#                         one group, run by the gate (internal)
set -uo pipefail
SUITE=workloads
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSFAULT=${PKSFAULT:-$ROOT/build/tools/pksfault}
WL="python3 $ROOT/tests/guest/workloads.py"
MODE_KNOB=/sys/module/memremap/parameters/pks_fault_mode
MNT=/mnt/pmem
OUT=/tmp/workloads
STRESS_SECONDS=${PKS_GUEST_WORKLOAD_STRESS_SECONDS:-4}
mkdir -p "$OUT" "$MNT"

# The same file workloads on any DAX filesystem mounted on $MNT.
file_workloads() {	# FS
	check "$1: shared mapping written, msync, fsync, read back" $WL mmap-sync "$MNT/shared"
	check "$1: MAP_PRIVATE write faults copy, the file keeps its data" $WL private-cow "$MNT/private"
	check "$1: punch hole, zero range, truncate down and up (unaligned)" $WL holes "$MNT/holes"
	check "$1: O_DIRECT write and read" $WL direct "$MNT/direct"
	check "$1: sendfile and splice" $WL sendfile "$MNT/send"
	check "$1: /proc/PID/mem and process_vm_readv on a DAX mapping" $WL peer-reads "$MNT/peer"
	check "$1: fio verify (psync and mmap, crc32c)" fio --directory="$MNT" --name=v --size=16M \
		--bs=4k --rw=randwrite --verify=crc32c --do_verify=1 --verify_state_save=0 --ioengine=psync --numjobs=1 \
		--name=m --ioengine=mmap --rw=randwrite --size=8M --verify=crc32c --output="$OUT/fio.txt"
	check "$1: stress-ng filesystem and mmap stressors (${STRESS_SECONDS} s)" \
		stress-ng --temp-path "$MNT" --timeout "$STRESS_SECONDS" --hdd 1 --hdd-bytes 4M \
		--mmap 1 --mmap-bytes 4M --mmap-file --fallocate 1 --fallocate-bytes 4M \
		--metrics-brief --verify
}

group() {	# GROUP MODE FS_DEV DAX_DEV CACHE_DEV
	local g=$1 mode=$2 fs_dev=$3 dax_dev=$4 cache_dev=$5
	SUITE="workloads: $mode"
	case $g in
	ext4)
		check "ext4 -o dax on /dev/$fs_dev" bash -c "mkfs.ext4 -q -F -b 4096 /dev/$fs_dev &&
			mount -o dax /dev/$fs_dev $MNT && grep -q '$MNT ext4 .*dax' /proc/mounts"
		file_workloads ext4
		check "ext4: unmount and fsck clean" bash -c "umount $MNT && fsck.ext4 -fn /dev/$fs_dev"
		;;
	xfs)
		check "xfs -o dax=always with reflink on /dev/$fs_dev" bash -c "mkfs.xfs -q -f -m reflink=1 /dev/$fs_dev &&
			mount -o dax=always /dev/$fs_dev $MNT && grep -q '$MNT xfs .*dax' /proc/mounts"
		file_workloads xfs
		check "xfs: reflinked extents copied on write fault and on write(2)" $WL reflink-cow "$MNT/reflink"
		check "xfs: unmount and xfs_repair -n clean" bash -c "umount $MNT && xfs_repair -n /dev/$fs_dev"
		;;
	devdax)
		check "devdax: /proc/PID/mem and process_vm_readv on a /dev/$dax_dev mapping" \
			$WL peer-reads "/dev/$dax_dev" 8
		;;
	writecache)
		writecache_group "$cache_dev"
		;;
	swiotlb)
		check "swiotlb: ext4 -o dax on /dev/$fs_dev" bash -c "mkfs.ext4 -q -F -b 4096 /dev/$fs_dev &&
			mount -o dax /dev/$fs_dev $MNT"
		check "swiotlb: O_DIRECT between /dev/vda (bounced) and a buffer on DAX pages" \
			$WL bounce "$MNT/bounce"
		check "swiotlb: unmount" umount "$MNT"
		;;
	esac
	[ "$failures" -eq 0 ]
}

# dm-writecache in pmem mode: the target keeps the cache's address for its
# whole life and copies to and from it, flushes it, reads its metadata.
writecache_group() {	# CACHE_DEV
	local cache=/dev/$1 origin sectors want table
	truncate -s 64M "$OUT/origin.img"
	origin=$(losetup -f --show "$OUT/origin.img") || { fail "writecache: loop device"; return; }
	sectors=$(blockdev --getsz "$origin")
	table="0 $sectors writecache p $origin $cache 4096 0"
	# No udev in the guest: dmsetup mknodes makes /dev/mapper/wc itself.
	check "writecache: dm-writecache (pmem mode) on $cache over $origin" bash -c "
		dmsetup create wc --table '$table' && dmsetup mknodes wc && test -b /dev/mapper/wc"
	head -c 16M /dev/urandom >"$OUT/wc.data"
	want=$(sha256sum <"$OUT/wc.data" | cut -d' ' -f1)
	check "writecache: 16 MiB written, flushed, read back" bash -c "
		dd if=$OUT/wc.data of=/dev/mapper/wc bs=1M oflag=direct status=none &&
		dmsetup message wc 0 flush && echo 3 >/proc/sys/vm/drop_caches &&
		test \"\$(head -c 16M /dev/mapper/wc | sha256sum | cut -d' ' -f1)\" = $want"
	check "writecache: table reloaded from the pmem metadata, data read back" bash -c "
		dmsetup remove wc && dmsetup create wc --table '$table' && dmsetup mknodes wc &&
		test \"\$(dd if=/dev/mapper/wc bs=1M count=16 iflag=direct status=none | sha256sum | cut -d' ' -f1)\" = $want"
	check "writecache: written back to the origin and removed" bash -c "
		dmsetup message wc 0 flush_on_suspend && dmsetup suspend wc && dmsetup resume wc &&
		dmsetup remove wc && losetup -d $origin &&
		test \"\$(head -c 16M $OUT/origin.img | sha256sum | cut -d' ' -f1)\" = $want"
}

if [ "${1:-}" = --group ]; then
	shift
	group "$@"
	exit
fi

# What the gate found, in one line for the failing check: pksfault's
# result and its first fault or leak, so a CI summary that shows only the
# failing checks still names the culprit.
gate_found() {	# PKSFAULT_OUTPUT
	local result first
	result=$(grep -m1 '^result: ' "$1" | cut -d' ' -f2-)
	first=$(grep -m1 -E '^[^ ]+ (FAULT|LEAK) ' "$1" | cut -d' ' -f2- |
		sed -E 's/ (cpu|pid|addr|pkrs)=[^ ]*//g')
	echo "${result:-no result line}${first:+; first: $first}"
}

# One gate per group: the group's own lines first, then the gate's verdict
# (exit 0: no stray fault, no window held over LEAK_MS, nothing lost, and
# the group's checks passed).
#
# LEAK_MS is wall time in a TCG guest that shares two host cores with
# another guest and the cross builds.  A legitimate window can run long
# there: "direct" preadv()s 8 MiB into an untouched buffer, one
# dax_copy_to_iter() window around 2048 user page faults, and each fault
# writes PKRS twice (default on entry, the window's on exit), which flushes
# TCG's whole soft TLB.  Measured: 2.79 s with two guests running, 2.05 s
# in CI.  A leak proper is a window never closed: it stays open past any
# threshold, the kernel WARNs when one reaches user space, and the suite's
# last check finds every thread at depth 0.
LEAK_MS=${PKS_GUEST_WORKLOAD_LEAK_MS:-15000}
gate() {	# MODE GROUP
	local mode=$1 g=$2 rc=0
	"$PKSFAULT" --leak "$LEAK_MS" -- "$0" --group "$g" "$mode" "$fs_dev" "$dax_dev" "$cache_dev" \
		>"$OUT/$mode-$g.out" 2>&1 || rc=$?
	grep -E '^(ok|not ok) - |^#   ' "$OUT/$mode-$g.out"
	failures=$((failures + $(grep -c '^not ok - ' "$OUT/$mode-$g.out")))
	SUITE="workloads: $mode"
	if [ "$rc" = 0 ]; then
		pass "$g: the gate is clean: no stray access, no leaked window, no lost event"
	else
		fail "$g: the gate is clean (pksfault exit $rc: $(gate_found "$OUT/$mode-$g.out"))"
		grep -vE '^(ok|not ok) - ' "$OUT/$mode-$g.out" | grep -v '^#   ' | head -n 40 | sed 's/^/#   /'
	fi
	SUITE=workloads
}

ns_split_region
read -r fs_dev _ < <(make_ns fsdax 400M) || true
read -r cache_dev _ < <(make_ns fsdax 128M) || true
read -r dax_dev _ < <(make_ns devdax 256M) || true
echo "# namespaces: filesystems on $fs_dev, dm-writecache cache $cache_dev, devdax $dax_dev"
if [ -z "${fs_dev:-}" ] || [ -z "${cache_dev:-}" ] || [ -z "${dax_dev:-}" ]; then
	fail "three namespaces created"
	finish
	exit 1
fi
pass "three namespaces created (fsdax for ext4/xfs, fsdax for dm-writecache, devdax)"

# Every I/O to /dev/vda goes through swiotlb: the boot forces it, and the
# disk uses the DMA API (VIRTIO_F_ACCESS_PLATFORM, feature bit 33).
vda_bounced() {
	local dev features
	grep -qw 'swiotlb=force' /proc/cmdline || { echo "no swiotlb=force"; return 1; }
	dev=$(basename "$(readlink -f /sys/block/vda/device)")
	features=$(cat "/sys/bus/virtio/devices/$dev/features")
	[ "${features:33:1}" = 1 ] || { echo "$dev features $features: no ACCESS_PLATFORM"; return 1; }
}
check "/dev/vda's DMA goes through swiotlb (swiotlb=force, VIRTIO_F_ACCESS_PLATFORM)" vda_bounced

for mode in relaxed strict; do
	echo "$mode" >"$MODE_KNOB"
	check "$mode: fault mode set" grep -qx "$mode" "$MODE_KNOB"
	for g in ext4 xfs devdax writecache swiotlb; do
		gate "$mode" "$g"
	done
done
check "every CPU's PKRS and every thread's window are the default at the end" pkrs_all_default
finish
