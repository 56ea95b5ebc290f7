#!/usr/bin/env bash
# make bench: timings measured in one run, written to build/bench/report.md.
# Numbers, not pass/fail: these machines are noisy.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"

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
	"$ROOT/kernel/build.sh" >/dev/null
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

# Persistent memory: protection on vs off (boot parameter), same build,
# alternating boots so drift hits both sides alike.
declare -A pm
for _ in $(seq "$runs"); do
	for mode in on off; do
		opt=(--pmem "$out/pmem-bench.img")
		[ "$mode" = off ] && opt+=(--append dev_access_protection=off)
		rm -f "$out/pmem-bench.img"
		"$ROOT/vm/run.sh" --quiet --timeout 600 --log "$out/pmem-$mode.log" "${opt[@]}" \
			"$ROOT/tests/guest/bench-pmem.sh" "${BENCH_FIO_SECONDS:-8}"
		while IFS='=' read -r k v; do
			pm[$mode:$k]="${pm[$mode:$k]:-} ${v%% *}"
			[ "$k" = pkrs_per_io_4k ] || [ "$k" = pkrs_per_io_128k ] && pm[$mode:$k.raw]="${v#* }"
		done < <(sed -n 's/^BENCH //p' "$out/pmem-$mode.log")
	done
done
rm -f "$out/pmem-bench.img"
med() { printf '%s\n' ${pm[$1]:-} | grep -v n/a | median; }
ratio() { awk -v a="${1:-0}" -v b="${2:-0}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a" }'; }

row() { # name values...
	local name=$1
	shift
	printf '| %s | %s | %s |\n' "$name" "$(printf '%s\n' "$@" | median)" "$(printf '%s\n' "$@" | minmax)"
}
{
	echo "# PKS benchmark report"
	echo
	echo "- machine: $(nproc) CPUs, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
	echo "- kernel: $(git -C "$KSRC" describe --always --tags) ($(make -s -C "$KSRC" kernelversion)), series of $(series | wc -l) patches"
	echo "- QEMU: $(qemu-system-x86_64 --version | head -n 1)"
	echo "- $runs runs each; median, then min / max; seconds"
	echo
	echo "| figure | median | min / max |"
	echo "|---|---|---|"
	row "one-file kernel rebuild (arch/x86/mm/pks.c, incl. link + BTF)" "${rebuild[@]}"
	for cpu in pks nopks; do
		row "boot to first test, guest uptime ($cpu)" $(printf '%s\n' "${uptime[@]}" | awk -v c=$cpu '$1==c{print $2}')
		row "boot + job + power-off, host wall ($cpu)" $(printf '%s\n' "${wall[@]}" | awk -v c=$cpu '$1==c{print $2}')
	done
	echo
	echo "## Persistent memory: protection on vs off (dev_access_protection=off), fio 4k randrw, ${BENCH_FIO_SECONDS:-8} s, IOPS"
	echo
	echo "| figure | on (median) | off (median) | on/off | on min / max | off min / max |"
	echo "|---|---|---|---|---|---|"
	for k in raw_iops ext4dax_iops; do
		on=$(med "on:$k") off=$(med "off:$k")
		echo "| $k | $on | $off | $(ratio "$on" "$off") | $(printf '%s\n' ${pm[on:$k]} | minmax) | $(printf '%s\n' ${pm[off:$k]} | minmax) |"
	done
	echo
	echo "## PKRS writes per pmem request (msr tracepoint, protection on)"
	echo
	for k in pkrs_per_io_4k pkrs_per_io_128k; do
		echo "- $k: $(med "on:$k") (last run: ${pm[on:$k.raw]:-n/a}); protection off: $(med "off:$k")"
	done
	echo
	echo "## kmap_local_page()/kunmap_local() on a DRAM page, ns per pair (protection on)"
	echo
	b0=$(med "on:kmap_ns_branch0") b1=$(med "on:kmap_ns_branch1")
	echo "- no protected pgmap: $b0 ns; with one present: $b1 ns; ratio $(ratio "$b1" "$b0")"
	echo
	echo "## Why protection costs so much under TCG"
	echo
	w=$(med "on:window_ns")
	on=$(med "on:raw_iops") off=$(med "off:raw_iops")
	echo "- one window (dev_access_enable + disable, 2 PKRS writes): $w ns"
	echo "- raw pmem: extra time per request with protection: $(awk -v a="$on" -v b="$off" 'BEGIN { if (a > 0 && b > 0) printf "%.0f", 1e9 / a - 1e9 / b; else printf "n/a" }') ns"
	echo "- every WRMSR to PKRS makes QEMU flush its whole software TLB, so the"
	echo "  accesses after it refill the TLB; on hardware a PKRS write costs a"
	echo "  few hundred cycles and no flush."
} >"$report"
cat "$report"
