#!/usr/bin/env bash
# Host test of kernel/tree.sh on a toy "linux-source" tarball: the series
# applies, a changed patch re-applies from that patch on only, and a patch
# that no longer applies stops with its name.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
LOGS=$t/logs
. "$ROOT/tests/lib.sh"
export PKS_BUILD_DIR=$t/build PKS_PATCHES=$t/patches PKS_LINUX_TARBALL=$t/linux-source-6.1.tar.xz

# A toy source tree with Debian's .gitignore tail, and a two-patch series.
src=$t/src/linux-source-6.1
mkdir -p "$src" "$PKS_PATCHES"
printf 'kernelversion:\n\t@echo 6.1.999\n' >"$src/Makefile"
printf 'a\nb\nc\n' >"$src/one.c"
printf 'x\ny\nz\n' >"$src/two.c"
printf '*.o\n#\n# Debian packaging: ignore everything at the top level\n#\n/*\n!/debian/\n' >"$src/.gitignore"
tar -C "$t/src" -cJf "$PKS_LINUX_TARBALL" linux-source-6.1
(
	cd "$t/src" && git init -q && git add -A -f && git -c user.name=t -c user.email=t@t commit -qm base &&
		sed -i 's/^b$/B/' linux-source-6.1/one.c && git -c user.name=t -c user.email=t@t commit -qam "one: B" &&
		sed -i 's/^y$/Y/' linux-source-6.1/two.c && git -c user.name=t -c user.email=t@t commit -qam "two: Y" &&
		git format-patch -q -p --relative=linux-source-6.1 -o "$PKS_PATCHES" HEAD~2
) || { tap_not_ok "tree.sh: toy series set up"; tap_summary; exit 1; }

tree() { "$ROOT/kernel/tree.sh" >"$t/out" 2>&1; }
ksrc=$PKS_BUILD_DIR/linux

if tree && [ "$(cat "$ksrc/one.c" "$ksrc/two.c" | tr -d '\n')" = aBcxYz ]; then
	tap_ok "tree.sh: unpacks, makes a git tree and applies the series"
else
	tap_not_ok "tree.sh: unpacks and applies the series"; cat "$t/out"
fi
touch "$ksrc/new.c"
if git -C "$ksrc" status --porcelain | grep -q '?? new.c'; then
	tap_ok "tree.sh: Debian's top-level ignore rule is dropped (new files are seen)"
else
	tap_not_ok "tree.sh: Debian's top-level ignore rule is dropped"
fi
rm -f "$ksrc/new.c"

touch -d '2000-01-01' "$ksrc/one.c"
sed -i 's/^+Y$/+YY/' "$PKS_PATCHES"/0002-*.patch
if tree && grep -q "applied 0002" "$t/out" && ! grep -q "applied 0001" "$t/out" &&
	[ "$(stat -c %Y "$ksrc/one.c")" = "$(date -d '2000-01-01' +%s)" ] && grep -qx YY "$ksrc/two.c"; then
	tap_ok "tree.sh: a changed patch re-applies from that patch on; other files keep their timestamps"
else
	tap_not_ok "tree.sh: incremental re-apply"; cat "$t/out"
fi

sed -i 's/^-y$/-nope/' "$PKS_PATCHES"/0002-*.patch
if ! tree && grep -q "patch 0002-two-Y.patch does not apply to 6.1.999" "$t/out"; then
	tap_ok "tree.sh: a patch that no longer applies stops the build, naming it"
else
	tap_not_ok "tree.sh: failing patch is named"; cat "$t/out"
fi

echo "dirty" >>"$ksrc/one.c"
if ! tree && grep -q "not exported" "$t/out"; then
	tap_ok "tree.sh: refuses to discard unexported edits in the tree"
else
	tap_not_ok "tree.sh: unexported edits are protected"; cat "$t/out"
fi
tap_summary
