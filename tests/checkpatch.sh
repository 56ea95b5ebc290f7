#!/usr/bin/env bash
# checkpatch.pl --strict on every patch of the series, from the patched
# tree's own script.  Prints one line per patch:
#   PATCH errors=E warnings=W checks=C
# and exits non-zero if any patch has an error.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

[ -x "$KSRC/scripts/checkpatch.pl" ] || die "no kernel tree; run kernel/tree.sh"
status=0
while read -r p; do
	# New files always trigger "does MAINTAINERS need updating?".
	out=$(cd "$KSRC" && ./scripts/checkpatch.pl --strict --terse --no-summary \
		--ignore FILE_PATH_CHANGES "$p" 2>&1 || true)
	e=$(grep -c ': ERROR:' <<<"$out" || true)
	w=$(grep -c ': WARNING:' <<<"$out" || true)
	c=$(grep -c ': CHECK:' <<<"$out" || true)
	echo "$(basename "$p") errors=$e warnings=$w checks=$c"
	if [ "$e" != 0 ] || [ -n "${VERBOSE:-}" ]; then
		grep -E ': (ERROR|WARNING|CHECK):' <<<"$out" | sed 's/^/    /' || true
	fi
	[ "$e" = 0 ] || status=1
done < <(series)
exit $status
