#!/bin/bash
# provoke.sh warn|lockdep|flush|leakuser: make the kernel report a bug on
# purpose: a WARN, a lockdep report, CONFIG_PKS_DEBUG's flush oracle (a
# write-back of protected pmem with no window) or its exit-to-user check
# (a window left open on return to user space).  The script itself
# passes: the host checks that the harness fails the run anyway, on the
# kernel's report (tests/run.sh, must_fail_suite).
set -uo pipefail
SUITE=verdict-$1
. "$(dirname "$0")/lib.sh"

# A protected pgmap: without one, windows are no-ops.
check "fsdax namespace (a protected pgmap)" ns_mode fsdax mem
case "$1" in
warn | lockdep) cmd=$1 want="$1 done" ;;
flush) cmd="flush $(inj_phys)" want="flush done" ;;
leakuser) cmd=leakuser want="leakuser depth=1" ;;
*) echo "provoke.sh: unknown $1" >&2; exit 2 ;;
esac
check "hook '$cmd' ran" test "$(hook $cmd)" = "$want"
finish
