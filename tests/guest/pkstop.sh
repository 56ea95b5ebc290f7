#!/bin/bash
# pkstop in the guest.
#   pkstop.sh full   (--pmem) windows/leak kthreads + fio on ext4-dax while
#                    pkstop runs in JSON and batch mode: rows, rates, held
#                    time, keys, totals == sum of rows, no drops
#   pkstop.sh nopks  (--no-pks) the header says so and pkstop keeps running
set -uo pipefail
SUITE=${SUITE:-pkstop}
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSTOP=${PKSTOP:-$ROOT/build/tools/pkstop}
PKSFAULT=${PKSFAULT:-$ROOT/build/tools/pksfault}
MNT=/mnt/pmem
OUT=/tmp/pkstop
mkdir -p "$OUT" "$MNT"
MODE=${1:-full}
[ "$MODE" = full ] || SUITE=$SUITE-$MODE

# Options, errors and output modes that need no PKS activity.
basics() {
	local out rc
	rc=0; "$PKSTOP" -s bogus 2>"$OUT/err" >/dev/null || rc=$?
	check "bad option: exit 2, one line on stderr" \
		test "$rc" = 2 -a "$(wc -l <"$OUT/err")" = 1
	rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups "$PKSTOP" 1 1 \
		>/dev/null 2>"$OUT/err" || rc=$?
	check "unprivileged: exit 2, says it needs root ($(cat "$OUT/err"))" \
		bash -c "[ $rc = 2 ] && grep -q 'needs root' '$OUT/err'"
	check "--help has examples" bash -c "'$PKSTOP' --help | grep -q EXAMPLES"
	check "--version: one line, exit 0" bash -c "[ \"\$('$PKSTOP' --version | grep -Ec '^pkstop [0-9]')\" = 1 ]"
	rc=0; "$PKSTOP" --json 0.3 1 >/dev/full 2>"$OUT/err" || rc=$?
	check "output on a full disk: exit 2, one line ($(cat "$OUT/err"))" \
		bash -c "[ $rc = 2 ] && [ \$(grep -c '^pkstop: writing' '$OUT/err') = 1 ] && grep -q 'writing stdout' '$OUT/err'"
	without_root
	rc=0; out=$(env -u TERM "$PKSTOP" 0.5 2 2>&1) || rc=$?
	check "TERM unset, stdout not a TTY: batch output, 2 intervals, exit 0" \
		bash -c "[ $rc = 0 ] && [ \$(grep -c '^pkstop - ' <<<'$out') = 2 ] && ! grep -q $'\e' <<<'$out'"
	# On a terminal (script(1) gives it one) it clears the screen; -C doesn't.
	if command -v script >/dev/null; then
		script -qec "env -u TERM '$PKSTOP' 0.5 1" /dev/null >"$OUT/tty" 2>&1
		script -qec "env -u TERM '$PKSTOP' -C 0.5 1" /dev/null >"$OUT/tty-C" 2>&1
		check "on a TTY: clears the screen with ANSI, -C does not" bash -c \
			"grep -q $'\e\\\\[2J' '$OUT/tty' && ! grep -q $'\e\\\\[2J' '$OUT/tty-C' && grep -q '^pkstop - ' '$OUT/tty-C'"
	fi
}

