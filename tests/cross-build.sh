#!/usr/bin/env bash
# No regressions outside x86 PKS: the generic files the series touches,
# and the ones that include <linux/pkeys.h>, compile without a warning
# for mips64el and arm64 (Debian's cross compilers, their defconfigs plus
# kernel/config/cross/common.config) and for x86_64 with protection keys
# off.  Each file the configuration builds is compiled on its own (make
# path/file.o), so a warning from a header lands on the file that sees it.
# TAP lines; one check per architecture.  One job at a time: make test
# runs this beside the guest suites, whose QEMU needs the other CPU.
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
CONFIGS=$ROOT/kernel/config/cross

# object	the option that builds it ("y": always)
FILES="
mm/mmap.o		y
mm/mprotect.o		CONFIG_MMU
fs/proc/task_mmu.o	CONFIG_PROC_FS
mm/highmem.o		y
lib/iov_iter.o		y
kernel/fork.o		y
kernel/softirq.o	y
kernel/entry/common.o	CONFIG_GENERIC_ENTRY
kernel/dma/swiotlb.o	CONFIG_SWIOTLB
mm/memremap.o		CONFIG_ZONE_DEVICE
fs/dax.o		CONFIG_FS_DAX
drivers/dax/super.o	CONFIG_DAX
drivers/nvdimm/pmem.o	CONFIG_BLK_DEV_PMEM
drivers/md/dm-writecache.o CONFIG_DM_WRITECACHE
"

# cross NAME ARCH CROSS_COMPILE DEFCONFIG [FRAGMENT]
cross() {
	local name=$1 arch=$2 cc=$3 defconfig=$4 extra=${5:-} obj=$BUILD/cross-$1
	local objs=() off=() o opt log=$BUILD/logs/cross-$1.log
	mkdir -p "$obj" "$BUILD/logs"
	k() { make -s -C "$KSRC" O="$obj" ARCH="$arch" CROSS_COMPILE="$cc" "$@"; }
	{
		k "$defconfig" &&
			KCONFIG_CONFIG="$obj/.config" "$KSRC/scripts/kconfig/merge_config.sh" -m \
				-O "$obj" "$obj/.config" "$CONFIGS/common.config" $extra >/dev/null &&
			k olddefconfig &&
			k CC="ccache ${cc}gcc" prepare
	} >"$log" 2>&1 || { tap_not_ok "$name: configure and prepare (log: $log)"; return; }
	while read -r o opt; do
		[ -n "$o" ] || continue
		if [ "$opt" = y ] || grep -q "^$opt=y" "$obj/.config"; then
			objs+=("$o")
		else
			off+=("$o")
		fi
	done <<<"$FILES"
	# Always recompile: a warning must show on every run, not only the first.
	rm -f "${objs[@]/#/$obj/}"
	k CC="ccache ${cc}gcc" "${objs[@]}" >>"$log" 2>&1
	local rc=$?
	if [ "$rc" = 0 ] && ! grep -qE '(warning|error):' "$log"; then
		tap_ok "$name: ${#objs[@]} files build without warnings"
	else
		tap_not_ok "$name: ${#objs[@]} files build without warnings (log: $log)"
		grep -E -A3 '(warning|error):' "$log" | head -n 20 | sed 's/^/#   /'
	fi
	echo "#   $name: built ${objs[*]}"
	[ ${#off[@]} = 0 ] || echo "#   $name: not in this configuration: ${off[*]}"
}

"$ROOT/kernel/tree.sh" >/dev/null || { tap_not_ok "kernel tree"; exit 1; }
cross mips64el mips mips64el-linux-gnuabi64- 64r2el_defconfig
cross arm64 arm64 aarch64-linux-gnu- defconfig
cross x86_64-nopks x86 "" x86_64_defconfig "$CONFIGS/x86_64-nopks.config"
tap_summary
