#!/bin/bash
# make run: what PKS looks like in a running guest.
set -uo pipefail
DBG=/sys/kernel/debug/x86
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
