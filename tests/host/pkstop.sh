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

# The sources pkstop links but its main, as pkstop/Makefile lists them.
read -r -a srcs < <(make -s --no-print-directory -C "$ROOT/pkstop" print-unit-srcs)
if ! gcc -O1 -g -Wall -Wextra -Wno-unused-parameter -Werror \
	-I"$ROOT/pkstop" -I"$ROOT/tools/lib" -I"$ROOT/bpf" -o "$bin" \
	"$ROOT/tests/host/pkstop_test.c" "${srcs[@]/#/$ROOT/}" -lbpf -lelf -lz -lm 2>"$OUT/build.log"; then
	not_ok "unit test builds (log: $OUT/build.log)"
	sed 's/^/#   /' "$OUT/build.log" | tail -n 20
	exit 1
fi
ok "unit test builds (-Wall -Wextra -Werror)"

rc=0
"$bin" || rc=$?

# Every JSON line must parse, and carry what the guest test relies on.
if "$bin" json | python3 -c '
import json, re, sys
n = 0
lines = sys.stdin.buffer.readlines()
# One dialect with pksfault: "type" then "schema" first, ISO 8601 UTC times.
summary = json.loads(lines.pop())
assert list(summary)[:2] == ["type", "schema"] and summary["type"] == "summary", summary
assert summary["schema"] == 2 and summary["intervals"] == 2, summary
assert summary["held_max"]["comm"] == "t12" and summary["held_max"]["held_s"] == 6.5, summary
assert summary["held_max"]["held_at_least"] and summary["depth_max"]["depth"] == 3, summary
assert summary["drops_total"] == {"all": 5, "map_full": 3, "missed": 2}, summary
for raw in lines:
    d = json.loads(raw.decode("utf-8"))  # strict: the output is valid UTF-8
    assert list(d)[:2] == ["type", "schema"] and d["type"] == "sample" and d["schema"] == 2, d
    assert d["time"] == "2023-11-14T22:13:20.000000Z", d["time"]
    # Counts of the interval under "interval"; since attach: a "_total" name.
    for k in ("time", "interval_s", "partial", "pks", "keys", "interval", "key_events_total",
              "drops_total", "threads"):
        assert k in d, k
    n += 1
    if n == 1:
        comms = [t["comm"] for t in d["threads"]]
        assert comms == ["t11", "caf\u00e9 \u009b\u00ff", "we\\ird\x01\"c"], comms
        assert b"caf\xc3\xa9 \\u009b\\u00ff" in raw, raw
assert n == 2, n
' 2>"$OUT/json.log"; then
	ok "JSON output parses with python3 (odd comm bytes escaped, UTF-8 kept; type, schema, ISO 8601 time; summary line)"
else
	not_ok "JSON output parses with python3"
	sed 's/^/#   /' "$OUT/json.log"
	rc=1
fi

# --prometheus writes the Prometheus text format 0.0.4: its own parser
# and linter (promtool, Debian's prometheus package) must take it whole.
if ! command -v promtool >/dev/null; then
	not_ok "metrics file passes promtool check metrics (promtool missing: apt-get install prometheus)"
	rc=1
elif "$bin" prom >"$OUT/pks.prom" && out=$(promtool check metrics <"$OUT/pks.prom" 2>&1); then
	ok "metrics file passes promtool check metrics (Prometheus text format 0.0.4, lint clean)"
else
	not_ok "metrics file passes promtool check metrics"
	printf '%s\n' "${out:-}" | sed 's/^/#   /'
	rc=1
fi

# The option contract both tools keep: a bad option is one line and exit 2.
. "$ROOT/tests/host/lib/usage.sh"
USAGE_TMP=$OUT/usage.err
if usage_errors pkstop "$bin" args -- "-p 0" "-p 12x" "-p +3" "0.05" "1e3" "inf" "1 0" \
	"1 2 3" "1 -5" "--nope" "-r" "-s bogus" "-K -P" "-c"; then
	ok "14 bad command lines: each one line 'pkstop: ...; see 'pkstop --help'', exit 2"
else
	not_ok "bad command lines: one line each, exit 2"
	rc=1
fi
if usage_ok pkstop "$bin" args; then
	ok "--version and --help: exit 0, stdout only"
else
	not_ok "--version and --help: exit 0, stdout only"
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