# With CAP_BPF and CAP_PERFMON only, as libbpf-tools run: the key table
# comes from the kernel (bpf_pks_key_owner()), not from root-only debugfs,
# and names the keys debugfs lists (none on a CPU without PKS).
without_root() {
	local rc=0 want keys=/sys/kernel/debug/x86/pks_keys_allocated
	want=$(python3 -c 'import json, os, sys
keys = {}
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        k, _, owner = line.partition(":")
        keys[k.strip()] = owner.strip()
print(json.dumps(keys, sort_keys=True))' "$keys")
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+bpf,+perfmon \
		--ambient-caps=+bpf,+perfmon "$PKSTOP" --json 0.3 1 >"$OUT/caps" 2>"$OUT/caps-err" || rc=$?
	check "CAP_BPF+CAP_PERFMON, not root: exit 0, keys from the kernel, as debugfs lists them ($want)" \
		python3 - "$OUT/caps" "$want" "$rc" <<'PY'
import json, sys
path, want, rc = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
print(open(path).read()[:600])
assert rc == "0", rc
sample = [json.loads(l) for l in open(path) if '"sample"' in l][0]
got = {str(k["key"]): k["owner"] for k in sample["keys"]}
assert sample["keys_source"] == "kernel", sample["keys_source"]
assert got == want, (got, want)
PY
}

# A kernel with PKS but without device-memory protection has no
# task_struct.dev_page_access_ref: both tools must load there and do
# without it.  Relocated (CO-RE) against this kernel's BTF minus that
# member (PKS_BTF), they run on this kernel: pkstop still shows the leak
# thread, by its PKRS, at depth 0; pksfault seeds no window at attach,
# where without PKS_BTF the same run finds the leak.  A leak of its own,
# long enough for the three runs on a loaded host.
core_without_depth() {
	local lt btf=$OUT/no-depth.btf rc=0 rc_real=0
	"$GUEST_BIN/btf_without" /sys/kernel/btf/vmlinux task_struct dev_page_access_ref "$btf" ||
		{ fail "CO-RE: btf_without"; return; }
	lt=$(hook leak 20000)
	lt=${lt#*tid=}
	lt=${lt%% *}
	PKS_BTF=$btf "$PKSTOP" --json 0.5 1 >"$OUT/nodepth.json" 2>"$OUT/nodepth.err" || rc=$?
	check "CO-RE, no dev_page_access_ref: pkstop loads (exit $rc), the leak thread shown by its PKRS at depth 0" \
		python3 -c '
import json, sys
d = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"][0]
r = [r for r in d["threads"] if r["tid"] == int(sys.argv[2])]
assert sys.argv[3] == "0" and len(r) == 1 and r[0]["depth"] == 0, (sys.argv[3], r)
assert "RW" in r[0]["rights"].values(), r' "$OUT/nodepth.json" "$lt" "$rc"
	rc=0
	PKS_BTF=$btf "$PKSFAULT" --leak 100 --json -d 1 >"$OUT/nodepth-pf.json" 2>"$OUT/nodepth-pf.err" || rc=$?
	"$PKSFAULT" --leak 100 --json -d 1 >"$OUT/depth-pf.json" 2>/dev/null || rc_real=$?
	check "CO-RE, no dev_page_access_ref: pksfault loads, seeds no window (exit $rc); with the member it finds the leak (exit $rc_real)" \
		python3 -c '
import json, sys
s = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "summary"][0]
real = [d for d in map(json.loads, open(sys.argv[2])) if d["type"] == "summary"][0]
assert sys.argv[3] == "0" and s["windows_open_at_attach"] == 0, (sys.argv[3], s)
assert sys.argv[4] == "1" and real["windows_open_at_attach"] >= 1, (sys.argv[4], real)' \
		"$OUT/nodepth-pf.json" "$OUT/depth-pf.json" "$rc" "$rc_real"
}

# A kernel without the bpf_pks_key_owner() kfunc (PKS without this
# series' kfunc patch): pkstop must load without its keys iterator, which
# would not verify there, and read the key table from debugfs instead.
# Relocated against this kernel's BTF minus the kfunc (PKS_BTF), which is
# also what its probe for the kfunc reads.
core_without_kfunc() {
	local btf=$OUT/no-kfunc.btf rc=0
	"$GUEST_BIN/btf_without" /sys/kernel/btf/vmlinux func bpf_pks_key_owner "$btf" ||
		{ fail "CO-RE: btf_without func"; return; }
	PKS_BTF=$btf "$PKSTOP" --json 0.5 1 >"$OUT/nokfunc.json" 2>"$OUT/nokfunc.err" || rc=$?
	check "no bpf_pks_key_owner kfunc: pkstop loads (exit $rc), keys from debugfs, Device Memory listed" \
		python3 -c '
import json, sys
d = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"][0]
assert sys.argv[2] == "0" and d["keys_source"] == "debugfs", (sys.argv[2], d["keys_source"])
assert any(k["owner"] == "Device Memory" for k in d["keys"]), d["keys"]' "$OUT/nokfunc.json" "$rc"
}

# Wait (up to 30 s) for pkstop's first line in FILE: it has attached.
first_interval() {
	local i
	for i in $(seq 300); do
		[ -s "$1" ] && return
		sleep 0.1
	done
}

# -c CGROUP: like -p, filtered in BPF: a reader of pmem inside the cgroup
# has rows, a kthread opening windows outside it has none, not even an
# entry in the thread map.
cgroup_filter() {
	local cg=/sys/fs/cgroup rc=0 pk dd
	if ! grep -q "^[^ ]* $cg cgroup2 " /proc/mounts; then
		mount -t cgroup2 cgroup2 "$cg" || { fail "-c: cannot mount cgroup2"; return; }
	fi
	mkdir -p "$cg/pkstop-test/sub"
	# Loading takes seconds on a busy host: the load starts once the first
	# interval is out, and runs through the other two.  dd runs in a
	# cgroup below the one named: descendants are included.
	"$PKSTOP" --json -c "$cg/pkstop-test" 1 3 >"$OUT/cg.json" 2>"$OUT/cg.err" &
	pk=$!
	first_interval "$OUT/cg.json"
	sh -c "echo \$\$ >$cg/pkstop-test/sub/cgroup.procs &&
		exec dd if=/dev/pmem0 of=/dev/null bs=4096 count=3000 iflag=direct status=none" &
	dd=$!
	hook windows 1 500 2 >/dev/null
	wait "$dd" || true
	wait "$pk" || rc=$?
	check "-c CGROUP: only the cgroup's thread (dd, $dd, in a cgroup below it), in the view and in the thread map (exit $rc)" python3 -c '
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
rows = [r for d in docs for r in d["threads"]]
assert len(docs) == 3 and rows, (len(docs), rows)
assert all(r["pid"] == int(sys.argv[2]) and r["comm"] == "dd" for r in rows), rows
assert all(d["threads_tracked"] <= 1 for d in docs), [d["threads_tracked"] for d in docs]
dd = sum(r["opens"] for r in rows)
tot = sum(d["interval"]["opens"] for d in docs)
assert dd > 0 and tot >= dd + 100, (dd, tot)	# the kthread ran too
print("# dd opens %d, all threads %d" % (dd, tot))
' "$OUT/cg.json" "$dd"
	rmdir "$cg/pkstop-test/sub" "$cg/pkstop-test"
	rc=0
	"$PKSTOP" -c /tmp 1 1 >/dev/null 2>"$OUT/cg-bad.err" || rc=$?
	check "-c on a directory that is no cgroup: exit 2, one line ($(cat "$OUT/cg-bad.err"))" \
		bash -c "[ $rc = 2 ] && [ \$(wc -l <'$OUT/cg-bad.err') = 1 ] && grep -q 'not a cgroup v2 directory' '$OUT/cg-bad.err'"
}

# The task iterator runs every interval.  A thread it finds between
# raising its depth and its open event (the windows kthread at 100000 Hz
# is nearly always there under TCG) must not get a window that never
# closes: its held time stays that of its own microsecond windows.
seed_race() {
	local out tid pk rc=0
	"$PKSTOP" --json 0.2 25 >"$OUT/race.json" 2>"$OUT/race.err" &
	pk=$!
	# Storms of 100000 windows (hz * seconds is a count of windows under
	# TCG, which never keeps the pace), one after the other while pkstop runs.
	while kill -0 "$pk" 2>/dev/null; do
		out=$(hook windows 1 100000 1)
		tid=$(sed -n 's/^windows tid=\([0-9]*\) .*/\1/p' <<<"$out")
		[ -n "$tid" ] || break
		while [ -d "/proc/$tid" ] && kill -0 "$pk" 2>/dev/null; do sleep 0.2; done
	done
	wait "$pk" || rc=$?
	while pgrep -x pks-windows >/dev/null; do sleep 0.2; done
	check "seed race: the window storms never show a window held for ever, 25 iterator runs (exit $rc)" \
		python3 - "$OUT/race.json" <<'PY'
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
rows = [r for d in docs for r in d["threads"] if r["comm"] == "pks-windows"]
held = [r["held_s"] for r in rows]
print("# storm rows %d, held_s %s" % (len(rows), held[-8:]))
assert len(docs) == 25 and len(rows) >= 10, (len(docs), len(rows))
assert all(h is None or h < 0.5 for h in held), held
PY
}

# On a terminal, top's keys: s takes the next sort key (the header says
# which), space pauses, q quits long before the 60 intervals asked for.
tty_keys() {
	local sp i t0 rc=0 to= keys=$OUT/keys
	rm -f "$keys"
	mkfifo "$keys"
	exec 7<>"$keys"
	t0=$(date +%s)
	script -qec "env -u TERM '$PKSTOP' 1 60" /dev/null <"$keys" >"$OUT/keys.out" 2>&1 &
	sp=$!
	waitfor() { for i in $(seq 1 300); do grep -q "$1" "$OUT/keys.out" && return 0; sleep 0.1; done; return 1; }
	waitfor 'sort: depth' && printf s >&7 && waitfor 'sort: opens' && printf ' ' >&7 &&
		waitfor '(paused' && printf q >&7
	for i in $(seq 1 300); do kill -0 "$sp" 2>/dev/null || break; sleep 0.1; done
	kill "$sp" 2>/dev/null && to=timeout
	wait "$sp" || rc=$?
	rc=${to:-$rc}
	exec 7>&-
	check "on a terminal: s cycles the sort, space pauses, q quits ($(($(date +%s) - t0)) s of 60, exit $rc)" \
		bash -c "[ '$rc' = 0 ] && [ $(($(date +%s) - t0)) -lt 50 ] && grep -q 'sort: opens' '$OUT/keys.out' && grep -q '(paused' '$OUT/keys.out'"
}

# One keys iterator, the one user space gates on the kfunc: a second,
# ungated copy kept pkstop from loading on a kernel without it.
one_keys_iterator() {
	local pk i n=0 names
	"$PKSTOP" -b 0.5 6 >/dev/null 2>&1 &
	pk=$!
	for i in $(seq 1 300); do
		bpftool prog show 2>/dev/null | grep -q ' name pkstop_tasks ' && break
		sleep 0.1
	done
	names=$(bpftool prog show 2>/dev/null | grep -o ' name [a-z_]*_keys ' | tr -s ' ' | tr '\n' ',')
	n=$(bpftool prog show 2>/dev/null | grep -c ' name [a-z_]*_keys ')
	wait "$pk"
	check "one keys iterator loaded ($names)" test "$n" = 1
}

# The table fits the terminal it runs on: every line within 80 columns on
# an 80x24 one (rows: the leak thread, the shell), PKRS shown on a wide one.
tty_fit() {
	command -v script >/dev/null || { fail "script(1) missing: cannot test on a TTY"; return; }
	script -qec "stty cols 80 rows 24; '$PKSTOP' -C 0.5 1" /dev/null >"$OUT/tty80" 2>&1
	script -qec "stty cols 200 rows 24; '$PKSTOP' -C 0.5 1" /dev/null >"$OUT/tty200" 2>&1
	check "80x24 terminal: rows shown, every line within 80 columns; 200 columns: PKRS column" \
		python3 - "$OUT/tty80" "$OUT/tty200" <<'PY'
import re, sys
def lines(path):
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", open(path, errors="replace").read())
    return [l.rstrip("\r") for l in text.split("\n")]
narrow, wide = lines(sys.argv[1]), lines(sys.argv[2])
print("# longest of %d lines at 80 columns: %d" % (len(narrow), max(len(l) for l in narrow)))
assert any("pks-leak" in l for l in narrow), narrow
assert max(len(l) for l in narrow) <= 80, max(narrow, key=len)
def header(ls):
    return [l for l in ls if l.lstrip().startswith("TID ")]
assert [h for h in header(wide) if " PKRS " in h], wide
assert header(narrow) and not [h for h in header(narrow) if " PKRS " in h], narrow
PY
}

nopks() {
	local rc=0
	"$PKSTOP" -b 0.5 3 >"$OUT/nopks.txt" 2>&1 || rc=$?
	sed 's/^/# /' "$OUT/nopks.txt" | head -n 8
	check "no PKS: runs 3 intervals, exit 0" \
		test "$rc" = 0 -a "$(grep -c '^pkstop - ' "$OUT/nopks.txt")" = 3
	check "no PKS: header says PKS is not present" \
		test "$(grep -c 'PKS: not present on this CPU' "$OUT/nopks.txt")" = 3
	rc=0
	"$PKSTOP" --json 0.5 2 >"$OUT/nopks.json" 2>&1 || rc=$?
	check "no PKS: JSON says present=false, no keys" python3 -c '
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
assert len(docs) == 2, len(docs)
for d in docs:
    assert d["pks"] == {"present": False, "enabled": False}, d["pks"]
    assert [k for k in d["keys"] if k["key"] != 0] == [], d["keys"]
' "$OUT/nopks.json"
}

# Interrupt and NMI handlers open their own windows and fault while this
# shell holds one open (hook "irq"): those events are counted apart and
# must not open, close or fault on the shell's row.
irq_isolation() {
	local pk out rc=0
	"$PKSTOP" --json 1 3 >"$OUT/irq.json" 2>&1 &
	pk=$!
	# Not a fixed sleep: attaching takes seconds on a busy TCG host.
	first_interval "$OUT/irq.json"
	echo "irq $(printf '%x' $((0x$(ns_phys) + (64 << 20))))" >"$HOOKS"
	out=$(cat "$HOOKS")
	echo "# $out"
	wait "$pk" || rc=$?
	check "irq hook ran during pkstop (pkstop exit $rc)" \
		bash -c "[ $rc = 0 ] && [[ '$out' == irq* ]] && [[ '$out' != *FAIL* ]]"
	check "irq-context events counted apart, not on the interrupted thread's row" \
		python3 - "$OUT/irq.json" "$$" "$(grep -o '=PASS' <<<"$out" | wc -l)" <<'PY'
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
me, handlers = int(sys.argv[2]), int(sys.argv[3])
rows = [r for d in docs for r in d["threads"] if r["tid"] == me]
irq = sum(d["irq_events"] for d in docs)
print("irq events %d (handlers %d), my rows %s" % (irq, handlers, rows))
# Each handler: a blocked read (fault), enable, disable (the window's
# PKRS writes are in those two events, not in update events).
assert irq == 3 * handlers, (irq, handlers)
assert sum(r["opens"] for r in rows) == 1 and sum(r["enables"] for r in rows) == 1, rows
# Their faults count in the total (one blocked read each), on no row.
assert sum(r["faults"] for r in rows) == 0, rows
assert sum(d["interval"]["faults"] for d in docs) == handlers, [d["interval"] for d in docs]
assert max(r["max_depth"] for r in rows) == 1, rows
for d in docs:
    for c in ("opens", "enables", "pkrs_writes", "updates"):
        assert d["interval"][c] == sum(r[c] for r in d["threads"]), c
    assert d["interval"]["faults"] >= sum(r["faults"] for r in d["threads"])
PY
}

# A softirq run from local_bh_enable() in this shell, inside its window
# (hook "softirq"), faults on a blocked read: that fault belongs to the
# CPU's softirq row ("softirq/N"), not to the shell, whose own row shows
# just its one window.
softirq_rows() {
	local pk out rc=0
	"$PKSTOP" --json 1 3 >"$OUT/softirq.json" 2>&1 &
	pk=$!
	first_interval "$OUT/softirq.json"
	# echo is a builtin: the write, and the hook's window, are this shell's.
	echo "softirq $(printf '%x' $((0x$(ns_phys) + (64 << 20))))" >"$HOOKS"
	out=$(cat "$HOOKS")
	echo "# $out"
	wait "$pk" || rc=$?
	check "softirq: events land on the CPU's softirq row, not the interrupted thread's (pkstop exit $rc)" \
		python3 - "$OUT/softirq.json" "$$" "$out" <<'PY'
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
me, out = int(sys.argv[2]), sys.argv[3]
assert "ran=Y" in out and "blocked=Y" in out, out
rows = [r for d in docs for r in d["threads"] if r["tid"] == me]
soft = [r for d in docs for r in d["threads"] if r["context"] == "softirq"]
print("# my rows %s\n# softirq rows %s" % (rows, soft))
assert sum(r["opens"] for r in rows) == 1 and sum(r["faults"] for r in rows) == 0, rows
assert sum(r["faults"] for r in soft) == 1, soft
assert all(r["comm"] == "softirq/%d" % r["cpu"] and r["tid"] == 0 for r in soft), soft
assert sum(d["interval"]["faults"] for d in docs) == 1
PY
}

# --prometheus: node exporter's textfile collector serves pkstop's file
# over loopback, promtool (Prometheus's own parser and linter) takes it,
# the text follows the format's rules, and the counters
# equal the sums of pkstop's JSON totals for the same intervals.
openmetrics() {
	local dir ne pk rc=0
	dir=$(mktemp -d)
	ip link set lo up
	prometheus-node-exporter --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$dir" --web.listen-address=127.0.0.1:9100 \
		>"$OUT/ne.log" 2>&1 &
	ne=$!
	"$PKSTOP" --json --prometheus "$dir/pks.prom" 1 4 >"$OUT/om.json" 2>"$OUT/om.err" &
	pk=$!
	# Windows only once pkstop is attached (its first interval is out):
	# loading BPF under TCG on a busy host can take seconds.
	for _ in $(seq 300); do
		[ -s "$OUT/om.json" ] && break
		sleep 0.1
	done
	hook windows 2 200 1 >/dev/null
	# Stray reads, fixed up in strict mode: pks_faults_total by outcome.
	hook inject "$(inj_phys)" $INJ_LEN 3 11 read >/dev/null
	wait "$pk" || rc=$?
	check "--prometheus: promtool check metrics passes on the file pkstop wrote" \
		bash -c "promtool check metrics <'$dir/pks.prom'"
	check "--prometheus: node exporter serves pkstop's metrics, equal to its JSON (pkstop exit $rc)" \
		python3 - "$OUT/om.json" "$dir/pks.prom" <<'PY'
import json, re, sys, time, urllib.request
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
text = open(sys.argv[2]).read()
# The format: HELP and TYPE before each family's samples, counters named
# *_total, label values quoted; no OpenMetrics "# EOF" in a 0.0.4 file.
lines = text.splitlines()
assert "# EOF" not in lines, lines[-1]
typed = {}
for l in lines:
    m = re.match(r"# (HELP|TYPE) (\w+) (.+)$", l)
    if m:
        if m.group(1) == "TYPE":
            typed[m.group(2)] = m.group(3)
        continue
    m = re.match(r'(\w+)(\{(\w+="(\\.|[^"\\])*",?)*\})? (\S+)$', l)
    assert m, "bad sample line %r" % l
    name = m.group(1)
    assert name in typed, "no TYPE before %s" % name
    assert (typed[name] == "counter") == name.endswith("_total"), name
    float(m.group(5))
# What node exporter serves (it retries while the first scrape warms up).
for _ in range(50):
    try:
        body = urllib.request.urlopen("http://127.0.0.1:9100/metrics", timeout=5).read().decode()
        break
    except OSError:
        time.sleep(0.2)
served = {}
for l in body.splitlines():
    m = re.match(r"(pks_\w+|node_textfile_scrape_error)(\{[^}]*\})? (\S+)$", l)
    if m:
        served[m.group(1)] = served.get(m.group(1), 0) + float(m.group(3))
print("# served: %s" % served)
assert served.get("node_textfile_scrape_error") == 0, served
tot = lambda k: sum(d["interval"][k] for d in docs)
for metric, key in (("pks_window_opens_total", "opens"), ("pks_pkrs_writes_total", "pkrs_writes"),
                    ("pks_protection_updates_total", "updates"), ("pks_faults_total", "faults")):
    assert served[metric] == tot(key), (metric, served[metric], tot(key))
assert served["pks_window_opens_total"] > 0, "no windows seen"
assert served["pks_keys_allocated"] >= 1 and served["pks_enabled"] == 1
# Faults by key, owner and outcome: each labelled series equals the sum
# of the JSON's keys[].faults, and the 3 stray reads are there.
by = {}
for l in body.splitlines():
    # node exporter sorts the labels: parse them in any order
    m = re.match(r'pks_faults_total\{(.*)\} (\S+)$', l)
    if m:
        lab = dict(re.findall(r'(\w+)="((?:\\.|[^"\\])*)"', m.group(1)))
        by[(int(lab["key"]), lab["owner"], lab["outcome"])] = float(m.group(2))
print("# pks_faults_total: %s" % by)
json_by = {}
for d in docs:
    for k in d["keys"]:
        for outcome, n in k["faults"].items():
            key = (k["key"], k["owner"], outcome)
            json_by[key] = json_by.get(key, 0) + n
for key, n in by.items():
    assert n == json_by.get(key, 0), (key, n, json_by.get(key))
dev = [k for k in by if k[1] == "Device Memory"]
assert {k[2] for k in dev} == {"fixed_up", "allowed", "oops"}, dev
assert sum(by[k] for k in dev if k[2] == "fixed_up") >= 3, by
# Window opens and PKRS writes by key: each series equals the JSON's
# keys[] figure summed over the intervals, and no key's count is missing.
for metric, field in (("pks_window_opens_total", "opens"), ("pks_pkrs_writes_total", "pkrs_writes")):
    series, want = {}, {}
    for l in body.splitlines():
        m = re.match(metric + r'\{(.*)\} (\S+)$', l)
        if m:
            lab = dict(re.findall(r'(\w+)="((?:\\.|[^"\\])*)"', m.group(1)))
            series[int(lab["key"])] = float(m.group(2))
    for d in docs:
        for k in d["keys"]:
            want[k["key"]] = want.get(k["key"], 0) + k[field]
    print("# %s by key: %s (JSON: %s)" % (metric, series, want))
    assert series and all(series[k] == want.get(k, 0) for k in series), (metric, series, want)
    assert all(k in series for k, n in want.items() if n), (metric, series, want)
PY
	kill "$ne" 2>/dev/null
	wait "$ne" 2>/dev/null
	"$PKSTOP" --prometheus /nonexistent/dir/pks.prom 1 1 >/dev/null 2>"$OUT/om-bad.err"
	rc=$?
	check "--prometheus into a missing directory: one line naming it, exit $rc" \
		bash -c "[ $rc != 0 ] && [ \$(wc -l <'$OUT/om-bad.err') = 1 ] && grep -q 'cannot write /nonexistent/dir/pks.prom' '$OUT/om-bad.err'"
	rm -rf "$dir"
}

wait_output() {	# FILE...: until each has a first line (pkstop is up)
	local f
	for f in "$@"; do
		for _ in $(seq 150); do
			[ -s "$f" ] && break
			sleep 0.1
		done
	done
}

# A key allocated and freed while pkstop runs (run_pks: each open file
# owns a key; '1' closes it for this thread): the key list follows the
# alloc/free events even without debugfs, and this shell's row shows the
# PKRS it set, decoded.
key_lifecycle() {
	local a b key
	PKSTOP_KEYS_FILE=/nonexistent "$PKSTOP" --json 1 5 >"$OUT/keys-ev.json" 2>&1 &
	a=$!
	"$PKSTOP" --json 1 5 >"$OUT/keys-fs.json" 2>&1 &
	b=$!
	wait_output "$OUT/keys-ev.json" "$OUT/keys-fs.json"
	exec 3<>"$DBG/run_pks"
	printf 1 >&3
	key=$(sed -n 's/^\([0-9]*\): pks test file$/\1/p' "$DBG/pks_keys_allocated")
	echo "# run_pks file key: $key"
	sleep 2
	exec 3>&-
	wait "$a" "$b"
	check "key list follows pks_key_alloc/free events without debugfs (key ${key:-?})" \
		python3 - "$OUT/keys-ev.json" "$key" <<'PY'
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
key = int(sys.argv[2])
seen = [any(k["key"] == key and k["owner"] == "pks test file" for k in d["keys"]) for d in docs]
print("keys per interval: %s" % [d["keys"] for d in docs])
assert all(d["keys_source"] == "events" for d in docs)
assert any(seen) and not seen[-1], seen
assert docs[-1]["key_events_total"] >= 2, docs[-1]["key_events_total"]
PY
	check "debugfs key list and this shell's PKRS: key ${key:-?} NA, owner 'pks test file'" \
		python3 - "$OUT/keys-fs.json" "$key" "$$" <<'PY'
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
key, me = sys.argv[2], int(sys.argv[3])
assert any(k["key"] == int(key) and k["owner"] == "pks test file" for d in docs for k in d["keys"])
rows = [r for d in docs for r in d["threads"] if r["tid"] == me and r["pkrs"]]
print("my rows: %s" % rows)
r = [r for r in rows if r["rights"].get(key)]
assert r and r[0]["rights"][key] == "NA" and r[0]["pkrs"] != "0x55555554", rows
assert sum(r["updates"] for r in rows) >= 1, rows
PY
}

full() {
	[ -e "$HOOK" ] || { fail "test hook $HOOK missing (PKS or protected pmem absent)"; return; }
	check "fsdax namespace" ns_mode fsdax mem
	check "ext4 on pmem, mounted -o dax" bash -c \
		"mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 $MNT"

	# pkstop first, so it sees the leak open; then the load.
	"$PKSTOP" -P --json 1 9 >"$OUT/run.json" 2>"$OUT/run.err" &
	local pk=$! leak win t_leak rc=0 phys
	sleep 1.5
	t_leak=$(date +%s.%N)
	echo "leak 30000" >"$HOOKS" && leak=$(cat "$HOOKS")
	echo "# $leak"
	echo "windows 3 200 6" >"$HOOKS" && win=$(cat "$HOOKS")
	echo "# $win"
	fio --name=pkstop --filename="$MNT/fio.dat" --size=32M --rw=randrw --bs=4k \
		--ioengine=psync --direct=1 --time_based --runtime=5 --randrepeat=1 \
		--output-format=terse >/dev/null 2>&1 &
	local fio=$!
	# Stray writes from this shell: each one a fault on our row.
	phys=$(printf '%x' $((0x$(ns_phys) + (64 << 20))))
	echo "inject $phys 1000000 50 7 nowindow" >"$HOOK"
	echo "# $(cat "$HOOK")"
	wait "$fio" || true
	wait "$pk" || rc=$?
	check "pkstop -P --json 1 9: exit 0 (stderr: $(head -c 200 "$OUT/run.err"))" test "$rc" = 0

	SUITE=$SUITE python3 - "$OUT/run.json" "${leak#*tid=}" "${win#*tid=}" "$t_leak" "$$" \
		>"$OUT/checks" 2>&1 <<'PY'
import json, os, sys
path, leak, win, t_leak, me = sys.argv[1:]
suite = os.environ.get("SUITE", "pkstop")
leak, win = int(leak.split()[0]), int(win.split()[0])
t_leak, me = float(t_leak), int(me)
def ok(cond, msg):
    print(("ok" if cond else "not ok") + " - " + suite + ": " + msg)
docs = []
try:
    docs = [d for d in map(json.loads, open(path)) if d["type"] == "sample"]
    ok(len(docs) == 9, "JSON: 9 documents, one per line, all valid (%d)" % len(docs))
except Exception as e:
    ok(False, "JSON: valid (%s)" % e)
if not docs:
    sys.exit(0)
# The summary on exit: the last line, the run in one object.
summ = [d for d in map(json.loads, open(path)) if d["type"] == "summary"]
sm = summ[0] if len(summ) == 1 else {}
print("# summary: %s" % json.dumps({k: sm.get(k) for k in ("intervals", "held_max", "depth_max")}))
ok(sm.get("intervals") == 9 and
   sm["totals"]["opens"] == sum(d["interval"]["opens"] for d in docs) and
   (sm["held_max"] or {}).get("comm") == "pks-leak" and (sm["depth_max"] or {}).get("depth", 0) >= 3,
   "summary line: 9 intervals, the intervals' opens, longest held by pks-leak, nesting >= 3")
d0 = docs[-1]
owners = {k["key"]: k["owner"] for k in d0["keys"]}
dev = [k for k, o in owners.items() if o == "Device Memory"]
ok(d0["pks"] == {"present": True, "enabled": True}, "header: PKS present and enabled")
ok(len(dev) == 1, "keys: Device Memory owns key %s (%s)" % (dev, owners))
ok(d0["keys_source"] == "kernel", "keys: read from the kernel (bpf_pks_key_owner), root or not")
dk = str(dev[0]) if dev else "1"
# Totals are the sum of the rows, every interval, every counter.
bad = []
for i, d in enumerate(docs):
    for c in ("opens", "enables", "pkrs_writes", "updates", "faults"):
        s = sum(r[c] for r in d["threads"])
        if s != d["interval"][c]:
            bad.append("interval %d %s: totals %d rows %d" % (i, c, d["interval"][c], s))
ok(not bad, "totals == sum of rows in all %d intervals (%s)" % (len(docs), "; ".join(bad[:3]) or "5 counters each"))
drops = sum(d["drops_total"]["all"] for d in docs)
ok(drops == 0, "no drops (map full / missed runs: %d)" % drops)
print("# system opens/s per interval: %s" % [round(d["interval"]["opens_per_s"]) for d in docs])
# The windows kthread: depth 3, 200 opens/s.
w = [(i, r) for i, d in enumerate(docs) for r in d["threads"] if r["tid"] == win]
ok(len(w) > 0 and all(r["comm"] == "pks-windows" for _, r in w), "pks-windows (tid %d) has rows" % win)
ok(max([r["max_depth"] for _, r in w] or [0]) == 3, "pks-windows: max depth 3 (%s)" % [r["max_depth"] for _, r in w])
# Intervals wholly inside its 6 s run: not its first or last.
# Per interval the rate jitters when the host is busy (the kthread keeps
# absolute deadlines and catches up), so judge the full intervals together.
full = [(docs[i]["interval_s"], r["opens"]) for i, r in w[1:-1]]
rate = sum(o for _, o in full) / max(sum(t for t, _ in full), 1e-9)
print("# pks-windows opens/s: %s" % [round(r["opens_per_s"], 1) for _, r in w])
ok(len(full) >= 2 and abs(rate - 200) <= 20,
   "pks-windows: %.1f opens/s over %d full intervals, within 10%% of 200" % (rate, len(full)))
# Its outermost open and close each write PKRS, reported in the window
# events themselves, so no protection update events.  A window's open and
# close can straddle an interval boundary: per interval +-2, over the run
# exactly two writes per open.
opens, writes = sum(r["opens"] for _, r in w), sum(r["pkrs_writes"] for _, r in w)
updates = sum(r["updates"] for _, r in w)
ok(writes == 2 * opens and updates == 0 and
   all(abs(r["pkrs_writes"] - 2 * r["opens"]) <= 2 for _, r in w),
   "pks-windows: two PKRS writes per open, no update events (%d opens, %d writes, %d updates)"
   % (opens, writes, updates))
# The leak: an idle kthread at depth 1, held since it started.
l = [(d, r) for d in docs for r in d["threads"] if r["tid"] == leak]
ok(len(l) >= 6, "pks-leak (tid %d) shows in every interval since it started (%d)" % (leak, len(l)))
if l:
    d, r = l[-1]
    elapsed = d["timestamp"] - t_leak
    print("# pks-leak last row: %s" % json.dumps(r))
    ok(r["comm"] == "pks-leak" and r["depth"] == 1 and r["max_depth"] == 1,
       "pks-leak: depth 1 while idle")
    ok(r["held_s"] is not None and elapsed - 0.5 <= r["held_s"] <= elapsed + 0.2 and not r["held_at_least"],
       "pks-leak: held %.2fs ~ %.2fs since the leak started" % (r["held_s"] or -1, elapsed))
    ok(r["rights"].get(dk) == "RW" and r["open_pct"] > 99, "pks-leak: key %s RW, open %.1f%% of the interval" % (dk, r["open_pct"]))
    ok(all(x["opens"] == 0 for _, x in l[1:]), "pks-leak: no opens after the first")
# fio: its threads open windows on pmem.
fio = sum(r["opens"] for d in docs for r in d["threads"] if r["comm"].startswith("fio"))
ok(fio > 0, "fio on ext4-dax: %d window opens seen on its rows" % fio)
# Our stray writes: 50 faults, on this shell's row.
faults = sum(r["faults"] for d in docs for r in d["threads"] if r["tid"] == me)
tot = sum(d["interval"]["faults"] for d in docs)
ok(faults == 50 and tot == 50, "50 injected stray writes: 50 faults on the writer's row (%d, totals %d)" % (faults, tot))
# Per key (always in JSON): the keys add up to the totals, the device key
# has the opens and the leak among its holders; -P: processes add up too.
bad = []
for i, d in enumerate(docs):
    for c in ("opens", "pkrs_writes"):
        if sum(k[c] for k in d["keys"]) != d["interval"][c]:
            bad.append("interval %d %s" % (i, c))
    if sum(k["faults_sum"] for k in d["keys"]) != d["interval"]["faults"]:
        bad.append("interval %d faults" % i)
    if abs(sum(k["open_pct"] for k in d["keys"]) - sum(r["open_pct"] for r in d["threads"])) > 0.1:
        bad.append("interval %d open_pct" % i)
    for c in ("opens", "faults"):
        if sum(p[c] for p in d["processes"]) != sum(r[c] for r in d["threads"]):
            bad.append("interval %d processes %s" % (i, c))
ok(not bad, "per key and per process: opens, PKRS writes, faults and open time add up to the totals and rows (%s)" % ("; ".join(bad[:3]) or "every interval"))
devk = [k for k in d0["keys"] if str(k["key"]) == dk]
ok(devk and devk[0]["holders"] >= 1 and sum(k["opens"] for d in docs for k in d["keys"] if str(k["key"]) == dk) > 0,
   "per key: key %s opened (fio, pks-windows) and held (pks-leak): %s" % (dk, json.dumps(devk)))
lp = [p for p in d0["processes"] if p["pid"] == leak]
ok(len(lp) == 1 and lp[0]["threads"] == 1 and lp[0]["holding"] == 1 and lp[0]["comm"] == "pks-leak",
   "per process: pks-leak is a process of one thread, holding its window (%s)" % lp)
PY
	cat "$OUT/checks"
	failures=$((failures + $(grep -c '^not ok' "$OUT/checks")))
	grep -q '^ok' "$OUT/checks" || fail "JSON checks ran"


	# Batch text while the leak is still held; -p keeps one process.
	local lt=${leak#*tid=}
	lt=${lt%% *}
	"$PKSTOP" -b -s open% 1 2 >"$OUT/run.txt" 2>&1
	sed 's/^/# /' "$OUT/run.txt" | tail -n 12
	check "batch text: pks-leak row with depth 1, held time and key RW" \
		grep -qE "^ *$lt +$lt pks-leak +0x[0-9a-f]{8} +1 +1 .* >?[0-9.]+m?s [0-9]+:RW" "$OUT/run.txt"
	check "batch text: header shows the Device Memory key" grep -q ': Device Memory' "$OUT/run.txt"
	"$PKSTOP" -b -K 0.5 1 >"$OUT/keys.txt" 2>&1
	sed 's/^/# /' "$OUT/keys.txt" | tail -n 4
	check "-K text: the key table, the Device Memory key held by at least one thread (pks-leak)" \
		grep -qE "^ +[0-9]+ Device Memory +[0-9.kM]+ +[0-9.kM]+ +[0-9.kM]+ +[0-9]+ +[1-9][0-9]*$" "$OUT/keys.txt"
	tty_fit
	# Another thread opens windows meanwhile: with -p it must not even get
	# an entry in the thread map (the filter is in BPF, not in the view).
	# The target: a leak of its own (the first may be over on a busy host).
	lt=$(hook leak 10000)
	lt=${lt#*tid=}
	lt=${lt%% *}
	"$PKSTOP" --json -p "$lt" 1 3 >"$OUT/pid.json" 2>&1 &
	local pk=$!
	first_interval "$OUT/pid.json"
	hook windows 1 500 2 >/dev/null
	wait "$pk"
	check "-p $lt: only that thread, in the view and in the thread map" python3 -c '
import json, sys
docs = [d for d in map(json.loads, open(sys.argv[1])) if d["type"] == "sample"]
for d in docs:
    assert [r["tid"] for r in d["threads"]] == [int(sys.argv[2])], d["threads"]
    assert d["threads_tracked"] == 1, d["threads_tracked"]
assert sum(d["interval"]["opens"] for d in docs) >= 100, "the other thread ran"
' "$OUT/pid.json" "$lt"
	cgroup_filter
	seed_race
	one_keys_iterator
	tty_keys
	core_without_depth
	core_without_kfunc
	umount "$MNT"
	irq_isolation
	softirq_rows
	openmetrics
	key_lifecycle
	# Let the leak end before power-off; then every PKRS is back to default.
	for _ in $(seq 60); do
		pgrep -x pks-leak >/dev/null || break
		sleep 1
	done
	check "pks-leak closed its window and exited" bash -c '! pgrep -x pks-leak'
	check "every CPU's PKRS is the default afterwards" pkrs_all_default
}

basics
"$MODE"
finish
