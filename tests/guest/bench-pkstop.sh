#!/bin/bash
# What pkstop costs: fio throughput on ext4-dax with pkstop running vs not,
# vs the bpftrace one-liner a user would otherwise reach for, counting the
# same events per thread, and vs two empty programs on the window events
# (tests/floor/), the floor for any tool that runs per window (same boot;
# pkstop runs in the middle of every round, and the round's order flips
# every round and every run, PKS_GUEST_BENCH_RUN); and the CPU time
# pkstop and bpftrace use per 1 s interval, idle and under fio.  Prints
# "BENCH name=value" lines (the format of bench-pmem.sh, which
# tests/bench.sh parses).
#   bench-pkstop.sh [FIO_SECONDS] [ROUNDS]
set -uo pipefail
. "$(dirname "$0")/lib.sh"	# DBG, ns_mode
. "$(dirname "$0")/bench-lib.sh"	# baseline_first, protection_evidence, median_of
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSTOP=${PKSTOP:-$ROOT/build/tools/pkstop}
RUNTIME=${1:-8}
# Odd, so that each median is a round's figure, not the lower of two: a
# slow stretch of the host in one round then does not decide the row.
ROUNDS=${2:-3}
MNT=/mnt/pmem
OUT=/tmp/bench-pkstop
mkdir -p "$MNT" "$OUT"

fio_iops() {
	fio --name=bench --filename="$MNT/bench.dat" --size=256M --rw=randrw --bs=4k \
		--ioengine=psync --direct=1 --time_based --runtime="$RUNTIME" \
		--randrepeat=1 --output-format=json 2>/dev/null |
		python3 -c 'import json, sys
j = json.load(sys.stdin)["jobs"][0]
print(round(j["read"]["iops"] + j["write"]["iops"]))' 2>/dev/null
}

# pkstop's CPU time per interval two ways: the median of what it reports
# itself (JSON self_cpu_ms, getrusage), and utime+stime from /proc/PID/stat
# between its first document and the end (so start-up, which loads BTF and
# the BPF programs, is reported on its own).
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
ms() { awk -v t="$1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.1f", t * 1000 / hz }'; }
# CPU ms per interval: TICKS of CPU time over N intervals.
ms_per() {
	awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { if (n > 0) printf "%.2f", t * 1000 / hz / n; else print "n/a" }'
}

