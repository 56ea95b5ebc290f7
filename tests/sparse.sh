#!/usr/bin/env bash
# No new sparse warnings: every C file the series touches that the test
# kernel builds is checked with sparse (make C=2, the objects stay as they
# are), and a warning fails when it points at a line the series added or
# changed, in any file (a header's warning lands on its own line).
# Warnings on lines the series did not touch are Linux 6.1's own, shown
# as a count.  TAP lines; runs after the kernel build.
#   tests/sparse.sh [SPARSE-LOG]: with a log, only filter it (the host
#   test of the filter feeds it made-up warnings).
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

# Lines the series added or changed, "path:line" one per line.
changed_lines() {
	git -C "$KSRC" diff -U0 base..HEAD | awk '
		/^\+\+\+ b\// { file = substr($0, 7); next }
		/^@@ / {
			split($3, a, ",")	# +START[,COUNT]
			start = substr(a[1], 2); count = (a[2] == "" ? 1 : a[2])
			for (i = 0; i < count; i++) print file ":" start + i
		}'
}

# new_warnings LOG: the warnings of LOG on changed lines.  Paths in the
# log are relative to the source tree or absolute under it.
new_warnings() {
	awk -v src="$KSRC/" 'NR == FNR { changed[$0] = 1; next }
		/: (warning|error):/ {
			split($0, f, ":"); path = f[1]; sub("^" src, "", path); sub(/^\.\.\/linux\//, "", path)
			if ((path ":" f[2]) in changed) print
		}' <(changed_lines) "$1" | sort -u
}

report() {	# LOG FILES-CHECKED
	local new all
	new=$(new_warnings "$1")
	all=$(grep -cE ': (warning|error):' "$1")
	if [ -z "$new" ]; then
		tap_ok "sparse: no warnings on the series' lines in $2 files ($all on Linux 6.1's own lines)"
	else
		tap_not_ok "sparse: warnings on the series' lines (log: $1)"
		sed 's/^/#   /' <<<"$new" | head -n 20
	fi
}

if [ $# = 1 ]; then
	report "$1" "the given"
	tap_summary
	exit
fi

command -v sparse >/dev/null || { tap_not_ok "sparse: not installed (make deps)"; tap_summary; exit 1; }
[ -f "$KOBJ/vmlinux" ] || { tap_not_ok "sparse: no built kernel in $KOBJ"; tap_summary; exit 1; }
log=$LOGS/sparse.log
mapfile -t objs < <(git -C "$KSRC" diff --name-only --diff-filter=AM base..HEAD -- '*.c' |
	sed 's/\.c$/.o/' | while read -r o; do [ -f "$KOBJ/$o" ] && echo "$o"; done)
# The build's own make variables (kernel/build.sh), so that no object is
# out of date and only sparse runs.
make -C "$KSRC" O="$KOBJ" CC="ccache gcc" C=2 "${objs[@]}" >"$log" 2>&1 ||
	{ tap_not_ok "sparse: make C=2 failed (log: $log)"; tap_summary; exit 1; }
report "$log" "${#objs[@]}"
tap_summary
