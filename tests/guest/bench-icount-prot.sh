#!/bin/bash
# Guest half of make bench's protection rows in instructions, in an icount
# boot (vm/run.sh --icount: one ns of guest clock per retired instruction,
# each REP iteration counted, WRMSR one; not cycles), booted with device
# memory protected or with dev_access_protection=off: instructions per
# 4 KiB O_DIRECT write and read of an fsdax namespace's block device and of
# a file on ext4 mounted -o dax on it, and, when protected, per
# dev_access_enable()/disable() pair of the hooks' windowbench and per
# iteration of its loop alone; per operation of opbench (fdatasync of a
# dirtied page and a shared-mapping write fault on ext4-dax, a write fault
# on a reflinked XFS extent, a device-dax fault); and, when protected, per
# interrupt and per context switch without and with a key open (the hooks'
# irqbench and switchbench).  Prints "BENCH name=value" lines
# (tests/bench.sh parses them).
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
	echo "BENCH icount_prot_ext4_fsync=$(op_insns fsync "$mnt/f" 500)"
	echo "BENCH icount_prot_ext4_fault=$(op_insns fault "$mnt/f" 2048)"
	umount "$mnt"
else
	echo "BENCH error=ext4-dax"
fi
if mkfs.xfs -q -f -m reflink=1 /dev/pmem0 && mount -o dax=always /dev/pmem0 "$mnt" &&
	dd if=/dev/urandom of="$mnt/f" bs=1M count=4 status=none; then
	echo "BENCH icount_prot_xfs_cow=$(op_insns cow "$mnt/f" 2048)"
	umount "$mnt"
else
	echo "BENCH error=xfs-dax-reflink"
fi
rmdir "$mnt"
# The hooks load only where device memory has a key.
if [ -e "$HOOK" ]; then
	out=$(hook windowbench 100000)
	echo "BENCH icount_prot_pair=$(sed -n 's/.* ns_per_pair=\([0-9.]*\) .*/\1/p' <<<"$out")"
	echo "BENCH icount_prot_loop=$(sed -n 's/.* ns_loop=\([0-9.]*\) .*/\1/p' <<<"$out")"
	out=$(hook irqbench 5000)
	echo "BENCH icount_prot_irq=$(sed -n 's/.* ns_per_irq=\([0-9.]*\) .*/\1/p' <<<"$out")"
	echo "BENCH icount_prot_irq_open=$(sed -n 's/.* ns_per_irq_open=\([0-9.]*\).*/\1/p' <<<"$out")"
	out=$(hook switchbench 5000)
	echo "BENCH icount_prot_switch=$(sed -n 's/.* ns_per_switch=\([0-9.]*\) .*/\1/p' <<<"$out")"
	echo "BENCH icount_prot_switch_open=$(sed -n 's/.* ns_per_switch_open=\([0-9.]*\).*/\1/p' <<<"$out")"
fi
# Last: the namespace becomes a device-dax one.
if ns_mode devdax; then
	echo "BENCH icount_prot_devdax_fault=$(op_insns devdax /dev/dax0.0 1024)"
else
	echo "BENCH error=devdax"
fi
