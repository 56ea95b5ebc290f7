#!/bin/bash
# make run: what PKS looks like in a running guest.
set -uo pipefail
. "$(dirname "$0")/../tests/guest/lib.sh"	# DBG, ns_phys
section() { printf '\n=== %s\n' "$*"; }

section "CPU"
if grep -qw pks /proc/cpuinfo; then
	echo "PKS present (CPUID.7.0:ECX[31]); CR4.PKS set on every CPU"
else
	echo "PKS unavailable: the kernel runs unprotected"
fi
section "Allocated keys ($DBG/pks_keys_allocated)"
cat "$DBG/pks_keys_allocated" 2>/dev/null || echo "(none: no PKS)"
section "Each CPU's PKRS ($DBG/pks_cpu_pkrs; default 0x55555554 = keys 1-15 access-disabled)"
cat "$DBG/pks_cpu_pkrs" 2>/dev/null || echo "(none: no PKS)"
section "Boot-time PKS tests"
dmesg -t | grep -E 'pks_test:' || true
section "KUnit"
dmesg -t | grep -E '^\s*(ok|not ok) [0-9]+ pks_' || true
section "Emulated NVDIMM"
ndctl list -N 2>/dev/null || true
ls -l /dev/pmem* 2>/dev/null || true

if [ -e "$HOOK" ]; then
	section "Persistent memory under the Device Memory key"
	ns_mode fsdax mem &&
		echo "namespace0.0 is now fsdax (/dev/pmem0); its direct map carries the key"
	target=$(printf '%x' $((0x$(ns_phys) + (64 << 20))))
	before=$(dd if=/dev/pmem0 bs=1M count=96 2>/dev/null | cksum)
	for mode in nowindow read window; do
		echo "inject $target 1000000 100 7 $mode" >"$HOOK"
		echo "  $(cat "$HOOK")"
	done
	after=$(dd if=/dev/pmem0 bs=1M count=96 2>/dev/null | cksum)
	echo "  first 96 MiB checksum before: $before, after: $after"
	echo "nest $target" >"$HOOK"
	echo "  $(cat "$HOOK")"
	mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mkdir -p /mnt/pmem && mount -o dax /dev/pmem0 /mnt/pmem &&
		dd if=/dev/urandom of=/mnt/pmem/file bs=1M count=4 status=none &&
		echo "  ext4 -o dax: wrote 4 MiB through the kernel's windows: $(sha256sum </mnt/pmem/file | cut -c1-16)..." &&
		umount /mnt/pmem
	section "Each CPU's PKRS afterwards"
	cat "$DBG/pks_cpu_pkrs"
fi

# The tools, on a known workload: fio on ext4-dax, a kthread opening three
# nested windows 100 times a second, and one holding a window while idle.
TOOLS=$(cd "$(dirname "$0")/.." && pwd)/build/tools
if [ -e "$HOOK" ] && [ -x "$TOOLS/pkstop" ] && [ -x "$TOOLS/pksfault" ]; then
	section "pkstop: fio on ext4-dax + 'windows 3 100 6' + 'leak 6000' (3 intervals, batch mode)"
	mount -o dax /dev/pmem0 /mnt/pmem
	fio --name=demo --filename=/mnt/pmem/fio.dat --size=64M --rw=randrw --bs=4k \
		--ioengine=psync --time_based --runtime=6 --eta=never --output=/dev/null &
	echo "windows 3 100 6" >"$HOOKS" && echo "  $(cat "$HOOKS")"
	echo "leak 6000" >"$HOOKS" && echo "  $(cat "$HOOKS")"
	"$TOOLS/pkstop" -b -r 8 1 3 | sed 's/^/  /'
	wait
	section "pksfault as a CI gate: a clean command, then one that writes to pmem without a window"
	"$TOOLS/pksfault" -- dd if=/dev/zero of=/mnt/pmem/clean bs=1M count=8 status=none 2>&1 | sed 's/^/  /'
	echo "  exit status: ${PIPESTATUS[0]} (0: no stray access)"
	umount /mnt/pmem
	"$TOOLS/pksfault" -- sh -c "echo 'inject $target 1000000 3 11 nowindow' >$HOOK" 2>&1 |
		sed 's/^/  /' | head -n 40
	echo "  exit status: ${PIPESTATUS[0]} (1: stray accesses found; the writes were blocked)"
fi
