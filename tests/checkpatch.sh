#!/usr/bin/env bash
# checkpatch.pl --strict on every patch of the series, from the patched
# tree's own script.  One TAP line per patch: it passes with no error and
# with exactly the warnings and checks that tests/checkpatch-allowed lists
# for it, each with the reason it stays.  A new one, or one that is gone
# but still listed, fails: the list must say what the series really is.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

allowed=${CHECKPATCH_ALLOWED:-$ROOT/tests/checkpatch-allowed}
[ -x "$KSRC/scripts/checkpatch.pl" ] || die "no kernel tree; run kernel/tree.sh"
[ -r "$allowed" ] || die "no $allowed"

# "COUNT KIND: message" lines of one patch, sorted.
found() {
	(cd "$KSRC" && ./scripts/checkpatch.pl --strict --terse --no-summary \
		--ignore FILE_PATH_CHANGES "$1" 2>&1 || true) |
		sed -n 's/^[^:]*:[0-9]*: \(ERROR\|WARNING\|CHECK\): /\1: /p' | sort | uniq -c |
		sed 's/^ *//' | sort
}
# The same for what the list allows the patch, whatever its number.
listed() {
	awk -F' [|] ' -v p="$1" '!/^#/ && $1 == p { print $2 " " $3 }' "$allowed" | sort
}

while read -r p; do
	name=$(basename "$p" .patch)
	slug=${name#[0-9][0-9][0-9][0-9]-}
	got=$(found "$p")
	want=$(listed "$slug")
	if [ "$got" = "$want" ] && ! grep -q ' ERROR: ' <<<" $got"; then
		echo "ok - checkpatch --strict: $name ($(grep -c . <<<"$got" || true) kinds of warning/check, all listed)"
	else
		echo "not ok - checkpatch --strict: $name"
		{ diff <(echo "$want") <(echo "$got") || true; } | sed -n 's/^</#   listed, not found:/p; s/^>/#   found, not listed:/p'
	fi
done < <(series)
