#!/bin/bash
# pkstop for `make run`: a short, known workload and two pkstop screens.
# vm/demo.sh can either run this script or source it and call demo_pkstop
# (it needs only DBG from tests/guest/lib.sh, and works without pmem: the
# workload kthreads touch no device memory).
#   demo-pkstop.sh            (as a guest script)
#   . tests/guest/demo-pkstop.sh; demo_pkstop

demo_pkstop() {
	local root pkstop hook
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	pkstop=${PKSTOP:-$root/build/tools/pkstop}
	hook=/sys/kernel/debug/pks_hooks	# the project's hooks (tests/hooks)
	printf '\n=== %s\n' "pkstop: protection keys per thread (build/tools/pkstop)"
	if [ ! -x "$pkstop" ]; then
		echo "(pkstop not built: make -C pkstop)"
		return 0
	fi
	[ -e "$hook" ] || [ ! -e /sys/kernel/debug/x86/pks_dev_access ] ||
		insmod "$root/build/hooks/pks_hooks.ko" || true
	if [ -e "$hook" ]; then
		# A thread opening 3 nested windows 100 times a second, and one
		# that opens a window and sleeps on it (a leak) for 4 s.
		echo "windows 3 100 3" >"$hook" && echo "  $(cat "$hook")"
		echo "leak 4000" >"$hook" && echo "  $(cat "$hook")"
	else
		echo "  (no test hook: PKS or device-memory protection is off; pkstop still runs)"
	fi
	"$pkstop" -b -r 8 1 2 | sed 's/^/  /'
	echo "  (pkstop --json prints the same as one JSON document per interval)"
}

# Run directly (not sourced): show it.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -uo pipefail
	demo_pkstop
fi
