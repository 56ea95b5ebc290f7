#!/usr/bin/env bash
# Make build/linux a git tree of Debian's linux-source-6.1 with our series
# applied. Only the patches from the first one that changed are re-applied,
# so files untouched by the change keep their timestamps and the next build
# stays incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -r "$TARBALL" ] || die "$TARBALL missing: apt-get install linux-source-6.1"
tarball_id=$(stat -c '%s %Y' "$TARBALL")

unpack() {
	echo "tree: unpacking $TARBALL"
	rm -rf "$KSRC" "$BUILD/linux-source-6.1"
	mkdir -p "$BUILD"
	tar -C "$BUILD" -xf "$TARBALL"
	mv "$BUILD/linux-source-6.1" "$KSRC"
	# Debian appends "ignore everything at the top level" for its packaging
	# repository; that would hide new files from git add in our tree.
	sed -i '/^# Debian packaging/,$d' "$KSRC/.gitignore"
	sed -i '${/^#$/d}' "$KSRC/.gitignore"
	git -C "$KSRC" init -q
	git -C "$KSRC" config user.name "PKS series"
	git -C "$KSRC" config user.email "pks@localhost"
	# An auto gc of 70k new objects would compete with the build for the CPUs.
	git -C "$KSRC" config gc.auto 0
	git -C "$KSRC" add -A
	local ver
	ver=$(make -s -C "$KSRC" kernelversion)
	git -C "$KSRC" commit -q -m "Linux $ver (Debian linux-source-6.1)"
	git -C "$KSRC" tag -f base >/dev/null
	echo "$tarball_id" >"$KSRC/.git/pks-tarball"
	: >"$APPLIED"
}

if [ ! -d "$KSRC/.git" ] || [ "$(cat "$KSRC/.git/pks-tarball" 2>/dev/null)" != "$tarball_id" ]; then
	unpack
fi

mapfile -t want < <(series)
mapfile -t have <"$APPLIED"
ncommits=$(git -C "$KSRC" rev-list --count base..HEAD)

if [ "$ncommits" != "${#have[@]}" ] || ! git -C "$KSRC" diff --quiet HEAD; then
	if [ "${PKS_FORCE:-0}" != 1 ]; then
		die "$KSRC has commits or edits not exported to kernel/patches; run kernel/export.sh, or PKS_FORCE=1 to discard them"
	fi
	have=()
	git -C "$KSRC" reset -q --hard base
fi

# First patch whose content differs from what is applied.
first=0
while [ "$first" -lt "${#want[@]}" ] && [ "$first" -lt "${#have[@]}" ] &&
	[ "$(sha256sum <"${want[$first]}")" = "${have[$first]}" ]; do
	first=$((first + 1))
done

if [ "$first" -eq "${#want[@]}" ] && [ "$first" -eq "${#have[@]}" ]; then
	echo "tree: ${#want[@]} patches applied, up to date"
	exit 0
fi

# Step back only to the last good patch: files that do not differ between
# HEAD and that commit keep their timestamps.
target=base
if [ "$first" -gt 0 ]; then
	target=$(git -C "$KSRC" rev-list --reverse base..HEAD | sed -n "${first}p")
fi
git -C "$KSRC" reset -q --hard "$target"
: >"$APPLIED.new"
[ "$first" -eq 0 ] || printf '%s\n' "${have[@]:0:$first}" >"$APPLIED.new"

for p in "${want[@]:$first}"; do
	if ! git -C "$KSRC" am -q --keep-cr "$p" >"$BUILD/am.log" 2>&1; then
		git -C "$KSRC" am --abort >/dev/null 2>&1 || true
		mv "$APPLIED.new" "$APPLIED"
		cat "$BUILD/am.log" >&2
		die "patch $(basename "$p") does not apply to $(make -s -C "$KSRC" kernelversion); rebase the series"
	fi
	sha256sum <"$p" >>"$APPLIED.new"
	echo "tree: applied $(basename "$p")"
done
mv "$APPLIED.new" "$APPLIED"
