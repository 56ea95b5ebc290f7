#!/bin/bash
# pksfault in the guest, on the emulated NVDIMM (vm/run.sh --pmem IMG).
#   pksfault.sh          with PKS: injected stray accesses are reported one
#                        for one, leaks with duration and opening stack, the
#                        gate's exit codes, JSON, relaxed mode, fio on ext4-dax
#   pksfault.sh nopks    on a CPU without PKS (vm/run.sh --no-pks): the tool
#                        says faults cannot occur and the gate still works
set -uo pipefail
SUITE=${SUITE:-pksfault}
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSFAULT=${PKSFAULT:-$ROOT/build/tools/pksfault}
MODE_KNOB=/sys/module/memremap/parameters/pks_fault_mode
MNT=/mnt/pmem
OUT=$(mktemp -d)
INJ_LEN=1000000	# hex: 16 MiB at 64 MiB into namespace0.0, as in pmem.sh
INJ_N=50
case "${1:-pks}" in nopks) SUITE=$SUITE-nopks ;; esac

inj_phys() { printf '%x' $((0x$(ns_phys) + (64 << 20))); }

# pf NAME ARGS...: run pksfault, stdout to $OUT/NAME.out, stderr to
# $OUT/NAME.err; sets rc.
pf() {
	local name=$1
	shift
	rc=0
	"$PKSFAULT" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" || rc=$?
}

# Show a run's output when its test fails.
show() {
	sed 's/^/#   out: /' "$OUT/$1.out" | head -n 40
	sed 's/^/#   err: /' "$OUT/$1.err" | head -n 10
}

# expect_rc NAME WANT DESCRIPTION
expect_rc() {
	if [ "$rc" = "$2" ]; then
		pass "$3 (exit $rc)"
	else
		fail "$3 (exit $rc, want $2)"
		show "$1"
	fi
}

# Start pksfault in the background and wait until it has attached.
pf_bg() {
	local name=$1
	shift
	"$PKSFAULT" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
	bg_pid=$!
	wait_tracing "$name"
}

