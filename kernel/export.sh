#!/usr/bin/env bash
# Export the series (commits after the "base" tag) from the kernel tree to
# kernel/patches/, with a cover letter built from kernel/cover-letter.txt.
# Usage: kernel/export.sh [TREE]   (default: build/linux)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tree=${1:-$KSRC}
cover=$ROOT/kernel/cover-letter.txt
[ -d "$tree/.git" ] || [ -f "$tree/.git" ] || die "$tree is not a git tree"
[ -r "$cover" ] || die "$cover missing"
git -C "$tree" diff --quiet HEAD || die "$tree has uncommitted changes"

rm -f "$PATCHES"/*.patch
mkdir -p "$PATCHES"
# --zero-commit and --no-signature keep re-exports of an unchanged series
# byte-identical, so git diff shows only real changes; so does a fixed
# abbreviation length (git picks one from the object count otherwise).
git -C "$tree" -c core.abbrev=9 format-patch -q --cover-letter --zero-commit --no-signature \
	--subject-prefix="RFC PATCH pks-6.1" -o "$PATCHES" base..HEAD

cover_patch=$(ls "$PATCHES"/0000-cover-letter.patch)
python3 - "$cover_patch" "$cover" "$(git -C "$tree" log -1 --format=%aD)" <<'PY'
import sys
path, cover, date = sys.argv[1:]
subject, _, blurb = open(cover).read().partition("\n")
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip())
text = text.replace("*** BLURB HERE ***", blurb.strip("\n"))
# The cover letter's date would otherwise change on every export.
lines = text.split("\n")
lines = [("Date: " + date) if l.startswith("Date: ") else l for l in lines]
open(path, "w").write("\n".join(lines))
PY

# If we exported the build tree, it now matches the patches exactly.
if [ "$(cd "$tree" && pwd)" = "$KSRC" ]; then
	series | while read -r p; do sha256sum <"$p"; done >"$APPLIED"
fi
echo "export: $(series | wc -l) patches + cover letter in $PATCHES"
