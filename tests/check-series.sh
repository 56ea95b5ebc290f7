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
# The end of the core part: the commit before the first one that touches
# mm/memremap.c (device-memory protection builds on the core from there).
core_end=$(git -C "$KSRC" rev-list --reverse base..HEAD -- mm/memremap.c | head -n 1)
[ -n "$core_end" ] && core_end=$(git -C "$KSRC" rev-parse "$core_end^")
# Every commit in both configs, then one boot of the test kernel there
# (the end of the series boots in every make test).
steps=$((2 * commits + 1))

# A run stopped early (the session ended, the machine was needed) resumes
# after the last step its record says passed, for the same series: the
# steps are in order, and a passed step never needs building again.
# PKS_CHECK_SERIES_RESTART=1 starts over.
skip=0 earlier=0
if [ "${PKS_CHECK_SERIES_RESTART:-0}" != 1 ] && [ -r "$BISECT_RESULT" ] &&
	grep -qx "series: $(series_id)" "$BISECT_RESULT" && ! grep -q '^failed: ' "$BISECT_RESULT"; then
	skip=$(sed -n 's/^steps passed in order: \([0-9]*\)$/\1/p' "$BISECT_RESULT")
	skip=${skip:-0}
	earlier=$(sed -n 's/^seconds so far: \([0-9]*\)$/\1/p' "$BISECT_RESULT")
	earlier=${earlier:-0}
	[ "$skip" = 0 ] || echo "# check-series: resuming after step $skip of $steps (recorded)"
fi

# The record make test reports (tests/run.sh): commit it with the series.
# Rewritten after every step, so that a run stopped early says how far
# it got (on this machine the whole run takes hours).
record() {
	local done=$((TEST_PASSED + TEST_FAILED))
	{
		echo "series: $(series_id)"
		echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
		echo "commits: $commits, configs: pks nopks;" \
			"boot: the test kernel at the end of the core part ($(git -C "$KSRC" log -1 --format='%h %s' "$core_end"))"
		echo "result: $((skip + TEST_PASSED)) passed, $TEST_FAILED failed, in $((earlier + $(date +%s) - start)) s" \
			"$([ "$((skip + done))" -lt "$steps" ] && echo "(stopped after $((skip + done)) of $steps steps)")"
		echo "steps passed in order: $((TEST_FAILED ? skip + first_fail : skip + done))"
		echo "seconds so far: $((earlier + $(date +%s) - start))"
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
n=0 first_fail=0
for c in $(git -C "$KSRC" rev-list --reverse base..HEAD); do
	subj=$(git -C "$KSRC" log -1 --format=%s "$c")
	for cfg in pks nopks; do
		n=$((n + 1))
		[ "$n" -gt "$skip" ] || continue
		git -C "$wt" checkout -q --detach "$c"
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
			{ [ "$TEST_FAILED" -gt 1 ] || first_fail=$((TEST_PASSED)); failed+=("$cfg: $subj"); }
		record
	done
done
# The test kernel (make test's config) at the end of the core part, booted
# with the core suite: the core stands alone before device memory uses it.
# Its own worktree and objects, so that the steps above, which check out
# every commit, do not make it rebuild from scratch each night.
plan_load
core_wt=$BUILD/series-core
core_obj=$BUILD/series-obj-core
core_boot() {
	[ -n "$core_end" ] || { echo "no commit touches mm/memremap.c: where does the core part end?"; return 1; }
	if [ ! -e "$core_wt/.git" ]; then
		rm -rf "$core_wt"
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$core_wt" "$core_end" || return 1
	fi
	git -C "$core_wt" checkout -q --detach "$core_end" &&
		PKS_KSRC=$core_wt PKS_KOBJ=$core_obj "$ROOT/kernel/build.sh" &&
		PKS_KSRC=$core_wt PKS_GUEST_BIN=$core_obj/guest "$ROOT/tests/build-guest-bins.sh" &&
		PKS_KERNEL=$core_obj/arch/x86/boot/bzImage PKS_GUEST_BIN=$core_obj/guest PKS_GUEST_CORE_PART=1 \
			"$ROOT/vm/run.sh" --kernel-fault-mode --timeout 600 --log "$core_obj/core.log" \
			--append pks-test-on-boot "$ROOT/tests/guest/core.sh" &&
		[ "$(grep -c '^ok - core:' "$core_obj/core.log")" = "${PLAN[core]}" ] &&
		! grep -q '^not ok' "$core_obj/core.log"
}
n=$((n + 1))
if [ "$n" -gt "$skip" ]; then
	tap_run "boots at the end of the core part, core suite passes" series-core-boot core_boot ||
		{ [ "$TEST_FAILED" -gt 1 ] || first_fail=$((TEST_PASSED)); failed+=("boot at the end of the core part"); }
	record
fi
tap_summary