start_pkstop() {	# NAME: pkstop --json 1 in the background; PK, T0, N0
	"$PKSTOP" --json 1 >"$OUT/$1.json" 2>"$OUT/$1.err" &
	PK=$!
	for _ in $(seq 100); do
		[ -s "$OUT/$1.json" ] && break
		sleep 0.1
	done
	T0=$(ticks "$PK")
	N0=$(wc -l <"$OUT/$1.json")
	echo "BENCH pkstop_startup_cpu_ms_$1=$(ms "$T0")"
}
stop_pkstop() {	# NAME
	local t n med
	t=$(ticks "$PK")
	n=$(wc -l <"$OUT/$1.json")
	kill "$PK" 2>/dev/null
	wait "$PK" 2>/dev/null
	med=$(python3 -c '
import json, statistics, sys
v = [d["self_cpu_ms"] for d in map(json.loads, open(sys.argv[1]))
     if d["type"] == "sample" and not d.get("partial")][1:]
print(round(statistics.median(v), 2) if v else "n/a")' "$OUT/$1.json")
	echo "BENCH pkstop_cpu_ms_per_interval_$1=$med"
	echo "BENCH pkstop_cpu_ms_per_interval_$1_procstat=$(ms_per $((t - T0)) $((n - N0))) (intervals $((n - N0)))"
}

protection_evidence	# first: the boot's messages are all still in dmesg
ns_mode fsdax mem || { echo "BENCH error=ns_mode"; exit 1; }
if ! mkfs.ext4 -q -F -b 4096 /dev/pmem0 || ! mount -o dax /dev/pmem0 "$MNT"; then
	echo "BENCH error=mount"
	exit 1
fi
fio_iops >/dev/null	# lay out the file

# The same per-thread counts pkstop keeps (windows opened and closed,
# PKRS writes, faults), printed and cleared every second as pkstop does.
BPFTRACE_PROG='tracepoint:pks:dev_access_enable, tracepoint:pks:dev_access_disable,
tracepoint:pks:pks_update_protection, tracepoint:pks:pks_fault { @[tid, probe] = count(); }
interval:s:1 { print(@); clear(@); }'
start_bpftrace() {	# NAME: the one-liner in the background; BT, T0
	bpftrace -e "$BPFTRACE_PROG" >"$OUT/$1.bt" 2>"$OUT/$1.bt.err" &
	BT=$!
	# It compiles with LLVM first: seconds under TCG.
	for _ in $(seq 600); do
		grep -q '^Attaching' "$OUT/$1.bt" && break
		kill -0 "$BT" 2>/dev/null || break	# it failed: stop_bpftrace says why
		sleep 0.1
	done
	T0=$(ticks "$BT")
	echo "BENCH bpftrace_startup_cpu_ms_$1=$(ms "$T0")"
	BT_START=$SECONDS
}
stop_bpftrace() {	# NAME
	local t=$(($(ticks "$BT") - T0)) secs=$((SECONDS - BT_START))
	kill -INT "$BT" 2>/dev/null
	wait "$BT" 2>/dev/null
	if ! grep -q '^Attaching' "$OUT/$1.bt"; then
		echo "BENCH bpftrace_error_$1=$(head -c 200 "$OUT/$1.bt.err" | tr '\n' ' ')"
		return
	fi
	# Evidence that it counted what pkstop counts: its events, all probes.
	echo "BENCH bpftrace_events_counted_$1=$(awk -F': ' '/^@\[/ { n += $2 } END { print n + 0 }' "$OUT/$1.bt")" \
		"(probes: $(grep -o 'tracepoint:pks:[a-z_]*' "$OUT/$1.bt" | sort -u | tr '\n' ' '))"
	echo "BENCH bpftrace_cpu_ms_per_interval_$1_procstat=$(ms_per "$t" "$secs")"
}

# Idle: what watching costs when nothing happens.
start_pkstop idle
sleep "$RUNTIME"
stop_pkstop idle
start_bpftrace idle
sleep "$RUNTIME"
stop_bpftrace idle

# The floor: empty programs on the two window events (tests/floor/).
FLOOR=${FLOOR:-$ROOT/build/floor/floor}
with_floor() {
	local fl
	"$FLOOR" >"$OUT/floor.out" 2>&1 &
	fl=$!
	for _ in $(seq 100); do
		grep -q '^attached' "$OUT/floor.out" && break
		kill -0 "$fl" 2>/dev/null || break
		sleep 0.1
	done
	if grep -q '^attached' "$OUT/floor.out"; then
		fl_iops+=("$(fio_iops)")
	else
		echo "BENCH floor_error=$(head -c 200 "$OUT/floor.out" | tr '\n' ' ')"
	fi
	kill "$fl" 2>/dev/null
	wait "$fl" 2>/dev/null
}

# One fio without pkstop, one with it running (its CPU time under fio).
without_pkstop() { off+=("$(fio_iops)"); }
with_pkstop() {
	start_pkstop "fio$1"
	on+=("$(fio_iops)")
	stop_pkstop "fio$1"
}
with_bpftrace() {
	start_bpftrace "fio$1"
	bt+=("$(fio_iops)")
	stop_bpftrace "fio$1"
}
off=() on=() bt=() fl_iops=()
for r in $(seq "$ROUNDS"); do
	if baseline_first "$r"; then
		echo "BENCH pkstop_order_round$r=without,floor,pkstop,bpftrace"
		without_pkstop
		with_floor
		with_pkstop "$r"
		with_bpftrace "$r"
	else
		echo "BENCH pkstop_order_round$r=bpftrace,pkstop,floor,without"
		with_bpftrace "$r"
		with_pkstop "$r"
		with_floor
		without_pkstop
	fi
done
# Medians over the rounds that produced a figure; the runs list shows them all.
m_off=$(median_of "${off[@]}")
m_on=$(median_of "${on[@]}")
echo "BENCH fio_iops_without_pkstop=${m_off:-failed} (runs: ${off[*]})"
echo "BENCH fio_iops_with_pkstop=${m_on:-failed} (runs: ${on[*]})"
m_bt=$(median_of "${bt[@]}")
echo "BENCH fio_iops_with_bpftrace=${m_bt:-failed} (runs: ${bt[*]})"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else print "n/a" }'; }
m_fl=$(median_of "${fl_iops[@]}")
echo "BENCH fio_iops_with_floor=${m_fl:-failed} (runs: ${fl_iops[*]})"
echo "BENCH fio_ratio_with_vs_without_pkstop=$(ratio "$m_on" "$m_off")"
echo "BENCH fio_ratio_with_vs_without_floor=$(ratio "$m_fl" "$m_off")"
echo "BENCH fio_ratio_with_vs_without_bpftrace=$(ratio "$m_bt" "$m_off")"
# Above 1: fio ran faster beside pkstop than beside the one-liner.
echo "BENCH fio_ratio_pkstop_vs_bpftrace=$(ratio "$m_on" "$m_bt")"
umount "$MNT"
