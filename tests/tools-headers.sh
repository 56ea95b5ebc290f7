#!/usr/bin/env bash
# The tools/ copies of the headers the series touches stay in step: every
# line the series adds to a header that has a copy under tools/ (x86's
# cpufeatures.h, disabled-features.h, msr-index.h) is in that copy too.
# Linux 6.1's copies already lag behind the kernel's; the series must not
# add to that.  One TAP line per header.
#   tests/tools-headers.sh [TREE]   (default: build/linux, the series applied)
#   PKS_TOOLS_COPIES=DIR reads the copies from DIR instead of TREE/tools.
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

tree=${1:-$KSRC}
copies=${PKS_TOOLS_COPIES:-$tree/tools}
n=0
while read -r f; do
	[ -f "$tree/tools/$f" ] || continue	# has a copy upstream
	n=$((n + 1))
	# Added lines, blank ones and the ones it only re-wraps aside.
	missing=$(git -C "$tree" diff -U0 base..HEAD -- "$f" | sed -n 's/^+\([^+].*\)$/\1/p' |
		while IFS= read -r line; do
			[ -n "${line//[[:space:]]/}" ] || continue
			grep -qxF -- "$line" "$copies/$f" 2>/dev/null || echo "$line"
		done)
	if [ -z "$missing" ]; then
		tap_ok "tools-headers: tools/$f has every line the series adds to $f"
	else
		tap_not_ok "tools-headers: tools/$f lacks lines the series adds to $f"
		sed 's/^/#   /' <<<"$missing" | head -n 10
	fi
done < <(git -C "$tree" diff --name-only base..HEAD -- 'arch/*.h' 'include/*.h')
[ "$n" -gt 0 ] || tap_not_ok "tools-headers: the series touches no header with a tools copy (is the tree applied?)"
tap_summary
