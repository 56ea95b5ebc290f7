#!/usr/bin/env bash
# Host unit tests for pkstop: builds tests/host/pkstop_test.c with pkstop's
# pure sources and the shared helpers, runs it (TAP lines "ok - pkstop:
# ..."), validates its JSON with python3, and checks the harness can fail.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/build/tools/host-tests
mkdir -p "$OUT"
bin=$OUT/pkstop_test

ok() { echo "ok - pkstop: $*"; }
not_ok() { echo "not ok - pkstop: $*"; }

if ! gcc -O1 -g -Wall -Wextra -Wno-unused-parameter -Werror \
	-I"$ROOT/pkstop" -I"$ROOT/tools" -I"$ROOT/bpf" -o "$bin" \
	"$ROOT/tests/host/pkstop_test.c" "$ROOT/pkstop/opts.c" "$ROOT/pkstop/view.c" \
	"$ROOT/pkstop/account.c" "$ROOT/pkstop/openmetrics.c" "$ROOT/tools/pks_common.c" -lbpf -lm 2>"$OUT/build.log"; then
	not_ok "unit test builds (log: $OUT/build.log)"
	sed 's/^/#   /' "$OUT/build.log" | tail -n 20
	exit 1
fi
ok "unit test builds (-Wall -Wextra -Werror)"

rc=0
"$bin" || rc=$?

# Every JSON line must parse, and carry what the guest test relies on.
if "$bin" json | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    d = json.loads(line)
    for k in ("time", "interval_s", "pks", "keys", "totals", "drops", "threads"):
        assert k in d, k
    n += 1
assert n == 2, n
' 2>"$OUT/json.log"; then
	ok "JSON output parses with python3 (odd comm bytes escaped)"
else
	not_ok "JSON output parses with python3"
	sed 's/^/#   /' "$OUT/json.log"
	rc=1
fi

# A wrong expectation must come out as "not ok" and a non-zero status.
if out=$("$bin" selfcheck) || ! grep -q '^not ok - pkstop: selfcheck' <<<"$out"; then
	not_ok "a failing check is reported as not ok"
	rc=1
else
	ok "a failing check is reported as not ok (the tests can fail)"
fi
exit "$rc"
