#!/usr/bin/env bash
# Host unit tests of pksfault's pure parts (tools/pksfault/*.c and
# tools/lib/*.c, without BPF):
# builds tests/host/pksfault_unit.c against them, runs it (TAP lines
# "ok - pksfault: ..."), then checks that its sample JSON Lines parse and
# carry the fields and counts the text has.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
DATA=$ROOT/tests/host/data

# The sources the tool links, as its Makefile lists them (no BPF build).
read -r -a srcs < <(make -s --no-print-directory -C "$ROOT/tools/pksfault" print-unit-srcs)
if ! gcc -O1 -g -Wall -Wextra -Wno-unused-parameter -Werror -I"$ROOT/tools/pksfault" \
	-I"$ROOT/tools/lib" -I"$ROOT/bpf" \
	-o "$t/unit" "$ROOT/tests/host/pksfault_unit.c" "${srcs[@]/#/$ROOT/}" \
	-lbpf -lelf -lz >"$t/cc.log" 2>&1; then
	echo "not ok - pksfault: unit tests build"
	sed 's/^/#   /' "$t/cc.log" | tail -n 30
	exit 1
fi
echo "ok - pksfault: unit tests build (-Wall -Wextra -Werror)"

rc=0
"$t/unit" "$DATA" || rc=$?

# JSON Lines: every line parses on its own, and the values are the ones given.
"$t/unit" "$DATA" json >"$t/lines.json"
if python3 - "$t/lines.json" <<'PY'; then
import json, sys
objs = [json.loads(line) for line in open(sys.argv[1])]
types = [o["type"] for o in objs]
assert types == ["fault", "fault", "leak", "open_window", "leak", "leak_end", "unbalanced_close",
                 "summary"], types
import re
# One dialect with pkstop: "type" then "schema" first, ISO 8601 UTC times.
for o in objs:
    assert list(o)[:2] == ["type", "schema"] and o["schema"] == 2, list(o)[:3]
    assert "time" not in o or re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", o["time"]), o
f = objs[0]
assert f["time"] == "1970-01-01T00:00:05.000000Z", f["time"]
assert f["comm"] == 'we"ird\\sh', f["comm"]
assert f["device"] == "namespace0.0" and f["device_offset"] == "0x4000000", f
assert f["key"] == 1 and f["owner"] == "Device Memory" and f["write"] is True
assert f["pkrs"] == "0x55555554" and f["rights"] == {"0": "RW", "1": "NA", "3": "NA"}
assert f["ip_sym"] == "copy_to_kernel_nofault+0x51"
assert f["stack"] == ["copy_to_kernel_nofault+0x51", "run_inject+0x70"], f["stack"]
assert f["mode"] == "strict" and f["outcome"] == "fixed_up" and f["depth"] == 0
g = objs[1]
assert g["comm"] == '\x01\u00fe"ird\\sh', g["comm"]
assert g["device"] is None and g["access"] == "read" and g["outcome"] == "allowed"
l = objs[2]
assert l["held_ms"] == 512.346 and l["opened_by"] == "leak_thread+0x40" and not l["still_open"]
assert l["stack_at"] == "open" and l["stack"] == ["leak_thread+0x40"], l
o = objs[3]
assert o["still_open"] and o["closed_by"] is None and o["opened_by"] == "pmem_submit_bio+0x10 [nd_pmem]"
assert o["stack_at"] == "holder" and o["stack"] == ["leak_thread+0x40"], o
# Found open by a walk over the map: no event said on which CPU.
assert o["cpu"] is None and objs[4]["cpu"] is None, (o, objs[4])
assert f["cpu"] is not None and l["cpu"] is not None, (f, l)
b = objs[4]
assert b["still_open"] and b["opened_before_attach"] and b["opened_by"] is None and b["key"] is None
assert b["owner"] is None, b  # not known: null, in both tools
assert b["held_ms"] == 3000.0 and b["closed_by"] is None, b
e = objs[5]
assert not e["still_open"] and e["opened_before_attach"] and e["stack"] == [], e
assert e["stack_at"] is None and objs[4]["stack_at"] is None, (e, objs[4])
assert not o["opened_before_attach"] and not l["opened_before_attach"]
u = objs[6]
assert u["closed_by"] == "leak_thread+0x90" and u["key"] == 1 and u["context"] == "task", u
assert u["stack"] == ["leak_thread+0x90"] and u["pid"] == 95, u
s = objs[7]
assert s["unbalanced_closes"] == 1, s
assert s["faults"] == 2 and s["faults_by_key"] == [{"key": 1, "owner": "Device Memory", "count": 2}]
assert s["leaks"] == 1 and s["still_open_leaks"] == 1 and s["lost_events"] == 0
assert s["leaks_reported_open"] == 1 and s["recursion_misses"] == 0
assert s["hist_usecs"] == [{"from": 4, "to": 7, "count": 5}]
assert s["command"] == ["sh", "-c", 'echo "hi"\t\\'] and s["command_exit"] == 0
assert s["verdict"] == "found" and s["exit"] == 1
PY
	echo "ok - pksfault: JSON Lines parse with python3 and carry the same fields and counts"
