# shellcheck shell=bash
# Measures for an icount boot (vm/run.sh --icount), sourced after lib.sh:
# there every ns is one retired instruction (each REP iteration counts,
# WRMSR one; not cycles).  Used by make test's budget guard
# (budget.sh) and make bench's instruction rows (bench-icount.sh).

# min_of CMD...: the smallest figure of three runs of CMD, nothing when
# any run gives none.  Work that lands in a run by chance (a kworker, a
# tool's periodic sweep or sample, a boot's late housekeeping) only adds
# instructions, and one run in a few catches it: the smallest of three is
# the operation's own count, and two boots then agree.
min_of() {
	local i v best=""
	for i in 1 2 3; do
		v=$("$@")
		[ -n "$v" ] || return 0
		if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$v
		fi
	done
	echo "$best"
}

# io_insns write|read [FILE]: instructions per 4 KiB O_DIRECT write or
# read of FILE, by default /dev/pmem0 (an fsdax namespace, so that every
# request opens a window when device memory is protected): fio's mean
# latency of 4000 requests, after the same 4000 once to warm what the
# first ones set up (a file's blocks are then allocated: its writes are
# overwrites), the smallest of three such runs (min_of).  Nothing when fio
# fails.
io_run() {
	local job=(fio --name=w --filename="${2:-/dev/pmem0}" --rw="$1" --bs=4k --ioengine=psync
		--direct=1 --size=64M --output-format=json)
	"${job[@]}" --number_ios=4000 2>/dev/null | python3 -c 'import json, sys
w = json.load(sys.stdin)["jobs"][0][sys.argv[1]]
if w["total_ios"] == 4000:
    print(round(w["lat_ns"]["mean"]))' "$1" 2>/dev/null
}
io_insns() {
	io_run "$@" >/dev/null
	min_of io_run "$@"
}
write_insns() { io_insns write; }

# op_insns OP PATH N: instructions per operation of opbench (see
# tests/guest/opbench.c), the smallest of three runs; nothing when it fails.
# Without address-space randomisation (setarch -R): where a random base
# puts each round's mapping decides how many page tables its faults
# allocate, which moved a fault's count by up to 40% between runs; with
# one layout, five runs of a boot agree within 0.2% (faults, fdatasync)
# and 2% (device-dax).
op_run() {
	setarch -R "$GUEST_BIN/opbench" "$@" 2>/dev/null | sed -n 's/.* ns_per_op=\([0-9.]*\) .*/\1/p'
}
op_insns() { min_of op_run "$@"; }

# pair_insns VERB N: instructions per pair of the hooks' windowbench or
# kmapbench (N pairs), as the hook reports them.
pair_insns() {
	hook "$1" "$2" | sed -n 's/.* ns_per_pair=\([0-9.]*\) .*/\1/p'
}

# wait_for FILE REGEX PID: until FILE has a line matching REGEX (the
# tool attached), or PID ends, or 60 s
wait_for() {
	for _ in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# pkstop_start OUT / pkstop_stop: pkstop --json 1 in the background,
# returning once its first sample is out (attached and armed);
# pkstop_stop waits for one more sample, ends it (its last, partial
# interval comes out as a sample marked "partial") and prints the window
# opens its samples counted: the evidence that it was attached while the
# caller measured.
PKSTOP=${PKSTOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/tools/pkstop}
samples() { grep -c '"type":"sample"' "$1" 2>/dev/null; }
pkstop_start() {
	PKSTOP_OUT=$1
	"$PKSTOP" --json 1 >"$PKSTOP_OUT" 2>"$PKSTOP_OUT.err" &
	PKSTOP_PID=$!
	wait_for "$PKSTOP_OUT" '"type":"sample"' "$PKSTOP_PID"
}
pkstop_stop() {
	local n
	n=$(samples "$PKSTOP_OUT")
	for _ in $(seq 100); do
		[ "$(samples "$PKSTOP_OUT")" -gt "$n" ] && break
		sleep 0.1
	done
	kill -INT "$PKSTOP_PID" 2>/dev/null
	wait "$PKSTOP_PID" 2>/dev/null
	python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if "\"type\":\"sample\"" in l]
print(sum(d["interval"]["opens"] for d in s))' "$PKSTOP_OUT" 2>/dev/null
}
