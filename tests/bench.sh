#!/usr/bin/env bash
# make bench: timings measured in one run, written to build/bench/report.md.
# Numbers, not pass/fail: these machines are noisy.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
LOGS=${LOGS:-$BUILD/logs}

out=$BUILD/bench
mkdir -p "$out"
report=$out/report.md
runs=${BENCH_RUNS:-3}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
minmax() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {print lo " / " hi}'; }

# One-file kernel rebuild: the file every PKS change touches.
rebuild=()
for _ in $(seq "$runs"); do
	touch "$KSRC/arch/x86/mm/pks.c"
	s=$(date +%s.%N)
	"$ROOT/kernel/build.sh" >/dev/null 2>&1
	rebuild+=("$(echo "$(date +%s.%N) - $s" | bc)")
done

# Boot to first test: guest uptime when init starts the job, and host
# wall time for a whole boot + trivial job + power-off.
echo '#!/bin/bash' >"$out/true.sh"
chmod +x "$out/true.sh"
uptime=() wall=()
for cpu in pks nopks; do
	for _ in $(seq "$runs"); do
		opt=()
		[ "$cpu" = nopks ] && opt=(--no-pks)
		s=$(date +%s.%N)
		"$ROOT/vm/run.sh" --quiet --timeout 120 --log "$out/boot.log" "${opt[@]}" "$out/true.sh"
		wall+=("$cpu $(echo "$(date +%s.%N) - $s" | bc)")
		uptime+=("$cpu $(sed -n 's/^PKS-VM-BOOTED uptime=//p' "$out/boot.log")")
	done
done

