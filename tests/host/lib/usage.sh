# Sourced by tests/host/pksfault.sh and pkstop.sh: the option contract
# both tools keep (tools/lib/pks_opts.h), checked through a unit binary's
# "args" mode, which runs the tool's option step as its main() does.

# usage_errors TOOL RUNNER... -- CASE...: each CASE (words split on
# blanks) must exit 2 with nothing on stdout and one line on stderr,
# "TOOL: <what is wrong>; see 'TOOL --help'".  Prints what broke; 0 if none.
usage_errors() {
	local tool=$1 runner=() c rc out err bad=0
	shift
	while [ "$1" != -- ]; do runner+=("$1"); shift; done
	shift
	for c in "$@"; do
		rc=0
		# shellcheck disable=SC2086 # a case is words
		out=$("${runner[@]}" $c 2>"$USAGE_TMP") || rc=$?
		err=$(cat "$USAGE_TMP")
		if [ "$rc" != 2 ] || [ -n "$out" ] || [ "$(wc -l <"$USAGE_TMP")" != 1 ] ||
			! grep -qx "$tool: .*; see '$tool --help'" "$USAGE_TMP"; then
			echo "#   '$c': exit $rc, stdout '$out', stderr '$err'"
			bad=1
		fi
	done
	return "$bad"
}

# usage_ok TOOL RUNNER...: --version prints "TOOL VERSION", --help the
# help, both exit 0 with nothing on stderr.
usage_ok() {
	local tool=$1 v h
	shift
	v=$("$@" --version 2>"$USAGE_TMP") && [ ! -s "$USAGE_TMP" ] &&
		[[ $v =~ ^$tool\ [0-9.]+$ ]] &&
		h=$("$@" --help 2>"$USAGE_TMP") && [ ! -s "$USAGE_TMP" ] &&
		grep -q -- '--version' <<<"$h" && grep -q -- '-v, --verbose' <<<"$h" &&
		grep -q -- '-p, --pid=PID' <<<"$h"
}
