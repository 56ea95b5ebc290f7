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

# Re-number the guest's "ok - ..." lines and count them.
tap_import() {
	local line
	while IFS= read -r line; do
		# "ok - desc" from guests, "ok N - desc" from host tests.
		if [[ "$line" =~ ^ok\ ([0-9]+\ )?-\ (.*)$ ]]; then
			tap_ok "${BASH_REMATCH[2]}"
		elif [[ "$line" =~ ^not\ ok\ ([0-9]+\ )?-\ (.*)$ ]]; then
			tap_not_ok "${BASH_REMATCH[2]}"
		elif [[ "$line" == "#"* ]]; then
			echo "$line"
		fi
	done < <(sed 's/\r$//' "$1")
}

tap_summary() {
	echo "$TEST_PASSED passed, $TEST_FAILED failed"
	[ "$TEST_FAILED" -eq 0 ]
}

# guest_suite NAME "VM OPTIONS" SCRIPT [ARGS...]: run a guest script in a
# VM; its TAP lines, then one line for the run itself.
guest_suite() {
	local name=$1 log=$LOGS/guest-$1.log rc=0 opts
	read -r -a opts <<<"$2"
	shift 2
	"$ROOT/vm/run.sh" --quiet --timeout "${GUEST_TIMEOUT:-600}" --log "$log" \
		"${opts[@]}" "$@" 2>"$LOGS/guest-$name.verdict" || rc=$?
	tap_import "$log"
	sed -n 's/^PKS-VM-BOOTED uptime=\([0-9.]*\).*/# '"$name"': boot to first test: \1 s guest uptime/p' "$log"
	if [ "$rc" = 0 ]; then
		tap_ok "$name: guest ran clean (no oops/WARN/BUG, end sentinel seen)"
	else
		tap_not_ok "$name: guest ran clean (vm/run.sh exit $rc, log: $log)"
		sed 's/^/#   /' "$LOGS/guest-$name.verdict" | tail -n 25
	fi
}
