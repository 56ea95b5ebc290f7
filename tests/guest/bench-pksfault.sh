#!/bin/bash
# Guest benchmark of pksfault (vm/run.sh --pmem IMG tests/guest/bench-pksfault.sh
# [SECONDS]): prints "BENCH name value" lines.
#  - events per second it keeps up with: every window reported (--leak 0)
#    while the windows hook runs at increasing rates; seen vs counted in
#    BPF vs dropped
#  - relaxed-mode stray-fault bursts: faults seen vs injected
#  - fio IOPS on ext4-dax (pmem) without pksfault, with it (faults only),
#    with windows followed (--hist) and with their opening stacks too
#    (--leak --hist), interleaved in one boot
set -uo pipefail
. "$(dirname "$0")/lib.sh"	# DBG, ns_phys, ns_mode
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSFAULT=${PKSFAULT:-$ROOT/build/tools/pksfault}
MODE_KNOB=/sys/module/memremap/parameters/pks_fault_mode
RUNTIME=${1:-8}
MNT=/mnt/pmem
OUT=$(mktemp -d)

# Wait for the background pksfault to attach (it says so on stderr).
attached() {
	local i
	for i in $(seq 1 300); do
		grep -q 'pksfault: tracing' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

summary_field() {	# FILE FIELD: a field of the JSON summary
	python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
print(s[sys.argv[2]])' "$1" "$2"
}

# Windows at HZ for 3 s, each one an event (--leak 0).
window_rate() {
	local hz=$1 secs=3 pid seen counted lost
	"$PKSFAULT" --leak 0 --json -d $((secs + 2)) >"$OUT/w.json" 2>"$OUT/w.err" &
	pid=$!
	attached "$OUT/w.err" || { echo "BENCH pksfault_windows_hz${hz} attach-failed"; return; }
	echo "windows 1 $hz $secs" >"$HOOK"
	wait "$pid"
	seen=$(grep -c '"type":"leak"' "$OUT/w.json")
	counted=$(summary_field "$OUT/w.json" windows_closed)
	lost=$(summary_field "$OUT/w.json" lost_events)
	echo "BENCH pksfault_windows_hz${hz}_generated_per_s $((counted / secs))"
	echo "BENCH pksfault_windows_hz${hz}_events_seen_per_s $((seen / secs))"
	echo "BENCH pksfault_windows_hz${hz}_dropped $lost"
}

# A burst of N relaxed-mode stray writes: all seen?
fault_burst() {
	local n=$1 phys seen lost t0 t1
	phys=$(printf '%x' $((0x$(ns_phys) + (64 << 20))))
	echo relaxed >"$MODE_KNOB"
	t0=$(date +%s.%N)
	"$PKSFAULT" --json -- sh -c "echo inject $phys 1000000 $n 7 nowindow >$HOOK" \
		>"$OUT/f.json" 2>"$OUT/f.err"
	t1=$(date +%s.%N)
	echo strict >"$MODE_KNOB"
	seen=$(grep -c '"type":"fault"' "$OUT/f.json")
	lost=$(summary_field "$OUT/f.json" lost_events)
	echo "BENCH pksfault_fault_burst${n}_seen $seen"
	echo "BENCH pksfault_fault_burst${n}_dropped $lost"
	echo "BENCH pksfault_fault_burst${n}_seconds $(python3 -c "print(round($t1 - $t0, 2))")"
}

fio_iops() {	# [pksfault options...]: fio 4k randrw on ext4-dax, total IOPS
	local cmd=(fio --name=bench --filename="$MNT/bench.dat" --size=256M --rw=randrw --bs=4k
		--ioengine=psync --direct=1 --time_based --runtime="$RUNTIME" --randrepeat=1
		--output-format=json --output="$OUT/fio.json")
	if [ $# -gt 0 ]; then
		"$PKSFAULT" "$@" -- "${cmd[@]}" >"$OUT/gate.out" 2>&1 ||
			{ echo "BENCH pksfault_gate_failed $*"; sed 's/^/# /' "$OUT/gate.out" | tail -5; } >&2
	else
		"${cmd[@]}"
	fi
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(round(j["read"]["iops"] + j["write"]["iops"]))' "$OUT/fio.json"
}

[ -x "$PKSFAULT" ] || { echo "BENCH pksfault_missing 1"; exit 1; }
ns_mode fsdax mem
if [ -e "$HOOK" ]; then
	for hz in 1000 4000 16000 64000; do
		window_rate "$hz"
	done
	for n in 1000 5000 20000; do
		fault_burst "$n"
	done
fi
mkdir -p "$MNT"
mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 "$MNT" ||
	{ echo "BENCH ext4dax_mount_failed 1"; exit 1; }
# Interleaved rounds (plain, traced, traced with windows), so drift and
# other load on the host hit all three alike; each variant's mean.
fio_iops >/dev/null	# warm-up: lays out the file, converts unwritten extents
declare -A sum=()
rounds=${FIO_ROUNDS:-2}
for r in $(seq 1 "$rounds"); do
	v=$(fio_iops); sum[plain]=$((${sum[plain]:-0} + v)); echo "BENCH fio_iops_plain_round$r $v"
	v=$(fio_iops --json); sum[faults]=$((${sum[faults]:-0} + v)); echo "BENCH fio_iops_pksfault_round$r $v"
	v=$(fio_iops --json --hist); sum[hist]=$((${sum[hist]:-0} + v))
	echo "BENCH fio_iops_pksfault_hist_round$r $v"
	v=$(fio_iops --json --leak 1000 --hist); sum[windows]=$((${sum[windows]:-0} + v))
	echo "BENCH fio_iops_pksfault_leak_hist_round$r $v"
done
base=$((sum[plain] / rounds))
echo "BENCH fio_iops_plain $base"
echo "BENCH fio_iops_pksfault $((sum[faults] / rounds))"
echo "BENCH fio_iops_pksfault_hist $((sum[hist] / rounds))"
echo "BENCH fio_iops_pksfault_leak_hist $((sum[windows] / rounds))"
echo "BENCH fio_ratio_pksfault $(python3 -c "print(round(${sum[faults]} / max(${sum[plain]}, 1), 3))")"
echo "BENCH fio_ratio_pksfault_hist $(python3 -c "print(round(${sum[hist]} / max(${sum[plain]}, 1), 3))")"
echo "BENCH fio_ratio_pksfault_leak_hist $(python3 -c "print(round(${sum[windows]} / max(${sum[plain]}, 1), 3))")"
umount "$MNT"
rm -rf "$OUT"
