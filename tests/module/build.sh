#!/usr/bin/env bash
# Build tests/module/kmap_nongpl.ko, a non-GPL out-of-tree module that
# uses the kmap family, against our kernel (build/kobj), in build/module:
# modpost fails if kmap*() reaches a GPL-only symbol.  The guest suite
# tests/guest/module.sh loads it.
set -euo pipefail
. "$(dirname "$0")/../../kernel/lib.sh"

ext_module "$BUILD/module" "$ROOT/tests/module"
modinfo -F license "$BUILD/module/kmap_nongpl.ko" | grep -qx Proprietary ||
	die "kmap_nongpl.ko does not say it is non-GPL"
echo "built $BUILD/module/kmap_nongpl.ko (license: Proprietary)"

# The check can fail: the same module with kmap_local_page() calling the
# GPL-only window API, as the inlines did before, must be refused.
old=$BUILD/module-old-inlines
if ext_module "$old" "$ROOT/tests/module" 'ccflags-y := -DKMAP_NONGPL_OLD_INLINES' >"$BUILD/module-old.log" 2>&1; then
	die "modpost accepted a non-GPL module calling dev_access_enable()"
fi
grep -q "GPL-incompatible module kmap_nongpl.ko uses GPL-only symbol 'dev_access_enable'" "$BUILD/module-old.log" ||
	{ cat "$BUILD/module-old.log" >&2; die "the old-inlines variant failed for another reason"; }
echo "refused, as it must be: the variant calling the GPL-only dev_access_enable() (modpost)"