else
	echo "not ok - pksfault: JSON Lines parse with python3 and carry the same fields and counts"
	sed 's/^/#   /' "$t/lines.json"
	rc=1
fi
# The option contract both tools keep: a bad option is one line and exit 2.
. "$ROOT/tests/host/lib/usage.sh"
USAGE_TMP=$t/usage.err
if usage_errors pksfault "$t/unit" "$DATA" args -- "-p 0" "-p 12x" "-p +3" "-p -1" \
	"-k 16" "-d" "--bogus" "--leak 1e3" "--timeout 99999999999999999999" "ls" "--" \
	"--cgroup" "-c" "--open-stacks"; then
	echo "ok - pksfault: 14 bad command lines: each one line 'pksfault: ...; see 'pksfault --help'', exit 2"
else
	echo "not ok - pksfault: bad command lines: one line each, exit 2"
	rc=1
fi
if usage_ok pksfault "$t/unit" "$DATA" args; then
	echo "ok - pksfault: --version and --help: exit 0, stdout only"
else
	echo "not ok - pksfault: --version and --help: exit 0, stdout only"
	rc=1
fi
# Root in a user namespace (the test kernel has none: checked here) has
# its capabilities only there: the environment check says so in one line.
urc=0
unshare -Ur "$t/unit" "$DATA" env >/dev/null 2>"$t/userns.err" || urc=$?
if [ "$urc" = 2 ] && [ "$(wc -l <"$t/userns.err")" = 1 ] &&
	grep -q '^pksfault: in a user namespace (user:\[[0-9]*\]): loading BPF needs root' "$t/userns.err"; then
	echo "ok - pksfault: root in a user namespace: one line saying so (unshare -Ur)"
else
	echo "not ok - pksfault: root in a user namespace: one line (exit $urc)"
	sed 's/^/#   /' "$t/userns.err"
	rc=1
fi

# --replay: the recorded JSON Lines give the same summary again, exit
# status included; a file that is not ours is one line and exit 2.
rrc=0
"$t/unit" "$DATA" replay "$t/lines.json" >"$t/replayed.json" 2>"$t/replay.err" || rrc=$?
printf '{"type":"fault","schema":2}\nnot json\n' >"$t/bad.json"
brc=0
"$t/unit" "$DATA" replay "$t/bad.json" >/dev/null 2>"$t/bad.err" || brc=$?
if [ "$rrc" = 1 ] && [ "$brc" = 2 ] && [ "$(wc -l <"$t/bad.err")" = 1 ] &&
	grep -q 'bad.json:2: not a pksfault --json record' "$t/bad.err" &&
	python3 - "$t/lines.json" "$t/replayed.json" <<'PY'; then
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])][-1]
again = json.loads(open(sys.argv[2]).read())
for k in ("hist_usecs",):	# a histogram is not replayed
    live.pop(k, None); again.pop(k, None)
assert live == again, {k: (live.get(k), again.get(k)) for k in set(live) | set(again) if live.get(k) != again.get(k)}
PY
	echo "ok - pksfault: --replay of recorded JSON Lines prints the same summary (exit 1 as recorded); other files: one line, exit 2"
else
	echo "not ok - pksfault: --replay gives the same summary (exit $rrc, bad file exit $brc)"
	sed 's/^/#   /' "$t/replay.err" "$t/bad.err" | head -n 5
	rc=1
fi

