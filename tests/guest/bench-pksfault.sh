#!/bin/bash
# Guest benchmark of pksfault (vm/run.sh --pmem IMG tests/guest/bench-pksfault.sh
# [SECONDS]): prints "BENCH name value" lines.
#  - events per second it keeps up with: every window reported (--leak 0)
#    while the windows hook runs at increasing rates; seen vs counted in
#    BPF vs dropped
#  - relaxed-mode stray-fault bursts: faults seen vs injected
#  - fio IOPS on ext4-dax (pmem) without pksfault, with it (faults only),
#    with windows followed (--hist), with leaks watched too (--leak
#    --hist) and with every window's opening stack (--open-stacks),
#    interleaved in one boot, in an order that flips every round and
#    every run (PKS_GUEST_BENCH_RUN, bench-lib.sh)
set -uo pipefail
. "$(dirname "$0")/lib.sh"	# DBG, ns_phys, ns_mode
. "$(dirname "$0")/bench-lib.sh"	# baseline_first, protection_evidence, mean_of
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKSFAULT=${PKSFAULT:-$ROOT/build/tools/pksfault}
MODE_KNOB=/sys/module/memremap/parameters/pks_fault_mode
RUNTIME=${1:-8}
MNT=/mnt/pmem
OUT=$(mktemp -d)

# Wait for the background pksfault to attach (it says so on stderr).
attached() {
	for _ in $(seq 1 300); do
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
	echo "windows 1 $hz $secs" >"$HOOKS"
	wait "$pid"
	seen=$(grep -c '"type":"leak"' "$OUT/w.json")
	counted=$(summary_field "$OUT/w.json" windows_closed 2>/dev/null)
	lost=$(summary_field "$OUT/w.json" lost_events 2>/dev/null)
	# No summary: pksfault failed, and its figures must not read as zeros.
	if [ -z "$counted" ] || [ -z "$lost" ]; then
		echo "BENCH pksfault_windows_hz${hz} no-summary"
		return
	fi
	echo "BENCH pksfault_windows_hz${hz}_generated_per_s $((counted / secs))"
	echo "BENCH pksfault_windows_hz${hz}_events_seen_per_s $((seen / secs))"
	echo "BENCH pksfault_windows_hz${hz}_dropped $lost"
}

# A burst of N relaxed-mode stray reads (the hook refuses stray writes
# that would land): all seen?
fault_burst() {
	local n=$1 phys seen lost t0 t1
	phys=$(printf '%x' $((0x$(ns_phys) + (64 << 20))))
	echo relaxed >"$MODE_KNOB"
	t0=$(date +%s.%N)
	"$PKSFAULT" --json -- sh -c "echo inject $phys 1000000 $n 7 read >$HOOK" \
		>"$OUT/f.json" 2>"$OUT/f.err"
	t1=$(date +%s.%N)
	echo strict >"$MODE_KNOB"
	seen=$(grep -c '"type":"fault"' "$OUT/f.json")
	lost=$(summary_field "$OUT/f.json" lost_events)
	echo "BENCH pksfault_fault_burst${n}_seen $seen"
	echo "BENCH pksfault_fault_burst${n}_dropped $lost"
	echo "BENCH pksfault_fault_burst${n}_seconds $(python3 -c "print(round($t1 - $t0, 2))")"
}

# [pksfault options...]: fio 4k randrw on ext4-dax, total IOPS, or nothing
# when fio failed (its JSON is removed first: never the previous run's)
fio_iops() {
	local cmd=(fio --name=bench --filename="$MNT/bench.dat" --size=256M --rw=randrw --bs=4k
		--ioengine=psync --direct=1 --time_based --runtime="$RUNTIME" --randrepeat=1
		--output-format=json --output="$OUT/fio.json")
	rm -f "$OUT/fio.json"
	if [ $# -gt 0 ]; then
		"$PKSFAULT" "$@" -- "${cmd[@]}" >"$OUT/gate.out" 2>&1 ||
			{ echo "BENCH pksfault_gate_failed $*"; sed 's/^/# /' "$OUT/gate.out" | tail -5; } >&2
	else
		"${cmd[@]}"
	fi
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
print(round(j["read"]["iops"] + j["write"]["iops"]))' "$OUT/fio.json" 2>/dev/null
}

# The variants compared in one boot: what each runs and its BENCH name.
variants=(plain faults hist windows stacks)
declare -A bench_name=([plain]=fio_iops_plain [faults]=fio_iops_pksfault
	[hist]=fio_iops_pksfault_hist [windows]=fio_iops_pksfault_leak_hist
	[stacks]=fio_iops_pksfault_open_stacks)
measure() {	# VARIANT: one fio run under it, its IOPS
	case $1 in
	plain) fio_iops ;;
	faults) fio_iops --json ;;
	hist) fio_iops --json --hist ;;
	windows) fio_iops --json --leak 1000 --hist ;;
	stacks) fio_iops --json --leak 1000 --hist --open-stacks ;;
	esac
}
# ratio A B of two means, 3 decimals; nothing when either is missing
ratio() { [ -n "$1" ] && [ -n "$2" ] && python3 -c "print(round($1 / max($2, 1), 3))"; }

[ -x "$PKSFAULT" ] || { echo "BENCH pksfault_missing 1"; exit 1; }
protection_evidence	# first: the boot's messages are all still in dmesg
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
if ! mkfs.ext4 -q -F -b 4096 /dev/pmem0 || ! mount -o dax /dev/pmem0 "$MNT"; then
	echo "BENCH ext4dax_mount_failed 1"
	exit 1
fi
# Interleaved rounds (plain, faults only, --hist, --leak --hist,
# --open-stacks), so
# drift and other load on the host hit all alike; the order flips every round and
# every run.  Each variant's mean over the rounds that produced a figure.
fio_iops >/dev/null	# warm-up: lays out the file, converts unwritten extents
declare -A runs=()
rounds=${FIO_ROUNDS:-2}
for r in $(seq 1 "$rounds"); do
	order=("${variants[@]}")
	baseline_first "$r" || order=(stacks windows hist faults plain)
	echo "BENCH fio_order_round$r ${order[*]}"
	for v in "${order[@]}"; do
		iops=$(measure "$v")
		runs[$v]+=" $iops"
		echo "BENCH ${bench_name[$v]}_round$r ${iops:-failed}"
	done
done
declare -A mean=()
for v in "${variants[@]}"; do
	# shellcheck disable=SC2086 # one value per word
	mean[$v]=$(mean_of ${runs[$v]})
	# shellcheck disable=SC2086
	echo "BENCH ${bench_name[$v]} ${mean[$v]:-failed} (rounds measured: $(numbers ${runs[$v]} | wc -l) of $rounds)"
done
echo "BENCH fio_ratio_pksfault $(ratio "${mean[faults]}" "${mean[plain]}")"
echo "BENCH fio_ratio_pksfault_hist $(ratio "${mean[hist]}" "${mean[plain]}")"
echo "BENCH fio_ratio_pksfault_leak_hist $(ratio "${mean[windows]}" "${mean[plain]}")"
echo "BENCH fio_ratio_pksfault_open_stacks $(ratio "${mean[stacks]}" "${mean[plain]}")"
umount "$MNT"
rm -rf "$OUT"
