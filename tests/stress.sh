#!/usr/bin/env bash
# make stress: one guest run of tests/guest/stress.sh, bounded: the load
# runs PKS_GUEST_STRESS_SECONDS (240 by default), the whole run at most 10
# minutes.  PKS_KERNEL=... runs it on another kernel.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
. "$ROOT/tests/lib.sh"

plan_load
img=$BUILD/vm/stress.img
rm -f "$img"
PKS_GUEST_STRESS_SECONDS=${PKS_GUEST_STRESS_SECONDS:-240} GUEST_TIMEOUT=600 \
	guest_suite stress "--pmem $img" "$ROOT/tests/guest/stress.sh"
rm -f "$img"
grep '^# ' "$LOGS/guest-stress.log" | grep -v 'failed$' || true
tap_summary