# Guest benchmarks, alternating so that drift hits every side alike:
#   pmem-on / pmem-off   bench-pmem.sh with protection on / off (boot
#                        parameter): fio raw, ext4-dax, devdax; tracepoints
#                        on vs off; PKRS writes per I/O; kmap; one window
#   pksfault, pkstop     the tools attached vs not, in one boot each
# pm[SIDE:KEY] collects one value per run; pm[SIDE:KEY.raw] the last line.
declare -A pm
collect() {	# LOG SIDE: its "BENCH key=value" / "BENCH key value" lines
	local line k v
	while IFS= read -r line; do
		line=${line%$'\r'}	# the serial console ends lines with CR LF
		line=${line#BENCH }
		k=${line%%[= ]*}
		v=${line#"$k"}
		v=${v#[= ]}
		pm[$2:$k]="${pm[$2:$k]:-} ${v%% *}"
		pm[$2:$k.raw]=$v
	done < <(grep '^BENCH ' "$1")
}
guest_bench() {	# RUN SIDE SCRIPT [vm/run.sh options...]
	local log=$out/$2-$1.log side=$2 script=$3
	shift 3
	rm -f "$out/pmem-bench.img"
	"$ROOT/vm/run.sh" --quiet --timeout 900 --log "$log" \
		--pmem "$out/pmem-bench.img" "$@" "$ROOT/tests/guest/$script" "$fio_s" ||
		echo "bench: $side run failed (log: $log)" >&2
	collect "$log" "$side"
}
fio_s=${BENCH_FIO_SECONDS:-6}
for r in $(seq "$runs"); do
	guest_bench "$r" pmem-on bench-pmem.sh
	guest_bench "$r" pmem-off bench-pmem.sh --append dev_access_protection=off
	guest_bench "$r" pksfault bench-pksfault.sh
	guest_bench "$r" pkstop bench-pkstop.sh
done
rm -f "$out/pmem-bench.img"

nums() { printf '%s\n' ${pm[$1]:-} | { grep -E '^[0-9.]+$' || true; }; }
med() { nums "$1" | median; }
mm() { nums "$1" | minmax; }
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (a > 0 && b > 0) printf "%.3f", a / b; else printf "n/a" }'; }
row() { # name values...
	local name=$1
	shift
	printf '| %s | %s | %s |\n' "$name" "$(printf '%s\n' "$@" | median)" "$(printf '%s\n' "$@" | minmax)"
}
# pair LABEL SIDE:KEY BASE-SIDE:BASE-KEY: one comparison row, and the
# chart's data (label, median, min, max) for both sides.
chart=$out/throughput.dat
: >"$chart"
chart_point() {	# LABEL SIDE:KEY
	local lo hi
	read -r lo hi < <(nums "$2" | sort -n | awk 'NR==1{l=$1} {h=$1} END {print l+0, h+0}')
	printf '"%s"\t%s\t%s\t%s\n' "$1" "$(med "$2")" "$lo" "$hi" >>"$chart"
}
pair() {
	local a b
	a=$(med "$2") b=$(med "$3")
	echo "| $1 | $a | $(mm "$2") | $b | $(mm "$3") | $(ratio "$a" "$b") |"
}
last_line() {	# FILE REGEX: seconds= of the last matching record, if any
	[ -f "$1" ] || return 0
	{ grep -E "$2" "$1" || true; } | tail -n 1 | sed -n "s/.*seconds=\([0-9]*\).*/\1/p"
}

{
	echo "# PKS benchmark report"
	echo
	echo "- machine: $(nproc) CPUs, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
	echo "- kernel: $(git -C "$KSRC" describe --always --tags) ($(make -s -C "$KSRC" kernelversion)), series of $(series | wc -l) patches"
	echo "- QEMU: $(qemu-system-x86_64 --version | head -n 1), TCG"
	echo "- $runs runs of each; every figure is the median, with min / max; fio 4k random read/write 50/50, $fio_s s per measurement"
	echo
	echo "![throughput per configuration](throughput.svg)"
	echo
	echo "## Throughput side by side (IOPS)"
	echo
	echo "| configuration | IOPS | min / max | baseline IOPS | min / max | ratio |"
	echo "|---|---|---|---|---|---|"
	pair "raw pmem, protection on vs off" pmem-on:raw_iops pmem-off:raw_iops
	pair "ext4-dax, protection on vs off" pmem-on:ext4dax_iops pmem-off:ext4dax_iops
	pair "devdax, protection on vs off" pmem-on:devdax_iops pmem-off:devdax_iops
	pair "raw pmem, pks tracepoints on vs off (same boot)" pmem-on:raw_iops_tracepoints_on pmem-on:raw_iops
	pair "ext4-dax, pkstop running vs not (same boot)" pkstop:fio_iops_with_pkstop pkstop:fio_iops_without_pkstop
	pair "ext4-dax, pksfault attached vs not (same boot)" pksfault:fio_iops_pksfault pksfault:fio_iops_plain
	pair "ext4-dax, pksfault --leak --hist vs not (same boot)" pksfault:fio_iops_pksfault_leak_hist pksfault:fio_iops_plain
	echo
	echo "## Cost of a window"
	echo
	for k in pkrs_per_io_4k pkrs_per_io_128k; do
		echo "- PKRS writes per pmem request ($k, msr tracepoint): $(med "pmem-on:$k") (last run: ${pm[pmem-on:$k.raw]:-n/a}); protection off: $(med "pmem-off:$k")"
	done
	b0=$(med "pmem-on:kmap_ns_branch0") b1=$(med "pmem-on:kmap_ns_branch1")
	echo "- kmap_local_page()/kunmap_local() on DRAM: $b0 ns without a protected pgmap, $b1 ns with one ($(mm pmem-on:kmap_ns_branch1)); ratio $(ratio "$b1" "$b0")"
	w=$(med "pmem-on:window_ns")
	on=$(med "pmem-on:raw_iops") off=$(med "pmem-off:raw_iops")
	echo "- one window (dev_access_enable + disable, 2 PKRS writes): $w ns ($(mm pmem-on:window_ns))"
	echo "- raw pmem, extra time per request with protection: $(awk -v a="$on" -v b="$off" 'BEGIN { if (a > 0 && b > 0) printf "%.0f", 1e9 / a - 1e9 / b; else printf "n/a" }') ns."
	echo "  Every WRMSR to PKRS makes QEMU flush its whole software TLB, and the"
	echo "  accesses after it refill it; on hardware a PKRS write costs a few"
	echo "  hundred cycles and no flush, so these ratios are TCG's, not PKS's."
	echo
	echo "## The tools"
	echo
	echo "| figure | median | min / max |"
	echo "|---|---|---|"
	for hz in 1000 4000 16000 64000; do
		k=pksfault:pksfault_windows_hz${hz}
		echo "| pksfault at $hz windows/s requested: events generated / seen per s, dropped | $(med "${k}_generated_per_s") / $(med "${k}_events_seen_per_s") / $(med "${k}_dropped") | seen $(mm "${k}_events_seen_per_s") |"
	done
	for n in 1000 5000 20000; do
		k=pksfault:pksfault_fault_burst${n}
		echo "| pksfault, burst of $n relaxed stray faults: seen / dropped / seconds | $(med "${k}_seen") / $(med "${k}_dropped") / $(med "${k}_seconds") | seen $(mm "${k}_seen") |"
	done
	echo "| pkstop CPU ms per 1 s interval, idle | $(med pkstop:pkstop_cpu_ms_per_interval_idle) | $(mm pkstop:pkstop_cpu_ms_per_interval_idle) |"
	echo "| pkstop CPU ms per 1 s interval, under fio (first round) | $(med pkstop:pkstop_cpu_ms_per_interval_fio1) | $(mm pkstop:pkstop_cpu_ms_per_interval_fio1) |"
	echo
	echo "## Build, boot, test"
	echo
	echo "| figure | median | min / max |"
	echo "|---|---|---|"
	row "one-file kernel rebuild, s (arch/x86/mm/pks.c, incl. link + BTF)" "${rebuild[@]}"
	for cpu in pks nopks; do
		row "boot to first test, guest uptime s ($cpu)" $(printf '%s\n' "${uptime[@]}" | awk -v c=$cpu '$1==c{print $2}')
		row "boot + job + power-off, host wall s ($cpu)" $(printf '%s\n' "${wall[@]}" | awk -v c=$cpu '$1==c{print $2}')
	done
	fs=$(last_line "$LOGS/kernel-build-times" "kobj=kobj .*from_scratch=yes")
	mt=$(last_line "$LOGS/make-test-times" "failed=0")
	echo
	echo "- from-scratch kernel build, last one recorded on this machine (not re-run here: it alone takes longer than this report may): ${fs:-not recorded} s"
	echo "- full make test, last clean run recorded: ${mt:-not recorded} s"
} >"$report"

chart_point "raw on" pmem-on:raw_iops
chart_point "raw off" pmem-off:raw_iops
chart_point "raw tracing" pmem-on:raw_iops_tracepoints_on
chart_point "ext4-dax on" pmem-on:ext4dax_iops
chart_point "ext4-dax off" pmem-off:ext4dax_iops
chart_point "devdax on" pmem-on:devdax_iops
chart_point "devdax off" pmem-off:devdax_iops
chart_point "ext4 w/o pkstop" pkstop:fio_iops_without_pkstop
chart_point "ext4 + pkstop" pkstop:fio_iops_with_pkstop
chart_point "ext4 w/o pksfault" pksfault:fio_iops_plain
chart_point "ext4 + pksfault" pksfault:fio_iops_pksfault
if command -v gnuplot >/dev/null; then
	gnuplot <<GP || echo "bench: gnuplot failed" >&2
set terminal svg size 1000,480 noenhanced font "sans,11"
set output "$out/throughput.svg"
set title "fio 4k randrw IOPS under QEMU TCG: median, bars min-max"
set style data histograms
set style histogram errorbars lw 1
set style fill solid 0.6
set ylabel "IOPS"
set xtics rotate by -30
set grid ytics
set key off
plot "$chart" using 2:3:4:xtic(1)
GP
fi
cat "$report"
