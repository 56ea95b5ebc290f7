#!/bin/bash
# A non-GPL out-of-tree module (tests/module/kmap_nongpl.c, built by
# tests/module/build.sh) loads on the series and kmaps: DRAM pages, and a
# protected pmem page read inside a kmap_local_page() window (without
# the window the read faults, and the strict default oopses).  The host
# allows the taints such a module leaves (P, O).
set -uo pipefail
SUITE=module
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ko=$ROOT/build/module/kmap_nongpl.ko

check "fsdax namespace (a protected pgmap)" ns_mode fsdax mem
pfn=$((0x$(inj_phys) >> 12))
check "insmod the non-GPL module, pfn=$pfn (a pmem page)" insmod "$ko" pfn="$pfn"
dmesg | grep 'kmap_nongpl:' | sed 's/^/# /'
check "kmap_local_page, kmap, kmap_atomic of a DRAM page" grep -q 'kmap_nongpl: dram ok' <(dmesg)
check "a protected pmem page read inside its kmap_local_page() window" \
	grep -qE 'kmap_nongpl: pfn 0x[0-9a-f]+ protected=1 read ok' <(dmesg)
check "rmmod" rmmod kmap_nongpl
check "no window left open: every CPU's and thread's PKRS default, depth 0" pkrs_all_default
finish