# wait_tracing NAME: until the background pksfault ($bg_pid) writing
# $OUT/NAME.err has attached (up to 30 s); fails if it does not.
wait_tracing() {
	local i
	for i in $(seq 1 300); do
		grep -q 'pksfault: tracing' "$OUT/$1.err" 2>/dev/null && return 0
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# jcheck FILE PYTHON-EXPRESSIONS...: each expression, evaluated with
# `ev` (the event objects), `s` (the summary) and `by(type)`, must be true;
# every line of FILE must parse as JSON on its own.
jcheck() {
	python3 - "$@" <<'PY'
import json, sys
path, exprs = sys.argv[1], sys.argv[2:]
ev = []
for n, line in enumerate(open(path), 1):
    try:
        ev.append(json.loads(line))
    except ValueError as e:
        sys.exit(f"line {n} is not JSON ({e}): {line!r}")
by = lambda t: [o for o in ev if o.get("type") == t]
# run_inject, or the hook's write handler when the compiler inlined it there
INJECTORS = ("run_inject", "run_command", "dev_access_test_write")
sums = by("summary")
if len(sums) != 1:
    sys.exit(f"{len(sums)} summary objects")
s = sums[0]
for x in exprs:
    if not eval(x):
        sys.exit(f"false: {x}\nsummary: {json.dumps(s)}")
PY
}

basics() {
	check "pksfault is built and statically linked" \
		bash -c "file -L '$PKSFAULT' | grep -q 'statically linked'"
	pf help --help
	[ "$rc" = 0 ] && grep -q '^EXAMPLES' "$OUT/help.out" && grep -q 'Exit status' "$OUT/help.out" &&
		pass "--help: examples and exit statuses, exit 0" || { fail "--help"; show help; }
	pf badopt -k 99
	[ "$rc" = 2 ] && [ "$(wc -l <"$OUT/badopt.err")" = 1 ] &&
		pass "bad option: one line on stderr, exit 2" || { fail "bad option (exit $rc)"; show badopt; }
	pf version --version
	[ "$rc" = 0 ] && grep -Eqx 'pksfault [0-9][0-9.a-z-]*' "$OUT/version.out" &&
		pass "--version: one line, exit 0" || { fail "--version (exit $rc)"; show version; }
	# A report that cannot be written is no verdict: exit 2, one line.
	rc=0
	"$PKSFAULT" --json -- true >/dev/full 2>"$OUT/full.err" || rc=$?
	[ "$rc" = 2 ] && [ "$(grep -c '^pksfault: writing' "$OUT/full.err")" = 1 ] &&
		grep -q '^pksfault: writing stdout: ' "$OUT/full.err" &&
		pass "output on a full disk: one line, exit 2 (never clean)" ||
		{ fail "output on a full disk (exit $rc)"; sed 's/^/#   /' "$OUT/full.err"; }
	# -o FILE: the records go there, CMD keeps stdout.
	pf ofile --json -o "$OUT/o.jsonl" -- echo hello
	if [ "$rc" = 0 ] && [ "$(cat "$OUT/ofile.out")" = hello ] &&
		jcheck "$OUT/o.jsonl" "s['exit'] == 0 and s['command_exit'] == 0" >/dev/null 2>&1; then
		pass "-o FILE --json: JSON Lines in FILE, CMD's output on stdout, exit 0"
	else
		fail "-o FILE --json (exit $rc)"
		show ofile
	fi
	pf verbose -v -d 1
	[ "$rc" = 0 ] && grep -q '^libbpf: ' "$OUT/verbose.err" &&
		pass "-v: libbpf debug output on stderr" || { fail "-v (exit $rc)"; show verbose; }
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$PKSFAULT" -d 1 \
		>"$OUT/noroot.out" 2>"$OUT/noroot.err" || rc=$?
	[ "$rc" = 2 ] && grep -q 'needs root' "$OUT/noroot.err" &&
		[ "$(wc -l <"$OUT/noroot.err")" = 1 ] &&
		pass "not root: one line, exit 2" || { fail "not root (exit $rc)"; show noroot; }
}

# The gate's exit statuses; WANT_CLEAN is what a clean command gives.
gate_codes() {
	pf clean -- true
	expect_rc clean 0 "gate: clean command"
	grep -q '^result: clean' "$OUT/clean.out" || { fail "gate: clean summary"; show clean; }
	pf missing -- /nonexistent/command
	expect_rc missing 2 "gate: missing command"
	grep -q "cannot run '/nonexistent/command'" "$OUT/missing.err" ||
		{ fail "gate: missing command named"; show missing; }
	pf failing -- sh -c 'exit 5'
	expect_rc failing 3 "gate: command's own failure is reported distinctly"
	grep -q '^command exited 5' "$OUT/failing.out" || { fail "gate: 'command exited 5'"; show failing; }
	command_group
	terminal
}

# On a terminal (script(1) gives one), CMD may read it: pksfault hands it
# the terminal and takes it back, as a shell does.  (In a process group
# of its own without the terminal, CMD stopped on SIGTTIN and pksfault
# waited for ever.)
terminal() {
	rc=0
	printf 'hello\n' | timeout 60 script -qec \
		"'$PKSFAULT' -- sh -c 'read x; echo got=\$x'" /dev/null >"$OUT/tty.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] && grep -q '^got=hello' "$OUT/tty.out" &&
		grep -q '^result: clean' "$OUT/tty.out"; then
		pass "on a terminal: CMD reads it (no SIGTTIN stop), the gate is clean (exit 0)"
	else
		fail "on a terminal: CMD reads it (exit $rc; 124: pksfault hung)"
		sed 's/^/#   /' "$OUT/tty.out" | head -n 20
	fi
}

# The command runs in its own process group, and the whole group goes
# when pksfault stops it: after --timeout, or when pksfault is told to
# stop; background children included.  (No "sleep 61/62" must remain.)
command_group() {
	local t0 t1 pk
	t0=$(date +%s)
	pf timeout --timeout 2 -- sh -c 'sleep 61 & sleep 61'
	t1=$(date +%s)
	if [ "$rc" = 4 ] && [ $((t1 - t0)) -lt 15 ] && ! pgrep -f 'sleep 61' >/dev/null &&
		grep -q '^command timed out' "$OUT/timeout.out"; then
		pass "--timeout 2: the command and its background child stopped, exit 4 ($((t1 - t0)) s)"
	else
		fail "--timeout 2: command group stopped, exit 4 (exit $rc, $((t1 - t0)) s, left: $(pgrep -fa 'sleep 61' | tr '\n' ' '))"
		show timeout
		pkill -f 'sleep 61'
	fi
	"$PKSFAULT" -- sh -c 'sleep 62 & sleep 62' >"$OUT/term.out" 2>&1 &
	pk=$!
	# Once the command runs (pksfault starts it when attached: a loaded
	# host can take longer than a fixed sleep, and SIGTERM before the
	# handler is in place kills pksfault outright).
	for _ in $(seq 1 300); do pgrep -f '^sleep 62$' >/dev/null && break; sleep 0.1; done
	kill -TERM "$pk"
	rc=0
	wait "$pk" || rc=$?
	if ! pgrep -f 'sleep 62' >/dev/null && grep -q '^command killed by signal 15' "$OUT/term.out"; then
		pass "SIGTERM to pksfault: the command's whole group is stopped too (exit $rc)"
	else
		fail "SIGTERM to pksfault: the command's group stopped (exit $rc, left: $(pgrep -fa 'sleep 62' | tr '\n' ' '))"
		show term
		pkill -f 'sleep 62'
	fi
}

# Injected stray accesses: one event each, with the right key, address,
# access type, and a stack naming the injector.
injection() {
	local phys key lo hi out
	phys=$(inj_phys) || { fail "namespace address not found"; return; }
	key=$(sed -n 's/^\([0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated")
	lo=$((0x$phys))
	hi=$((lo + 0x$INJ_LEN))

	pf inject --json --junit "$OUT/inject.xml" -- sh -c "echo inject $phys $INJ_LEN $INJ_N 42 nowindow >$HOOK; cat $HOOK"
	expect_rc inject 1 "gate: injecting command fails the gate"
	grep -q "attempted=$INJ_N blocked=$INJ_N" "$OUT/inject.err" ||
		{ fail "injection itself (strict)"; show inject; }
	# --json: the command's output went to stderr, stdout is JSON Lines only.
	if out=$(jcheck "$OUT/inject.out" \
		"len(by('fault')) == $INJ_N" "s['faults'] == $INJ_N and s['faults_counted'] == $INJ_N" \
		"all(f['key'] == $key and f['owner'] == 'Device Memory' for f in by('fault'))" \
		"all(f['write'] and f['access'] == 'write' for f in by('fault'))" \
		"all($lo <= int(f['phys'], 16) < $hi for f in by('fault'))" \
		"all(f['device'] == 'namespace0.0' and $((64 << 20)) <= int(f['device_offset'], 16) < $((80 << 20)) for f in by('fault'))" \
		"all(f['mode'] == 'strict' and f['outcome'] == 'fixed_up' for f in by('fault'))" \
		"all(f['depth'] == 0 and f['rights'][str($key)] == 'NA' for f in by('fault'))" \
		"all(f['ip_sym'].startswith('copy_to_kernel_nofault') for f in by('fault'))" \
		"all(f['stack'][0] == f['ip_sym'] for f in by('fault'))" \
		"all(any(x.split('+')[0] in INJECTORS for x in f['stack']) for f in by('fault'))" \
		"s['lost_events'] == 0 and s['exit'] == 1 and s['command_exit'] == 0" \
		"len(set(f['address'] for f in by('fault'))) > 1" 2>&1); then
		pass "strict: $INJ_N stray writes -> exactly $INJ_N faults: key $key, address in the range, write, ip copy_to_kernel_nofault, stack names the injector"
		pass "JSON: every line parses, summary carries the same count ($INJ_N)"
	else
		fail "strict: $INJ_N stray writes reported one for one"
		echo "$out" | sed 's/^/#   /'
		head -c 3000 "$OUT/inject.out" | sed 's/^/#   /'
	fi

	# --junit: JUnit XML a real parser reads, each fault's record and stack.
	if out=$(/usr/bin/python3 - "$OUT/inject.xml" "$INJ_N" 2>&1 <<'PY'
import sys
from junitparser import JUnitXml, Failure, Skipped
suite = list(JUnitXml.fromfile(sys.argv[1]))[0]
c = {t.name: t for t in suite}
n = int(sys.argv[2])
f = c["stray faults"].result[0]
assert isinstance(f, Failure) and f.message == "%d stray faults" % n, f.message
assert f.text.count(" FAULT ") == n and f.text.count("ip: copy_to_kernel_nofault") == n, f.text[:400]
assert "run_inject+0x" in f.text or "dev_access_test_write+0x" in f.text, f.text[:800]
assert isinstance(c["leaked windows"].result[0], Skipped)
assert not c["unbalanced closes"].result and not c["lost events"].result
assert suite.tests == 4 and suite.failures == 1, (suite.tests, suite.failures)
PY
	); then
		pass "--junit: the JUnit report parses (junitparser): stray faults failed with all $INJ_N records and stacks, the other checks passed or skipped"
	else
		fail "--junit: JUnit report"
		echo "$out" | sed 's/^/#   /' | tail -n 10
	fi

	# --replay: the recorded run's summary again, offline, symbols from a
	# kallsyms copy; raw addresses kept in the records make that possible.
	cp /proc/kallsyms "$OUT/kallsyms.copy"
	pf replay --replay "$OUT/inject.out" --json
	local rrc=$rc
	pf replay-text --replay "$OUT/inject.out" --symbols "$OUT/kallsyms.copy"
	if [ "$rrc" = 1 ] && [ "$rc" = 1 ] && python3 - "$OUT/inject.out" "$OUT/replay.out" <<'PY' &&
import json, sys
live = [json.loads(l) for l in open(sys.argv[1])]
again = json.loads(open(sys.argv[2]).read())
assert all(int(a, 16) for f in live if f["type"] == "fault" for a in f["stack_addrs"])
assert live[-1] == again, {k: (live[-1].get(k), again.get(k)) for k in live[-1] if live[-1].get(k) != again.get(k)}
PY
		grep -q "^faults: $INJ_N (fixed_up $INJ_N" "$OUT/replay-text.out" &&
		grep -q "x at copy_to_kernel_nofault+0x" "$OUT/replay-text.out"; then
		pass "--replay: the recorded run gives the same JSON summary (exit 1); re-symbolised from a kallsyms copy in text"
	else
		fail "--replay (exit $rrc, text $rc)"
		show replay
		show replay-text
	fi

	# The same in text, for reads.
	pf read --folded "$OUT/read.folded" -- sh -c "echo inject $phys $INJ_LEN $INJ_N 43 read >$HOOK; cat $HOOK"
	expect_rc read 1 "gate: stray reads fail the gate"
	local n
	n=$(grep -c " FAULT .* read addr=0x[0-9a-f]* dev=namespace0\.0+0x[0-9a-f]* key=$key (Device Memory) pkrs=0x55555554 .* mode=strict outcome=fixed_up" "$OUT/read.out")
	[ "$n" = "$INJ_N" ] && grep -q '^    ip: copy_from_kernel_nofault+0x' "$OUT/read.out" &&
		grep -qE '^      (run_inject|run_command|dev_access_test_write)\+0x' "$OUT/read.out" &&
		grep -q "^faults: $INJ_N (fixed_up $INJ_N" "$OUT/read.out" &&
		pass "text: $INJ_N stray reads -> $INJ_N FAULT lines with device, owner, PKRS, ip and stack" ||
		{ fail "text: stray reads ($n FAULT lines)"; show read; }
	# --folded: flame-graph lines, the faulting function last, INJ_N in all.
	if [ "$(awk '{ n += $NF } END { print n }' "$OUT/read.folded")" = "$INJ_N" ] &&
		! grep -qv ';copy_from_kernel_nofault [0-9]*$' "$OUT/read.folded"; then
		pass "--folded: fault stacks folded for flame graphs, ending in copy_from_kernel_nofault, $INJ_N counted"
	else
		fail "--folded: fault stacks folded"
		sed 's/^/#   /' "$OUT/read.folded" | head -n 5
	fi
	! grep -q $'\033' "$OUT/read.out" && pass "text: no terminal escapes (TERM unset)" ||
		fail "text: terminal escapes in output"

	# Accesses inside a window are no faults: clean.
	pf window -- sh -c "echo inject $phys $INJ_LEN $INJ_N 44 window >$HOOK; cat $HOOK"
	expect_rc window 0 "gate: accesses inside a window are clean"

	# Filters: a key that is not the device key sees nothing; -p another process either.
	pf otherkey -k $((key == 15 ? 14 : key + 1)) -- sh -c "echo inject $phys $INJ_LEN 5 45 nowindow >$HOOK"
	expect_rc otherkey 0 "filter -k: faults on another key are not reported"
	pf otherpid -p 1 -- sh -c "echo inject $phys $INJ_LEN 5 46 nowindow >$HOOK"
	expect_rc otherpid 0 "filter -p: faults by another process are not reported"
	pf othertid -t 1 -- sh -c "echo inject $phys $INJ_LEN 5 48 nowindow >$HOOK"
	expect_rc othertid 0 "filter -t: faults by another thread are not reported"
	pf samekey -k "$key" -- sh -c "echo inject $phys $INJ_LEN 5 49 nowindow >$HOOK"
	[ "$rc" = 1 ] && [ "$(grep -c ' FAULT ' "$OUT/samekey.out")" = 5 ] &&
		pass "filter -k: the device key's faults are reported (5 of 5)" ||
		{ fail "filter -k $key (exit $rc)"; show samekey; }
}

relaxed() {
	local phys
	phys=$(inj_phys)
	[ -w "$MODE_KNOB" ] || { fail "relaxed: $MODE_KNOB missing"; return; }
	echo relaxed >"$MODE_KNOB"
	# Reads: the hook refuses stray writes where they would land.
	pf relaxed --json -- sh -c "echo inject $phys $INJ_LEN $INJ_N 47 read >$HOOK; cat $HOOK"
	echo strict >"$MODE_KNOB"
	expect_rc relaxed 1 "relaxed: injecting command fails the gate"
	if out=$(jcheck "$OUT/relaxed.out" "len(by('fault')) == $INJ_N" \
		"all(f['mode'] == 'relaxed' and f['outcome'] == 'allowed' for f in by('fault'))" \
		"s['faults_by_outcome']['allowed'] == $INJ_N" 2>&1) &&
		grep -q "landed=$INJ_N" "$OUT/relaxed.err"; then
		pass "relaxed: $INJ_N injected faults reported with outcome allowed"
	else
		fail "relaxed: faults reported as allowed"
		echo "$out" | sed 's/^/#   /'
		show relaxed
	fi
}

# hold_stack NAME LABEL DESCRIPTION: run NAME's leak (the hook's "hold")
# was reported with a stack under LABEL that names the hook (run_hold()
# is inlined into the debugfs handler).
hold_stack() {
	if grep -A14 ' LEAK .* comm=sh .* held so far' "$OUT/$1.out" |
		sed -n "/^    $2:/,\$p" | grep -Eq '^      (run_hold|run_command|pks_hooks_write)\+0x'; then
		pass "$3"
	else
		fail "$3"
		show "$1"
	fi
}

leaks() {
	local tid out held
	# The asynchronous leak hook: a kthread holds one window for 600 ms.
	# Reported once while open, as soon as it crosses 200 ms, then its end.
	if ! pf_bg leak --leak 200 -d 6; then
		fail "leak: pksfault did not attach"
		show leak
		return
	fi
	out=$(hook leak 600)
	tid=$(sed -n 's/^leak tid=\([0-9]*\) .*/\1/p' <<<"$out")
	rc=0
	wait "$bg_pid" || rc=$?
	held=$(sed -n "s/.* LEAK-END pid=[0-9]* tid=$tid comm=pks-leak key=[0-9]* (Device Memory) held \([0-9.]*\) ms opened_by=leak_thread+.*/\1/p" "$OUT/leak.out")
	echo "# leak: hook said '$out', pksfault says held ${held:-?} ms"
	if [ -n "$held" ] && python3 -c "import sys; sys.exit(not 590 <= $held < 5000)" &&
		grep -A12 " LEAK pid=[0-9]* tid=$tid .* held so far" "$OUT/leak.out" |
			grep -q '^      leak_thread+0x' && [ "$rc" = 1 ] &&
		grep -q '^leaks (windows held > 200 ms): 1 closed, 0 still open (1 reported while open)' \
			"$OUT/leak.out"; then
		pass "leak: pks-leak window reported while open with its holder's stack (leak_thread), then its end ($held ms), counted once, exit 1"
	else
		fail "leak: pks-leak window reported (exit $rc)"
		show leak
	fi
	leak_never_closes
	leak_before_attach

	# A window still open when tracing ends is listed with its age.
	pf open --leak 100 --json -- sh -c "echo leak 4000 >$HOOKS; sleep 1"
	expect_rc open 1 "leak: a window still open at exit past the threshold fails the gate"
	if out=$(jcheck "$OUT/open.out" \
		"any(o['comm'] == 'pks-leak' and o['still_open'] and o['held_ms'] > 500 and o['opened_by'].startswith('leak_thread') for o in by('open_window'))" \
		"s['still_open_leaks'] >= 1" 2>&1); then
		pass "leak: still-open window listed at exit with how long so far"
	else
		fail "leak: still-open window listed at exit"
		echo "$out" | sed 's/^/#   /'
		show open
	fi
	sleep 3.5	# let the 4-second leak close before the next test

	# A synchronous hold in the command itself.  Found open by a sweep:
	# its stack is the holder's now, asleep inside the hook's window;
	# with --open-stacks, the opener's, taken when the window opened.
	pf hold --leak 100 -- sh -c "echo hold 300 >$HOOKS; cat $HOOKS"
	expect_rc hold 1 "leak: a window held 300 ms by the command is a leak at 100 ms"
	hold_stack hold "held at (holder's stack now)" \
		"leak: found open, reported with the holder's stack now (the hook's window)"
	pf hold3 --leak 100 --open-stacks -- sh -c "echo hold 300 >$HOOKS; cat $HOOKS"
	expect_rc hold3 1 "leak: --open-stacks, the same hold is a leak"
	hold_stack hold3 "opened at" \
		"leak: --open-stacks reports the opener's stack (the hook's dev_access_enable call)"
	pf hold2 --leak 1000 -- sh -c "echo hold 300 >$HOOKS; cat $HOOKS"
	expect_rc hold2 0 "leak: the same window under a 1000 ms threshold is clean"

	# Histogram of window durations while the windows kthread runs.
	pf hist --hist --json -- sh -c "echo windows 2 200 2 >$HOOKS; cat $HOOKS; sleep 3"
	if out=$(jcheck "$OUT/hist.out" "s['windows_closed'] >= 100" \
		"sum(b['count'] for b in s['hist_usecs']) == s['windows_closed']" \
		"s['lost_events'] == 0" 2>&1) && [ "$rc" = 0 ]; then
		pass "--hist: window durations histogrammed ($(python3 -c "import json; print([json.loads(l) for l in open('$OUT/hist.out')][-1]['windows_closed'])") windows), exit 0"
	else
		fail "--hist (exit $rc)"
		echo "$out" | sed 's/^/#   /'
		show hist
	fi
}

# A window that stays open fails the gate while it is still open: its
# "leak" record comes within a poll or so of the threshold, long before
# the window closes (the kthread holds it 3 s; the gate watches 4 s).
leak_never_closes() {
	local out
	if ! pf_bg open-now --leak 200 --json -d 4; then
		fail "leak: pksfault did not attach"
		show open-now
		return
	fi
	hook leak 3000 >/dev/null
	rc=0
	wait "$bg_pid" || rc=$?
	if out=$(jcheck "$OUT/open-now.out" \
		"len([l for l in by('leak') if l['comm'] == 'pks-leak']) == 1" \
		"all(l['still_open'] and 200 < l['held_ms'] < 1200 and l['opened_by'].startswith('leak_thread') for l in by('leak') if l['comm'] == 'pks-leak')" \
		"any(l['comm'] == 'pks-leak' and l['held_ms'] >= 2990 for l in by('leak_end'))" \
		"s['leaks'] == 1 and s['still_open_leaks'] == 0 and s['leaks_reported_open'] == 1" 2>&1) &&
		[ "$rc" = 1 ]; then
		pass "leak: reported while still open, within a poll of 200 ms (not at its close 3 s later), counted once, exit 1"
	else
		fail "leak: reported while still open (exit $rc)"
		echo "$out" | sed 's/^/#   /'
		show open-now
	fi
}

# A window opened before pksfault attached: found by the task iterator,
# held "since attach", gated like any other (RFC: it was invisible).
# The kthread holds it 6 s. With a 4 s hold, one CI run (two guests on
# two CPUs) saw the window close within 100 ms of attach, so loading and
# attaching took about 3.4 s there; and a window that closes before the
# first poll after attach is, as far as pksfault can know, a short one
# (it cannot see when a window opened before it did).
leak_before_attach() {
	local out tid
	out=$(hook leak 6000)
	tid=$(sed -n 's/^leak tid=\([0-9]*\) .*/\1/p' <<<"$out")
	sleep 0.5
	pf before --leak 100 --json -- sleep 1.5
	if out=$(jcheck "$OUT/before.out" \
		"any(l['tid'] == $tid and l['opened_before_attach'] and l['still_open'] and l['held_ms'] < 1100 for l in by('leak'))" \
		"s['windows_open_at_attach'] >= 1 and s['leaks'] + s['still_open_leaks'] >= 1" 2>&1) &&
		[ "$rc" = 1 ]; then
		pass "leak: a window opened before attach is found, reported within a poll of 100 ms, fails the gate (exit 1)"
	else
		fail "leak: a window opened before attach fails the gate (exit $rc)"
		echo "$out" | sed 's/^/#   /'
		show before
	fi
	while [ -d "/proc/$tid" ]; do sleep 0.2; done	# closed before the next test
}

# --cgroup gates CMD's own cgroup (and below): a stray fault from another
# cgroup does not fail it, one from CMD does.
cgroup_gate() {
	local cg=/sys/fs/cgroup phys i out p
	phys=$(inj_phys) || { fail "namespace address not found"; return; }
	grep -q "^[^ ]* $cg cgroup2 " /proc/mounts || mount -t cgroup2 cgroup2 "$cg" ||
		{ fail "--cgroup: cannot mount cgroup2"; return; }
	mkdir -p "$cg/pf-job/sub" "$cg/pf-other"
	rc=0
	sh -c "echo \$\$ >$cg/pf-job/cgroup.procs && exec '$PKSFAULT' --cgroup --json -- sleep 8" \
		>"$OUT/cg.out" 2>"$OUT/cg.err" &
	bg_pid=$!
	# CMD starts once the programs are attached: wait for it in the cgroup.
	for i in $(seq 1 300); do
		for p in $(cat "$cg/pf-job/cgroup.procs"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && break 2
		done
		sleep 0.1
	done
	sh -c "echo \$\$ >$cg/pf-other/cgroup.procs && echo inject $phys $INJ_LEN 5 51 nowindow >$HOOK"
	wait "$bg_pid" || rc=$?
	if out=$(jcheck "$OUT/cg.out" "s['faults'] == 0 and s['faults_counted'] == 0" 2>&1) &&
		[ "$rc" = 0 ]; then
		pass "--cgroup: 5 stray writes from another cgroup do not fail CMD's gate (exit 0)"
	else
		fail "--cgroup: another cgroup's faults ignored (exit $rc)"
		echo "$out" | sed 's/^/#   /'
		show cg
	fi
	rc=0
	sh -c "echo \$\$ >$cg/pf-job/cgroup.procs && exec '$PKSFAULT' --cgroup --json -- \
		sh -c 'echo \$\$ >$cg/pf-job/sub/cgroup.procs && echo inject $phys $INJ_LEN 5 52 nowindow >$HOOK'" \
		>"$OUT/cg2.out" 2>"$OUT/cg2.err" || rc=$?
	if out=$(jcheck "$OUT/cg2.out" "s['faults'] == 5 and len(by('fault')) == 5" 2>&1) &&
		[ "$rc" = 1 ]; then
		pass "--cgroup: 5 stray writes from CMD, in a cgroup below its own, fail the gate (exit 1)"
	else
		fail "--cgroup: CMD's own faults fail the gate (exit $rc)"
		echo "$out" | sed 's/^/#   /'
		show cg2
	fi
	rmdir "$cg/pf-job/sub" "$cg/pf-job" "$cg/pf-other" 2>/dev/null
}

# Attaching while a thread opens and closes windows as fast as it can:
# an open seen by dev_access_enable's program before dev_access_disable's
# was attached, or a seed of a depth whose open event had not fired yet,
# must not become a window that never closes: no attach may report a
# leak (before the fix, 7 of 12 did).  10 attaches here, about 12 s each
# under the storm; `make soak` runs 200 (PKS_GUEST_SEED_ATTACHES).  The
# storm is the windows kthread at 100000 Hz (under TCG it never sleeps,
# and hz * seconds is a count of windows: 100000 a storm, started again
# when one ends); each attach is a real run of the gate, a load and an
# attach of every program.
seed_race() {
	local n=${PKS_GUEST_SEED_ATTACHES:-10} i false_leaks=0 in_flight=0 bad=0 out t0 leaks flight storms
	rm -f "$OUT/race.stop"
	(
		while [ ! -e "$OUT/race.stop" ]; do
			hook windows 1 100000 1 >/dev/null || break
			while pgrep -x pks-windows >/dev/null; do sleep 0.1; done
		done
	) &
	storms=$!
	t0=$(date +%s)
	for i in $(seq 1 "$n"); do
		pf race --leak 1000 --json -- sleep 1.5
		# A false leak never closes: still open at exit, held since
		# attach.  A window that closed was real, however long (a vCPU
		# the host did not run for half a second holds one that long).
		out=$(python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1])][-1]
print(s["still_open_leaks"], s.get("seeds_in_flight", 0), s["leaks"])' "$OUT/race.out" 2>&1) ||
			{ bad=$((bad + 1)); cp "$OUT/race.out" "$OUT/race-bad.out"; continue; }
		read -r leaks flight closed <<<"$out"
		[ "$leaks" = 0 ] && { [ "$rc" = 0 ] || [ "$closed" -gt 0 ]; } ||
			{ false_leaks=$((false_leaks + 1)); cp "$OUT/race.out" "$OUT/race-bad.out"; }
		[ "$closed" = 0 ] || echo "# seed race: attach $i: $closed long windows that closed (real, not counted)"
		in_flight=$((in_flight + flight))
	done
	touch "$OUT/race.stop"
	wait "$storms"
	echo "# seed race: $n attaches in $(($(date +%s) - t0)) s, $in_flight seeds were opens in flight, $false_leaks false leaks"
	if [ "$false_leaks" = 0 ] && [ "$bad" = 0 ]; then
		pass "seed race: $n attaches during window storms, 0 false leaks ($in_flight seeds were opens in flight)"
	else
		fail "seed race: $n attaches during window storms: $false_leaks false leaks, $bad unreadable runs"
		sed 's/^/#   /' "$OUT/race-bad.out" 2>/dev/null | cut -c1-300 | head -n 20
	fi
}

fio_gate() {
	local runtime=${FIO_RUNTIME:-30}
	check "ext4: mkfs.ext4 on /dev/pmem0" mkfs.ext4 -q -F -b 4096 /dev/pmem0
	check "ext4: mount -o dax" mount -o dax /dev/pmem0 "$MNT"
	pf fio --json -- fio --name=gate --filename="$MNT/fio.dat" --size=64M --rw=randrw \
		--bs=4k --ioengine=psync --time_based --runtime="$runtime" --randrepeat=1 \
		--output-format=terse
	if [ "$rc" = 0 ] && out=$(jcheck "$OUT/fio.out" "s['faults'] == 0" "s['lost_events'] == 0" \
		"s['command_exit'] == 0" 2>&1); then
		pass "gate: ${runtime}s fio on ext4-dax under pksfault exits 0"
	else
		fail "gate: ${runtime}s fio on ext4-dax (exit $rc)"
		echo "${out:-}" | sed 's/^/#   /'
		show fio
	fi
	umount "$MNT"
}

# With CAP_BPF and CAP_PERFMON only, as libbpf-tools run: faults are
# reported and gated as for root; the key table comes from the kernel
# (bpf_pks_key_owner(): debugfs is root only); each thing a missing
# capability hides is said in one line (no CAP_SYSLOG: no symbols).
without_root() {
	local phys key out
	phys=$(inj_phys) || { fail "namespace address not found"; return; }
	key=$(sed -n 's/^\([0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated")
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+bpf,+perfmon \
		--ambient-caps=+bpf,+perfmon "$PKSFAULT" -v --json -d 3 \
		>"$OUT/caps.out" 2>"$OUT/caps.err" &
	bg_pid=$!
	wait_tracing caps
	echo "inject $phys $INJ_LEN 5 50 read" >"$HOOK"
	rc=0
	wait "$bg_pid" || rc=$?
	grep -v '^libbpf: ' "$OUT/caps.err" >"$OUT/caps.msgs"
	if out=$(jcheck "$OUT/caps.out" \
		"len(by('fault')) == 5 and s['faults'] == 5 and s['exit'] == 1" \
		"all(f['key'] == $key and f['owner'] == 'Device Memory' and f['rights'][str($key)] == 'NA' for f in by('fault'))" 2>&1) &&
		[ "$rc" = 1 ] &&
		grep -qx "pksfault: $(grep -c . "$DBG/pks_keys_allocated") keys, from kernel" "$OUT/caps.msgs" &&
		[ "$(grep -c 'CAP_SYSLOG' "$OUT/caps.msgs")" = 1 ] &&
		! grep -q 'no key table' "$OUT/caps.msgs"; then
		pass "CAP_BPF+CAP_PERFMON, not root: 5 stray reads reported, exit 1; keys from the kernel, as many as debugfs lists; one line for the missing CAP_SYSLOG"
	else
		fail "CAP_BPF+CAP_PERFMON, not root (exit $rc)"
		echo "$out" | sed 's/^/#   /'
		sed 's/^/#   msg: /' "$OUT/caps.msgs" | head -n 10
		show caps
	fi
}

nopks() {
	pf nopks -- true
	expect_rc nopks 0 "no PKS: gate with a clean command"
	grep -qx 'pksfault: this CPU has no PKS: protection-key faults cannot occur' "$OUT/nopks.err" &&
		pass "no PKS: says faults cannot occur, one line" || { fail "no PKS line"; show nopks; }
	pf nopks-missing -- /nonexistent/command
	expect_rc nopks-missing 2 "no PKS: gate with a missing command"
	pf nopks-false -- false
	expect_rc nopks-false 3 "no PKS: gate with a failing command"
	if [ -b /dev/pmem0 ]; then
		pf nopks-fio -- fio --name=gate --filename=/dev/pmem0 --size=32M --rw=randwrite \
			--bs=4k --ioengine=psync --direct=1 --time_based --runtime=5 --output-format=terse
		expect_rc nopks-fio 0 "no PKS: fio on unprotected pmem under the gate"
	fi
}

mkdir -p "$MNT"
if [ ! -x "$PKSFAULT" ]; then
	fail "$PKSFAULT not built (make -C tools)"
	finish
	exit
fi
if [ "${1:-pks}" = seed-race ]; then
	# make soak: the seed race alone, at its full count.
	check "fsdax namespace" ns_mode fsdax mem
	seed_race
	finish
	exit
fi
basics
if [ "${1:-pks}" = nopks ]; then
	nopks
else
	if [ ! -e "$HOOK" ]; then
		fail "test hook $HOOK missing (needs PKS, CONFIG_PKS_TESTING and a protected pmem)"
	fi
	check "fsdax namespace" ns_mode fsdax mem
	gate_codes
	injection
	cgroup_gate
	without_root
	relaxed
	leaks
	seed_race
	fio_gate
	check "every CPU's PKRS is the default after the pksfault tests" pkrs_all_default
fi
rm -rf "$OUT"
finish
