#!/usr/bin/env bash
# Build tests/hooks/pks_hooks.ko, the project's own device-memory test
# hooks (workloads, benchmarks, provocations), against our kernel: the
# test kernel (build/kobj) into build/hooks, or the kernel in PKS_KOBJ
# into build/hooks-<its directory's name> (make bench: hooks-kobj-bench).
# A module must be built against the kernel it loads into: the two
# kernels' structures differ (lockdep), and without MODVERSIONS nothing
# would refuse the wrong one.  The guest scripts load it on first use
# (hook() in tests/guest/lib.sh; PKS_GUEST_HOOKS_KO names another).
set -euo pipefail
. "$(dirname "$0")/../../kernel/lib.sh"

out=$BUILD/hooks
if [ -n "${PKS_KOBJ:-}" ] && [ "$PKS_KOBJ" != "$KOBJ" ]; then
	KOBJ=$PKS_KOBJ
	out=$BUILD/hooks-$(basename "$KOBJ")
fi
ext_module "$out" "$ROOT/tests/hooks"
echo "built $out/pks_hooks.ko"
