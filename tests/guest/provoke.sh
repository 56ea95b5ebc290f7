#!/bin/bash
# provoke.sh unbalanced|lockdep|flush|leakuser|freedkey: make the kernel
# report a bug on purpose: a WARN (a device-memory window closed that was
# not open, watched by pksfault), a lockdep report, CONFIG_PKS_DEBUG's
# flush oracle (a write-back of protected pmem with no window), its
# exit-to-user check (a window left open on return to user space) or its
# check of key frees (a key freed while a thread has it open).  The script itself
# passes: the host checks that the harness fails the run anyway, on the
# kernel's report (tests/run.sh, must_fail_suite).
set -uo pipefail
SUITE=verdict-$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"

# A protected pgmap: without one, windows are no-ops.
check "fsdax namespace (a protected pgmap)" ns_mode fsdax mem
# Three closes of a window that was not open, under pksfault: the kernel
# warns on the first (the host fails the run on it) and counts all three;
# pksfault reports each with its closer and fails its gate.
unbalanced() {
	local counter=/sys/kernel/debug/dev_access/unbalanced_closes before after rc
	local pksfault=$ROOT/build/tools/pksfault out=/tmp/unbalanced
	local twice="echo unbalanced >$HOOKS; cat $HOOKS; echo unbalanced >$HOOKS; cat $HOOKS"
	before=$(cat "$counter")
	rc=0
	"$pksfault" --json -- sh -c "$twice" >"$out.json" 2>"$out.err" || rc=$?
	check "pksfault --json: 2 unbalanced_close records naming the closer, exit 1 (exit $rc)" \
		python3 - "$out.json" "$rc" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
recs = [d for d in docs if d.get("type") == "unbalanced_close"]
summ = [d for d in docs if d.get("type") == "summary"][-1]
print("# %d records, summary unbalanced_closes=%s verdict=%s" %
      (len(recs), summ.get("unbalanced_closes"), summ["verdict"]))
assert len(recs) == 2, recs
# The hook (run_unbalanced) may be inlined into its command's dispatch.
assert all(r["closed_by"].startswith(("run_unbalanced", "run_command", "pks_hooks_write")) and r["stack"]
           for r in recs), recs
assert summ["unbalanced_closes"] == 2 and summ["verdict"] == "found" and summ["exit"] == 1
assert sys.argv[2] == "1"
PY
	rc=0
	"$pksfault" -- sh -c "echo unbalanced >$HOOKS" >"$out.txt" 2>&1 || rc=$?
	sed 's/^/# /' "$out.txt" | grep -E 'UNBALANCED|result' || true
	check "pksfault text: an UNBALANCED line, 'result: FOUND ... 1 unbalanced closes', exit 1" \
		bash -c "[ $rc = 1 ] && grep -qE ' UNBALANCED .*closed_by=(run_unbalanced|run_command|pks_hooks_write)' '$out.txt' &&
			grep -q '^result: FOUND 0 faults, 0 leaks, 1 unbalanced closes' '$out.txt'"
	after=$(cat "$counter")
	check "debugfs unbalanced_closes counted all three ($before -> $after)" \
		test "$after" = $((before + 3))
	check "the depth never went below 0, the key stayed closed" \
		test "$(hook unbalanced)" = "unbalanced depth=0 closed=Y"
}

# CONFIG_PKS_DEBUG's check of key frees: run_pks '4' has a kernel thread
# hold the file's key open; closing the file frees the key under it.
freedkey() {
	exec 3<>"$DBG/run_pks"
	printf 4 >&3
	check "a kernel thread holds run_pks's key open" pgrep -x pks-key-holder
	exec 3>&-
	check "closing run_pks freed the key and stopped the holder" \
		bash -c '! pgrep -x pks-key-holder && ! grep -q "pks test file" '"$DBG/pks_keys_allocated"
}

case "$1" in
unbalanced) unbalanced; finish; exit ;;
freedkey) freedkey; finish; exit ;;
lockdep) cmd=$1 want="$1 done" ;;
flush) cmd="flush $(inj_phys)" want="flush done" ;;
leakuser) cmd=leakuser want="leakuser depth=1" ;;
*) echo "provoke.sh: unknown $1" >&2; exit 2 ;;
esac
check "hook '$cmd' ran" test "$(hook $cmd)" = "$want"
if [ "$1" = leakuser ]; then
	# Closed on the hook's own return to user space, in every build.
	check "the window left open was counted" test "$(cat $DBG/pks_leaks_closed)" = 1
	check "and closed: every CPU's PKRS is the default" pkrs_all_default
fi
finish
