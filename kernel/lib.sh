# shellcheck shell=bash
# Paths and helpers shared by the kernel scripts. Sourced, never run.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${PKS_BUILD_DIR:-$ROOT/build}
KSRC=$BUILD/linux            # git tree: Debian's source + our patches
KOBJ=$BUILD/kobj             # out-of-tree objects, .config, vmlinux, bzImage
PATCHES=${PKS_PATCHES:-$ROOT/kernel/patches}
TARBALL=${PKS_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
APPLIED=$KSRC/.git/pks-applied   # sha256 of each patch applied, in order

die() {
	echo "error: $*" >&2
	exit 1
}

# The series, in order, without the cover letter.
series() {
	find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | sort
}

# A short name for this version of the series: its patches' hash.
series_id() {
	series | xargs cat | sha256sum | cut -c1-16
}

# The last `make check-series` result, committed so a fresh clone's
# make test can tell whether it covers the series it tests.
BISECT_RESULT=${PKS_BISECT_RESULT:-$ROOT/tests/check-series.last}

# ext_module OUT SRCDIR [EXTRA_KBUILD_LINE]: build the out-of-tree module
# in SRCDIR (its Kbuild and *.c) against our kernel, in OUT (wiped first).
# modules_prepare first: bzImage alone leaves out what external modules
# link with (the module linker script, modpost's helpers); a few seconds
# on a built tree.
ext_module() {
	local out=$1 src=$2
	rm -rf "$out"
	mkdir -p "$out"
	cp "$src/Kbuild" "$src"/*.c "$out/"
	[ -z "${3:-}" ] || echo "$3" >>"$out/Kbuild"
	export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
	make -s -C "$KSRC" O="$KOBJ" CC="ccache gcc" modules_prepare
	make -s -C "$KSRC" O="$KOBJ" CC="ccache gcc" M="$out" modules
}
