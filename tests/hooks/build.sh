#!/usr/bin/env bash
# Build tests/hooks/pks_hooks.ko, the project's own device-memory test
# hooks (workloads, benchmarks, provocations), against our kernel
# (build/kobj), in build/hooks.  The guest scripts load it on first use
# (hook() in tests/guest/lib.sh).
set -euo pipefail
. "$(dirname "$0")/../../kernel/lib.sh"

ext_module "$BUILD/hooks" "$ROOT/tests/hooks"
echo "built $BUILD/hooks/pks_hooks.ko"
