#!/usr/bin/env bash
# make stress: one guest run of tests/guest/stress.sh, bounded: the load
# runs PKS_GUEST_STRESS_SECONDS (240 by default), the whole run at most 10
# minutes.  PKS_KERNEL=... runs it on another kernel (tests/debug.sh).
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

img=$BUILD/vm/stress.img
rm -f "$img"
GUEST_TIMEOUT=600 guest_suite "${STRESS_NAME:-stress}" "--pmem $img" "$ROOT/tests/guest/stress.sh"
rm -f "$img"
grep '^# ' "$LOGS/guest-${STRESS_NAME:-stress}.log" | grep -v 'failed$' || true
tap_summary
