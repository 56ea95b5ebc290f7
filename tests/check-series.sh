#!/usr/bin/env bash
# Bisectability: build every commit of the series on its own, with and
# without protection keys, on a small config (tinyconfig + a fragment) so
# that each commit builds in minutes (the whole series takes hours
# here: a nightly job, whose last result make test reports).  Uses its
# own worktree and object directories; the main build is not touched.
set -uo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

"$ROOT/kernel/tree.sh" >/dev/null || exit 1
wt=$BUILD/series-check
if [ ! -e "$wt/.git" ]; then
	rm -rf "$wt"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$wt" base
fi
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
failed=()
start=$(date +%s)
commits=$(git -C "$KSRC" rev-list --count base..HEAD)
steps=$((2 * commits))

# The record make test reports (tests/run.sh): commit it with the series.
# Rewritten after every step, so that a run stopped early says how far
# it got (on this machine the whole run takes hours).
record() {
	local done=$((TEST_PASSED + TEST_FAILED))
	{
		echo "series: $(series_id)"
		echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "commits: $commits, configs: pks nopks"
		echo "result: $TEST_PASSED passed, $TEST_FAILED failed, in $(($(date +%s) - start)) s" \
			"$([ "$done" -lt "$steps" ] && echo "(stopped after $done of $steps steps)")"
		for f in "${failed[@]}"; do
			echo "failed: $f"
		done
	} >"$BISECT_RESULT.tmp"
	mv "$BISECT_RESULT.tmp" "$BISECT_RESULT"
}

# A fragment option that Kconfig dropped (an unmet dependency) would
# leave that part of the series unbuilt while the step passes.  Options
# a commit does not know yet appear nowhere in its .config and are fine.
fragment_honoured() {	# OBJ FRAGMENT
	local line name want got
	while IFS= read -r line; do
		case $line in CONFIG_*=*) ;; *) continue ;; esac
		name=${line%%=*} want=${line#*=}
		got=$(grep -E "^(# )?$name[= ]" "$1/.config") || continue
		[ "$got" = "$line" ] || { [ "$want" = n ] && [ "$got" = "# $name is not set" ]; } ||
			{ echo "$name=$want dropped: $got"; return 1; }
	done <"$2"
}

# Commit by commit, both configs at each (separate object directories),
# so that a run stopped early has checked a prefix of the series fully.
for c in $(git -C "$KSRC" rev-list --reverse base..HEAD); do
	subj=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	for cfg in pks nopks; do
		obj=$BUILD/series-obj-$cfg
		frag=$ROOT/kernel/config/check/$cfg.config
		mkdir -p "$obj"
		step() {
			make -s -C "$wt" O="$obj" tinyconfig >/dev/null &&
				KCONFIG_CONFIG="$obj/.config" "$wt/scripts/kconfig/merge_config.sh" -m -O "$obj" \
					"$obj/.config" "$frag" >/dev/null &&
				make -s -C "$wt" O="$obj" olddefconfig &&
				fragment_honoured "$obj" "$frag" &&
				make -s -C "$wt" O="$obj" CC="ccache gcc" -j"$(nproc)" vmlinux
		}
		tap_run "$cfg config: builds at '$subj'" "series-$cfg-$(git -C "$KSRC" log -1 --format=%h "$c")" step ||
			failed+=("$cfg: $subj")
		record
	done
done
tap_summary
