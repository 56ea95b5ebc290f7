# shellcheck shell=bash
# TAP-like helpers for guest suites.  The host counts the "ok"/"not ok"
# lines from the console; every line names its suite.

SUITE=${SUITE:-guest}
DBG=/sys/kernel/debug/x86
GUEST_BIN=${PKS_GUEST_BIN:-${GUEST_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/guest}}
failures=0

pass() { echo "ok - $SUITE: $*"; }
fail() {
	echo "not ok - $SUITE: $*"
	failures=$((failures + 1))
}
# check DESCRIPTION COMMAND...: one test line from a command's status;
# its output is shown only when it fails.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		pass "$desc"
	else
		fail "$desc"
		printf '%s\n' "$out" | sed 's/^/#   /' | tail -n 30
	fi
}
# The suite's status for the host: non-zero when any line failed.
finish() {
	echo "# $SUITE: $failures failed"
	[ "$failures" -eq 0 ]
}

# Every online CPU's PKRS MSR and cached value are the default, and (where
# the device-memory hooks exist) no thread, running or asleep, has a
# window open or a key enabled: the CPU view alone is read from a kworker
# and cannot see a thread that holds a window but is not running.
pkrs_all_default() {
	local want=0x55555554 n=0 cpus out
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	while read -r cpu _ msr _ cache; do
		n=$((n + 1))
		if [ "$msr" != "$want" ] || [ "$cache" != "$want" ]; then
			echo "$cpu pkrs $msr cache $cache, want $want"
			return 1
		fi
	done <"$DBG/pks_cpu_pkrs"
	[ "$n" -eq "$cpus" ] || { echo "$n CPUs listed, $cpus online"; return 1; }
	[ -e "$HOOK" ] || return 0
	out=$(hook threads)
	[[ "$out" =~ ^threads\ checked=[1-9][0-9]*\ open=0$ ]] || { echo "$out"; return 1; }
}

# same_sha256 WANT FILE: FILE's SHA-256 is WANT, a real one (two missing
# files, or two failed reads, must not compare equal).
same_sha256() {
	local got
	[[ "$1" =~ ^[0-9a-f]{64}$ ]] || { echo "no expected checksum ('$1')"; return 1; }
	got=$(sha256sum <"$2" | cut -d' ' -f1) || return 1
	[ "$got" = "$1" ] || { echo "$2: sha256 $got, want $1"; return 1; }
}

# The user pkeys selftest, judged on what it says, not only its status:
# it must run its tests and report all of them OK.  Its hugetlb variants
# are left out: on Debian's 6.1.192, pkey_mprotect() splitting a hugetlb
# VMA reaches hugetlb_split(), which the stable backport calls before
# __vma_adjust() takes i_mmap_rwsem, and lockdep WARNs (a base-kernel
# bug, not PKS).  The selftest skips hugetlb when it cannot confirm the
# huge pages it asked for; the read-only "0" below is what it then reads.
pku_selftest() {
	local out rc=0 nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	echo 0 >/tmp/no-hugepages
	mountpoint -q "$nr" || mount --bind -o ro /tmp/no-hugepages "$nr" || return 1
	out=$("$GUEST_BIN/protection_keys" 2>&1) || rc=$?
	umount "$nr"
	echo "$out" | tail -n 5
	[ "$rc" = 0 ] && grep -q '^done (all tests OK)$' <<<"$out" &&
		[ "$(grep -c 'PASSED' <<<"$out")" -ge 10 ]
}

# Physical address (hex, no 0x) of namespace0.0, from /proc/iomem.
ns_phys() {
	local start
	start=$(awk -F' : ' '/namespace0\.0/ { split($1, r, "-"); gsub(/ /, "", r[1]); print r[1]; exit }' /proc/iomem)
	[ -n "$start" ] && echo "$start"
}

# ns_mode MODE [MAP]: reconfigure namespace0.0 (fsdax/devdax, map mem/dev).
ns_mode() {
	local map=()
	[ -n "${2:-}" ] && map=(--map="$2")
	ndctl create-namespace -f -e namespace0.0 --mode="$1" --align=2M "${map[@]}" >/dev/null
}

# Sub-dividing the region into several namespaces needs a label area.
ns_split_region() {
	{
		ndctl destroy-namespace -f all && ndctl disable-region all &&
			ndctl init-labels -f all && ndctl enable-region all
	} >/dev/null 2>&1
}

# make_ns MODE SIZE: create a namespace, print its device name (pmem0.1,
# dax0.2) and the namespace's name
make_ns() {
	ndctl create-namespace -r region0 -m "$1" -s "$2" --align=2M |
		python3 -c 'import json, sys
ns = json.load(sys.stdin)
print(ns.get("blockdev") or ns["daxregion"]["devices"][0]["chardev"], ns["dev"])'
}
ns_start() {	# NAMESPACE: its physical start (hex) from /proc/iomem
	awk -F' : ' -v ns="$1" '$2 == ns { split($1, r, "-"); gsub(/ /, "", r[1]); print r[1]; exit }' /proc/iomem
}

# The device-memory checks the series carries (lib/pks/dev_access_test.c:
# inject, nest, kmap), and the project's own hooks for everything else
# (tests/hooks/pks_hooks.c, out of tree: workloads, benchmarks,
# provocations), loaded here wherever the kernel's own exist, so that a
# script can use either at once, even after a suspend has taken the 9p
# root away.  Loading it taints the kernel O (out of tree): vm/run.sh
# allows that taint, and only that module can cause it.
HOOK=$DBG/pks_dev_access
HOOKS=/sys/kernel/debug/pks_hooks
if [ -e "$HOOK" ] && [ ! -e "$HOOKS" ]; then
	insmod "${PKS_GUEST_HOOKS_KO:-$(dirname "$GUEST_BIN")/hooks/pks_hooks.ko}" ||
		echo "# pks_hooks.ko did not load: the hooks' commands will fail"
fi

# Injection target: 16 MiB at 64 MiB into the namespace, past the pfn
# info block and any memmap reserved on the device.
inj_phys() { printf '%x' $((0x$(ns_phys) + (64 << 20))); }
INJ_LEN=1000000	# hex: 16 MiB
INJ_N=200

hook_file() {	# VERB: the file that takes it: the series' checks or tests/hooks
	case "$1" in inject | nest | kmap) echo "$HOOK" ;; *) echo "$HOOKS" ;; esac
}
hook() {	# COMMAND...: run a test-hook command, print its result
	local file
	file=$(hook_file "$1")
	echo "$*" >"$file" && cat "$file"
}

# Checksum of the first 96 MiB of a device (devdax only supports mmap).
dev_crc() {
	case "$1" in
	/dev/dax*)
		python3 -c 'import mmap, os, sys, zlib
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 96 << 20, prot=mmap.PROT_READ)
print(zlib.crc32(m[:]))' "$1" ;;
	*) dd if="$1" bs=1M count=96 2>/dev/null | cksum ;;
	esac
}
