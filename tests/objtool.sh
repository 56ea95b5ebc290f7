#!/usr/bin/env bash
# objtool's noinstr and uaccess validation on the linked vmlinux.o.  The
# default config does not run it (it comes with CONFIG_DEBUG_ENTRY), and
# the PKS entry hooks are exactly the code it checks: any call out of a
# noinstr section, or any instrumentation, shows up here as a warning.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

KOBJ=${PKS_KOBJ:-$KOBJ}
objtool=${OBJTOOL:-$KOBJ/tools/objtool/objtool}
vmlinux_o=${VMLINUX_O:-$KOBJ/vmlinux.o}
[ -x "$objtool" ] && [ -f "$vmlinux_o" ] || die "no objtool or vmlinux.o in $KOBJ: build the kernel first"
# Clean means: objtool ran to the end (status 0: a crash or a refusal is
# not a pass) and said nothing (6.1's objtool warns with status 0).
rc=0
out=$("$objtool" --noinstr --uaccess --link --dry-run "$vmlinux_o" 2>&1) || rc=$?
if [ "$rc" != 0 ] || [ -n "$out" ]; then
	echo "objtool exited $rc on $vmlinux_o:"
	echo "$out" | head -n 40
	exit 1
fi
echo "objtool --noinstr --uaccess --link: exit 0, no warnings on $vmlinux_o"
