#!/usr/bin/env bash
# Build tests/module/kmap_nongpl.ko, a non-GPL out-of-tree module that
# uses the kmap family, against our kernel (build/kobj), in build/module:
# modpost fails if kmap*() reaches a GPL-only symbol.  The guest suite
# tests/guest/module.sh loads it.
set -euo pipefail
. "$(dirname "$0")/../../kernel/lib.sh"

out=$BUILD/module
rm -rf "$out"
mkdir -p "$out"
cp "$ROOT/tests/module/Kbuild" "$ROOT/tests/module/kmap_nongpl.c" "$out/"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
make -s -C "$KSRC" O="$KOBJ" CC="ccache gcc" M="$out" modules
modinfo -F license "$out/kmap_nongpl.ko" | grep -qx Proprietary ||
	die "kmap_nongpl.ko does not say it is non-GPL"
echo "built $out/kmap_nongpl.ko (license: Proprietary)"