# --junit: a real JUnit parser (Debian's python3-junitparser, hence
# /usr/bin/python3) reads the report:
# one case per check, the findings' records and stacks in the failures.
"$t/unit" "$DATA" junit >"$t/junit.xml"
if /usr/bin/python3 - "$t/junit.xml" "$t" <<'PY' 2>"$t/junit.log"; then
import sys
from junitparser import JUnitXml, Failure, Skipped
found, clean = open(sys.argv[1], "rb").read().split(b"\0")
for name, body in (("found", found), ("clean", clean)):
    open("%s/%s.xml" % (sys.argv[2], name), "wb").write(body)
def cases(name):
    xml = JUnitXml.fromfile("%s/%s.xml" % (sys.argv[2], name))
    suites = list(xml)
    assert len(suites) == 1 and suites[0].name == "pksfault", suites
    return {c.name: c for c in suites[0]}, suites[0]
c, suite = cases("found")
assert sorted(c) == ["leaked windows", "lost events", "stray faults", "unbalanced closes"], sorted(c)
assert suite.tests == 4 and suite.failures == 3, (suite.tests, suite.failures)
res = lambda n: c[n].result[0] if c[n].result else None
f = res("stray faults")
assert isinstance(f, Failure) and f.message == "1 stray faults" and f.type == "stray_fault", f
assert "FAULT cpu=1" in f.text and "comm=\\x01" in f.text and "run_inject+0x70" in f.text, f.text
l = res("leaked windows")
assert isinstance(l, Failure) and "LEAK " in l.text and "leak_thread+0x40" in l.text, l.text
u = res("unbalanced closes")
assert isinstance(u, Failure) and "UNBALANCED" in u.text and "leak_thread+0x90" in u.text, u.text
assert res("lost events") is None
c, suite = cases("clean")
assert suite.failures == 0 and suite.skipped == 1, (suite.failures, suite.skipped)
assert isinstance(c["leaked windows"].result[0], Skipped)
assert all(not c[n].result for n in ("stray faults", "unbalanced closes", "lost events"))
PY
	echo "ok - pksfault: --junit report parses with junitparser: a case per check, findings with their stacks"
else
	echo "not ok - pksfault: --junit report parses with junitparser"
	sed 's/^/#   /' "$t/junit.log" | tail -n 15
	rc=1
fi

# One exit-status table and one JSON vocabulary: the same sections in both
# man pages, and the codes the ones enum pks_exit gives.
sections() { sed -n '/^\.SH EXIT STATUS/,/^\.SH OVERHEAD/p' "$1"; }
codes=$(sed -n 's/^\tPKS_EXIT_[A-Z]* = \([0-9]\),.*/\1/p' "$ROOT/tools/lib/pks_common.h" | tr '\n' ' ')
man_codes=$(sections "$ROOT/tools/pksfault/pksfault.8" | sed -n '/^\.SH JSON/q; s/^\.B \([0-9]\)$/\1/p' | tr '\n' ' ')
if [ -n "$(sections "$ROOT/tools/pksfault/pksfault.8")" ] &&
	[ "$(sections "$ROOT/tools/pksfault/pksfault.8")" = "$(sections "$ROOT/pkstop/pkstop.8")" ] &&
	[ "$codes" = "0 1 2 3 4 5 " ] && [ "$man_codes" = "$codes" ]; then
	echo "ok - pksfault: one EXIT STATUS table and JSON FIELDS section in both man pages, codes as enum pks_exit ($codes)"
else
	echo "not ok - pksfault: one EXIT STATUS table in both man pages (enum: $codes, man: $man_codes)"
	diff <(sections "$ROOT/tools/pksfault/pksfault.8") <(sections "$ROOT/pkstop/pkstop.8") | head -n 10 | sed 's/^/#   /' || true
	rc=1
fi

# The man page renders cleanly (groff warnings are errors here).
if out=$(LC_ALL=C.UTF-8 groff -man -ww -z "$ROOT/tools/pksfault/pksfault.8" 2>&1) && [ -z "$out" ] &&
	MANWIDTH=80 man -l "$ROOT/tools/pksfault/pksfault.8" 2>/dev/null | grep -q '^EXIT STATUS'; then
	echo "ok - pksfault: man page renders without warnings (man -l tools/pksfault/pksfault.8)"
else
	echo "not ok - pksfault: man page renders without warnings"
	printf '%s\n' "$out" | sed 's/^/#   /'
	rc=1
fi
exit "$rc"
