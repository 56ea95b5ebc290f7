#!/bin/bash
# Guest half of make bench's protection rows in instructions, in an icount
# boot (vm/run.sh --icount: one ns of guest clock per retired instruction,
# each REP iteration counted, WRMSR one; not cycles), booted with device
# memory protected or with dev_access_protection=off: instructions per
# 4 KiB O_DIRECT write and read of an fsdax namespace's block device and of
# a file on ext4 mounted -o dax on it, and, when protected, per
# dev_access_enable()/disable() pair of the hooks' windowbench and per
# iteration of its loop alone.  Prints "BENCH
# name=value" lines (tests/bench.sh parses them).
set -uo pipefail
. "$(dirname "$0")/lib.sh"	# DBG, HOOK, hook, ns_mode
. "$(dirname "$0")/bench-lib.sh"	# protection_evidence
. "$(dirname "$0")/icount-lib.sh"	# io_insns

protection_evidence	# first: the boot's messages are all still in dmesg
ns_mode fsdax mem || { echo "BENCH error=ns_mode"; exit 1; }
echo "BENCH icount_prot_write=$(io_insns write)"
echo "BENCH icount_prot_read=$(io_insns read)"
mnt=$(mktemp -d)
if mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 "$mnt"; then
	echo "BENCH icount_prot_ext4_write=$(io_insns write "$mnt/f")"
	echo "BENCH icount_prot_ext4_read=$(io_insns read "$mnt/f")"
	umount "$mnt"
else
	echo "BENCH error=ext4-dax"
fi
# The hooks load only where device memory has a key.
if [ -e "$HOOK" ]; then
	out=$(hook windowbench 100000)
	echo "BENCH icount_prot_pair=$(sed -n 's/.* ns_per_pair=\([0-9.]*\) .*/\1/p' <<<"$out")"
	echo "BENCH icount_prot_loop=$(sed -n 's/.* ns_loop=\([0-9.]*\) .*/\1/p' <<<"$out")"
fi
