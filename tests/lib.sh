# shellcheck shell=bash
# Host-side TAP-like reporting for make test: one "ok N - ..." or
# "not ok N - ..." line per check, and the closing "N passed, N failed".

TEST_N=0
TEST_PASSED=0
TEST_FAILED=0
LOGS=${LOGS:-$BUILD/logs}
mkdir -p "$LOGS"

tap_ok() {
	TEST_N=$((TEST_N + 1))
	TEST_PASSED=$((TEST_PASSED + 1))
	echo "ok $TEST_N - $*"
}

tap_not_ok() {
	TEST_N=$((TEST_N + 1))
	TEST_FAILED=$((TEST_FAILED + 1))
	echo "not ok $TEST_N - $*"
}

# tap_run DESCRIPTION LOGNAME COMMAND...: run a step, log its output, and
# show the log's tail when it fails.
tap_run() {
	local desc=$1 log=$LOGS/$2.log
	shift 2
	if "$@" >"$log" 2>&1; then
		tap_ok "$desc"
		return 0
	fi
	tap_not_ok "$desc (log: $log)"
	tail -n 25 "$log" | sed 's/^/#   /'
	return 1
}

# Re-number the guest's "ok - ..." lines and count them: TAP_IMPORTED is
# the number of checks the log reported.
tap_import() {
	local line
	TAP_IMPORTED=0
	[ -r "$1" ] || return 0
	while IFS= read -r line; do
		# "ok - desc" from guests, "ok N - desc" from host tests.
		if [[ "$line" =~ ^ok\ ([0-9]+\ )?-\ (.*)$ ]]; then
			tap_ok "${BASH_REMATCH[2]}"
			TAP_IMPORTED=$((TAP_IMPORTED + 1))
		elif [[ "$line" =~ ^not\ ok\ ([0-9]+\ )?-\ (.*)$ ]]; then
			tap_not_ok "${BASH_REMATCH[2]}"
			TAP_IMPORTED=$((TAP_IMPORTED + 1))
		elif [[ "$line" == "#"* ]]; then
			echo "$line"
		fi
	done < <(sed 's/\r$//' "$1")
}

tap_summary() {
	echo "$TEST_PASSED passed, $TEST_FAILED failed"
	[ "$TEST_FAILED" -eq 0 ]
}

# --- plans: how many checks each suite reports, known before it runs -----
# tests/plan lists every suite make test runs, with its number of checks.
# A suite that reports another number (none, fewer: it stopped early), a
# suite with no plan, and a planned suite that never ran all fail.
PLAN_FILE=${PLAN_FILE:-$ROOT/tests/plan}
declare -A PLAN=() PLAN_RAN=()
plan_load() {
	local name n
	[ -r "$PLAN_FILE" ] || { tap_not_ok "plan: $PLAN_FILE is readable"; return 1; }
	while read -r name n _; do
		case "$name" in "" | "#"*) continue ;; esac
		PLAN[$name]=$n
	done <"$PLAN_FILE"
}
# plan_check NAME COUNT: one line for whether suite NAME reported its plan.
plan_check() {
	local name=$1 got=$2 want=${PLAN[$1]:-}
	PLAN_RAN[$name]=1
	if [ -z "$want" ]; then
		tap_not_ok "$name: has a plan in $(basename "$PLAN_FILE") (reported $got checks)"
	elif [ "$got" = "$want" ]; then
		tap_ok "$name: reported all $want planned checks"
	else
		tap_not_ok "$name: reported $got checks, plan is $want"
	fi
}
# plan_finish: every planned suite ran.
plan_finish() {
	local name
	for name in $(printf '%s\n' "${!PLAN[@]}" | sort); do
		[ -n "${PLAN_RAN[$name]:-}" ] || tap_not_ok "$name: planned suite did not run"
	done
}

# guest_run NAME "VM OPTIONS" SCRIPT [ARGS...]: boot a VM for suite NAME
# and run the script; its output in $LOGS/guest-NAME.log, the verdict's
# status in .rc.  Prints nothing: guest_report does, so that two runs can
# share the machine and still report in order.
guest_run() {
	local name=$1 log=$LOGS/guest-$1.log rc=0 opts
	read -r -a opts <<<"$2"
	shift 2
	local t0=$SECONDS
	rm -f "$log" "$log.console" "$LOGS/guest-$name.verdict" "$LOGS/guest-$name.rc"
	"$ROOT/vm/run.sh" --quiet --timeout "${GUEST_TIMEOUT:-600}" --log "$log" \
		"${opts[@]}" "$@" 2>"$LOGS/guest-$name.verdict" || rc=$?
	echo "$rc $((SECONDS - t0))" >"$LOGS/guest-$name.rc"
}

# guest_report NAME: the suite's TAP lines, one line for its plan and one
# for the run itself.
guest_report() {
	local name=$1 log=$LOGS/guest-$1.log rc secs
	read -r rc secs <"$LOGS/guest-$name.rc" 2>/dev/null || rc=none
	tap_import "$log"
	plan_check "$name" "$TAP_IMPORTED"
	sed -n 's/^PKS-VM-BOOTED uptime=\([0-9.]*\).*/# '"$name"': boot to first test: \1 s guest uptime/p' "$log" 2>/dev/null
	echo "# $name: ${secs:-?} s on the host"
	if [ "$rc" = 0 ]; then
		tap_ok "$name: guest ran clean (no oops/WARN/BUG/stall/lockdep report/taint, end sentinel seen)"
	else
		tap_not_ok "$name: guest ran clean (vm/run.sh exit $rc, log: $log)"
		sed 's/^/#   /' "$LOGS/guest-$name.verdict" 2>/dev/null | tail -n 25
	fi
}

# guest_suite NAME "VM OPTIONS" SCRIPT [ARGS...]: run and report.
guest_suite() {
	guest_run "$@"
	guest_report "$1"
}
