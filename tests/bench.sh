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
} >"$report"
cat "$report"
