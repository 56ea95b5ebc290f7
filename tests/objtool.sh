#!/usr/bin/env bash
# objtool's noinstr and uaccess validation on the linked vmlinux.o.  The
# default config does not run it (it comes with CONFIG_DEBUG_ENTRY), and
# the PKS entry hooks are exactly the code it checks: any call out of a
# noinstr section, or any instrumentation, shows up here as a warning.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

KOBJ=${PKS_KOBJ:-$KOBJ}
objtool=$KOBJ/tools/objtool/objtool
[ -x "$objtool" ] && [ -f "$KOBJ/vmlinux.o" ] || die "no objtool or vmlinux.o in $KOBJ: build the kernel first"
out=$("$objtool" --noinstr --uaccess --link --dry-run "$KOBJ/vmlinux.o" 2>&1) || true
if grep -q 'warning' <<<"$out"; then
	echo "$out" | head -n 40
	exit 1
fi
echo "objtool --noinstr --uaccess --link: no warnings on vmlinux.o"
