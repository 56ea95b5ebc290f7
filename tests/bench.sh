#!/usr/bin/env bash
# make bench: timings measured in one run, written to build/bench/report.md.
# Numbers, not pass/fail: these machines are noisy.  But every number is
# this run's, on a kernel without the debug checks, from boots whose
# protection state was verified; anything else is labelled or refused, and
# a refused run makes the exit status non-zero.
set -euo pipefail
. "$(dirname "$0")/../kernel/lib.sh"
LOGS=${LOGS:-$BUILD/logs}
runs=${BENCH_RUNS:-3}
fio_s=${BENCH_FIO_SECONDS:-6}

# Every file this run reads is written below a directory made empty for
# it; the published report and chart of an earlier run are removed first,
# so that a run that stops half-way leaves none to be mistaken for its own.
out=$BUILD/bench
mkdir -p "$out/runs"
find "$out" -maxdepth 1 -type f -delete
started=$(date -u +%FT%TZ)
run_dir=$out/runs/$(date -u +%Y%m%dT%H%M%SZ)-$$
mkdir "$run_dir"
echo "bench: this run's logs and results in $run_dir" >&2

# The bench kernel: the test kernel's config without lockdep, DEBUG_ENTRY
# and the other debug checks (they would be what we measure), in its own
# object directory; every guest below boots it.
bench_kobj=$BUILD/kobj-bench
nodebug=$ROOT/kernel/config/bench/nodebug.config
export PKS_KOBJ=$bench_kobj PKS_EXTRA_CONFIGS=$nodebug
export PKS_KERNEL=$bench_kobj/arch/x86/boot/bzImage

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'; }

# Runs that cannot be used: one line each, shown in the report and on
# stderr; any of them makes the exit status non-zero.
invalid=()
refuse() {
	invalid+=("$*")
	echo "bench: INVALID: $*" >&2
}

build_bench_kernel() {	# LOG: build (or rebuild) it; stop with the log's tail on failure
	if ! "$ROOT/kernel/build.sh" >>"$1" 2>&1; then
		tail -n 25 "$1" >&2
		die "bench kernel build failed (log: $1)"
	fi
}

# The options nodebug.config turns off, each checked in the built .config
# (the build checks it too; the report names them from here).
nodebug_opts=()
check_nodebug() {
	local opt
	mapfile -t nodebug_opts < <(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=n$/\1/p' "$nodebug")
	for opt in "${nodebug_opts[@]}"; do
		if grep -q "^CONFIG_$opt=" "$bench_kobj/.config"; then
			die "CONFIG_$opt is set in $bench_kobj/.config: not a bench kernel"
		fi
	done
}

echo "bench: building the bench kernel in $bench_kobj" >&2
kbuild_kind=incremental
[ -f "$bench_kobj/vmlinux" ] || kbuild_kind="from scratch (ccache may be warm)"
t0=$(now)
build_bench_kernel "$run_dir/kernel-build.log"
kbuild_s=$(since "$t0")
check_nodebug
[ -r "$PKS_KERNEL" ] || die "no bench kernel at $PKS_KERNEL"
# One-file rebuild of the bench kernel: the file every PKS change touches.
echo "bench: $runs one-file rebuilds" >&2
rebuild=()
for _ in $(seq "$runs"); do
	touch "$KSRC/arch/x86/mm/pks.c"
	t0=$(now)
	build_bench_kernel "$run_dir/kernel-rebuild.log"
	rebuild+=("$(since "$t0")")
done

# The test hooks, built for this kernel (tests/hooks/build.sh says why),
# after the rebuilds: a module's BTF is checked against the vmlinux BTF
# it was built on, and a relink can renumber that (the module would not
# load: "failed to validate module BTF").
"$ROOT/tests/hooks/build.sh" >>"$run_dir/kernel-build.log" 2>&1 ||
	die "test hooks for the bench kernel did not build (log: $run_dir/kernel-build.log)"
export PKS_GUEST_HOOKS_KO=$BUILD/hooks-$(basename "$bench_kobj")/pks_hooks.ko

# bench_lines LOG: its "BENCH key=value" / "BENCH key value" lines as
# "key<TAB>value", the console's CR removed, the last line of a key only.
bench_lines() {
	sed -n 's/\r$//; s/^BENCH \([^ =]*\)[ =]\(.*\)$/\1\t\2/p' "$1" |
		awk -F '\t' '{ v[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; k[++n] = $1 } }
			END { for (i = 1; i <= n; i++) print k[i] "\t" v[k[i]] }'
}
bench_value() {	# LOG KEY: the whole value of KEY's line, if any
	bench_lines "$1" | awk -F '\t' -v k="$2" '$1 == k { print $2 }'
}

# in_order RUN A B: "A B" on odd runs, "B A" on even ones, so that drift
# on the host and cache warmth never favour the same side.
in_order() {
	if (($1 % 2)); then echo "$2 $3"; else echo "$3 $2"; fi
}

# Boot to first test: guest uptime when init starts the job, and host wall
# time for a whole boot + trivial job + power-off.  The job says whether
# lockdep runs: a kernel with it is not the bench kernel.
cat >"$run_dir/boot-job.sh" <<'EOF'
#!/bin/bash
if [ -e /proc/lockdep_stats ]; then echo "BENCH lockdep=1"; else echo "BENCH lockdep=0"; fi
EOF
chmod +x "$run_dir/boot-job.sh"
declare -A boot_up=() boot_wall=()
boot_once() {	# RUN pks|nopks
	local log=$run_dir/boot-$2-$1.log opt=() t0 wall rc=0 lockdep
	[ "$2" = nopks ] && opt=(--no-pks)
	rm -f "$log" "$log.console"
	t0=$(now)
	"$ROOT/vm/run.sh" --quiet --timeout 120 --log "$log" "${opt[@]}" "$run_dir/boot-job.sh" || rc=$?
	wall=$(since "$t0")
	if [ "$rc" != 0 ]; then
		refuse "boot $2 run $1: vm/run.sh exited $rc (log: $log)"
		return
	fi
	lockdep=$(bench_value "$log" lockdep)
	if [ "$lockdep" != 0 ]; then
		refuse "boot $2 run $1: lockdep=${lockdep:-unknown}, not the bench kernel (log: $log)"
		return
	fi
	boot_wall[$2]+=" $wall"
	boot_up[$2]+=" $(sed -n 's/\r$//; s/^PKS-VM-BOOTED uptime=//p' "$log" | tail -n 1)"
}
echo "bench: $runs boots with PKS and without, alternating" >&2
for r in $(seq "$runs"); do
	for cpu in $(in_order "$r" pks nopks); do
		boot_once "$r" "$cpu"
	done
done

# Guest benchmarks:
#   pmem-on / pmem-off   bench-pmem.sh with protection on / off (boot
#                        parameter): fio raw, ext4-dax, devdax; tracepoints
#                        on vs off; PKRS writes per I/O; kmap; one window
#   pksfault, pkstop     the tools attached vs not, in one boot each
# Run i boots pmem-on then pmem-off, run i+1 the other way round; the
# guest scripts get i (PKS_GUEST_BENCH_RUN) and alternate their in-boot
# comparisons the same way.  pm[SIDE:KEY] holds one value per valid boot,
# pm[SIDE:KEY.raw] the last valid boot's whole line; evidence[SIDE] the
# protection evidence of each valid boot.
declare -A pm=() evidence=() valid=()

# check_evidence LOG on|off: the boot's own account (bench-lib.sh's
# protection_evidence) must say device memory was protected (on) or not
# (off), and that lockdep was off; prints why not and fails otherwise.
check_evidence() {
	local ev w words key="" dkey="" off="" cmd="" lockdep=""
	ev=$(bench_value "$1" protection_evidence)
	[ -n "$ev" ] || { echo "no protection_evidence line"; return 1; }
	read -r -a words <<<"$ev"
	for w in "${words[@]}"; do
		case $w in
		key=*) key=${w#*=} ;;
		dmesg_key=*) dkey=${w#*=} ;;
		dmesg_off=*) off=${w#*=} ;;
		cmdline_off=*) cmd=${w#*=} ;;
		lockdep=*) lockdep=${w#*=} ;;
		esac
	done
	if [ "$lockdep" != 0 ]; then
		echo "lockdep=${lockdep:-unknown}, not the bench kernel ($ev)"
		return 1
	fi
	case $2 in
	on)
		[[ $key =~ ^[0-9]+$ ]] && [ "$dkey" = "$key" ] && [ "$off" = 0 ] && [ "$cmd" = 0 ] && return 0
		echo "booted for protection on, but the guest says: $ev" ;;
	off)
		[ "$key" = none ] && [ "$dkey" = none ] && [ "$off" = 1 ] && [ "$cmd" = 1 ] && return 0
		echo "booted for protection off, but the guest says: $ev" ;;
	esac
	return 1
}

collect() {	# LOG SIDE: one value per key, the first word of its line
	local k v
	while IFS=$'\t' read -r k v; do
		pm[$2:$k]+=" ${v%% *}"
		pm[$2:$k.raw]=$v
	done < <(bench_lines "$1")
}

guest_bench() {	# RUN SIDE on|off SCRIPT [vm/run.sh options...]
	local run=$1 side=$2 expect=$3 script=$4 log rc=0 why
	shift 4
	log=$run_dir/$side-$run.log
	rm -f "$log" "$log.console" "$run_dir/pmem.img"
	echo "bench: run $run, $side" >&2
	PKS_GUEST_BENCH_RUN=$run "$ROOT/vm/run.sh" --quiet --timeout 900 --log "$log" \
		--pmem "$run_dir/pmem.img" "$@" "$ROOT/tests/guest/$script" "$fio_s" || rc=$?
	rm -f "$run_dir/pmem.img"
	if [ "$rc" != 0 ]; then
		refuse "$side run $run: vm/run.sh exited $rc (log: $log)"
		return
	fi
	if ! why=$(check_evidence "$log" "$expect"); then
		refuse "$side run $run: $why (log: $log)"
		return
	fi
	collect "$log" "$side"
	valid[$side]+=" $run"
	evidence[$side]+="$(bench_value "$log" protection_evidence | sed 's/ lockdep=0$//')"$'\n'
}
pmem_side() {	# RUN on|off
	if [ "$2" = on ]; then
		guest_bench "$1" pmem-on on bench-pmem.sh
	else
		guest_bench "$1" pmem-off off bench-pmem.sh --append dev_access_protection=off
	fi
}
for r in $(seq "$runs"); do
	for side in $(in_order "$r" on off); do
		pmem_side "$r" "$side"
	done
	guest_bench "$r" pksfault on bench-pksfault.sh --append memremap.pks_fault_mode_weaken=1
	guest_bench "$r" pkstop on bench-pkstop.sh
done
# The tools' cost in instructions (vm/run.sh --icount, bench-icount.sh):
# deterministic, so two boots, each figure shown for both.
for r in 1 2; do
	guest_bench "$r" icount on bench-icount.sh --icount
done
# Protection on vs off in instructions (bench-icount-prot.sh), two boots
# of each side, in alternating order like the wall-clock sides.
for r in 1 2; do
	for side in $(in_order "$r" on off); do
		if [ "$side" = on ]; then
			guest_bench "$r" icount-on on bench-icount-prot.sh --icount
		else
			guest_bench "$r" icount-off off bench-icount-prot.sh --icount \
				--append dev_access_protection=off
		fi
	done
done

# A window leaked to user space on this kernel, which has no
# CONFIG_PKS_DEBUG: the exit path must close and count it in every build.
# The WARN it gives fails the run (exit 125), which is the point; the
# guest's own checks and the console say whether it was closed.
leak_check() {
	local log=$run_dir/leakuser.log rc=0
	rm -f "$run_dir/pmem.img"
	"$ROOT/vm/run.sh" --quiet --timeout 300 --log "$log" --pmem "$run_dir/pmem.img" \
		"$ROOT/tests/guest/provoke.sh" leakuser >/dev/null 2>&1 || rc=$?
	rm -f "$run_dir/pmem.img"
	if [ "$rc" = 125 ] && grep -q '^ok - verdict-leakuser: the window left open was counted' "$log" &&
		grep -q "^ok - verdict-leakuser: and closed: every CPU's PKRS is the default" "$log" &&
		grep -q 'pks: .* returns to user space with PKRS .*: closed' "$log.console"; then
		leak_result="closed, counted and reported (WARN)"
	else
		leak_result="NOT as expected: vm/run.sh exit $rc (log: ${log#"$ROOT"/})"
		refuse "leaked-window check: $leak_result"
	fi
}
echo "bench: a window leaked to user space" >&2
leak_check

# --- figures ---------------------------------------------------------------
# summary [full|med|n|range]: of the numbers on stdin (anything else, such
# as "n/a" or "failed", is no sample): "median M (n=N, min/max L/H)", or
# "not measured" when there is none; med: the median alone, n: the number
# of samples, range: "L H" (nothing when there is none).
summary() {
	{ grep -E '^[0-9]+(\.[0-9]+)?$' || true; } | sort -g | awk -v mode="${1:-full}" '
		function f(x) { return x == int(x) ? sprintf("%d", x) : sprintf("%.2f", x) }
		{ a[++n] = $1 + 0 }
		END {
			if (!n) { if (mode == "full") print "not measured"; exit }
			m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			if (mode == "med") print f(m)
			else if (mode == "n") print n
			else if (mode == "range") print f(a[1]), f(a[n])
			else printf "median %s (n=%d, min/max %s/%s)\n", f(m), n, f(a[1]), f(a[n])
		}'
}
vals() { tr ' ' '\n' <<<"${pm[$1]:-}"; }	# SIDE:KEY: one value per line
stat() { vals "$1" | summary; }
med() { vals "$1" | summary med; }
ratio() {	# A B: A / B, or why there is none
	if [ -n "$1" ] && [ -n "$2" ]; then
		awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else printf "n/a (baseline 0)" }'
	else
		printf 'n/a (not measured)'
	fi
}
row() {	# NAME VALUES...: a table row of this run's values
	echo "| $1 | $(printf '%s\n' "${@:2}" | summary) |"
}
pair() {	# LABEL SIDE:KEY BASE-SIDE:BASE-KEY: one comparison row
	echo "| $1 | $(stat "$2") | $(stat "$3") | $(ratio "$(med "$2")" "$(med "$3")") |"
}

# The icount rows: every boot's figure, and differences of medians.
declare -A icount_label=([bare]="bare" [floor]="empty programs on the two window events (tests/floor)"
	[pkstop]="pkstop --json 1" [pksfault]="pksfault --leak 1000 --hist"
	[pksfault_faults]="pksfault (stray faults only)" [pksfault_leak]="pksfault --leak 1000"
	[pksfault_hist]="pksfault --hist"
	[bpftrace]="bpftrace one-liner counting the four pks events per thread")
# Their rows, in this order, in both tables.
icount_variants=(bare floor pkstop pksfault pksfault_faults pksfault_leak pksfault_hist bpftrace)
declare -A floor_part_label=([ktime]="bpf_ktime_get_ns(): a window's start and end"
	[pid_tgid]="bpf_get_current_pid_tgid(): whose event"
	[preempt_count]="bpf_this_cpu_ptr(&__preempt_count): which context"
	[percpu_lookup]="a per-CPU array lookup and an increment: a counter")
each() {	# SIDE:KEY: each valid boot's value, in run order
	local v
	v=$(vals "$1" | grep . | paste -sd, - | sed 's/,/, /g')
	echo "${v:-not measured}"
}
minus() {	# A B N: (A - B) / N, or why there is none
	if [ -n "$1" ] && [ -n "$2" ]; then
		awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.0f", (a - b) / n }'
	else
		printf 'n/a (not measured)'
	fi
}

on_off_row() {	# LABEL KEY: icount_prot_KEY with protection on and off, and off / on
	echo "| $1 | $(each "icount-on:icount_prot_$2") | $(each "icount-off:icount_prot_$2") |" \
		"$(ratio "$(med "icount-off:icount_prot_$2")" "$(med "icount-on:icount_prot_$2")") |"
}

evidence_summary() {	# SIDE: each distinct evidence line of its valid boots, with a count
	printf '%s' "${evidence[$1]:-}" | sort | uniq -c |
		awk '{ c = $1; sub(/^ *[0-9]+ /, ""); printf "%s%s (%d boots)", sep, $0, c; sep = "; " }
			END { if (!NR) printf "none" }'
}

# Figures this run does not measure, from the logs of earlier commands:
# each says where and when it was recorded.
last_record() {	# FILE REGEX: the last line of FILE matching REGEX, if any
	[ -f "$1" ] || return 0
	{ grep -E "$2" "$1" || true; } | tail -n 1
}
field() {	# RECORD NAME: NAME=value in a record line
	sed -n "s/.*[[:space:]]$2=\([^[:space:]]*\).*/\1/p" <<<"$1"
}
recorded() {	# RECORD FILE WRITER: "S s (...), recorded when by whom in where"
	local secs
	secs=$(field "$1" seconds)
	printf '%s s, recorded %s by %s in %s, not measured in this run' \
		"${secs:-?}" "${1%% *}" "$3" "${2#"$ROOT"/}"
}

# The chart: one bar per figure measured in this run, median with min-max.
chart=$run_dir/throughput.dat
: >"$chart"
chart_point() {	# LABEL SIDE:KEY
	local m lo hi
	m=$(med "$2")
	[ -n "$m" ] || return 0
	read -r lo hi < <(vals "$2" | summary range)
	printf '"%s (n=%s)"\t%s\t%s\t%s\n' "$1" "$(vals "$2" | summary n)" "$m" "$lo" "$hi" >>"$chart"
}
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
svg=$run_dir/throughput.svg
if [ -s "$chart" ] && command -v gnuplot >/dev/null; then
	gnuplot <<GP || { echo "bench: gnuplot failed" >&2; rm -f "$svg"; }
set terminal svg size 1000,480 noenhanced font "sans,11"
set output "$svg"
set title "fio 4k randrw IOPS under QEMU TCG: median of n boots, bars min-max"
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

report=$run_dir/report.md
{
	echo "# PKS benchmark report"
	echo
	echo "- run: started $started, logs in ${run_dir#"$ROOT"/}"
	echo "- machine: $(nproc) CPUs, $(free -g | awk '/Mem:/{print $2}') GiB, $(uname -r)"
	echo "- kernel: $(git -C "$KSRC" describe --always --tags) ($(make -s -C "$KSRC" kernelversion)), series of $(series | wc -l) patches," \
		"built in ${bench_kobj#"$ROOT"/} without ${nodebug_opts[*]} (${nodebug#"$ROOT"/}); every guest boots it"
	echo "- QEMU: $(qemu-system-x86_64 --version | head -n 1), TCG"
	echo "- $runs runs of each, compared sides in alternating order (odd runs baseline first, even runs last);" \
		"fio 4k random read/write 50/50, $fio_s s per measurement, after a warm-up"
	echo "- every figure: median (n = boots of this run that produced it, min/max); \"not measured\" when none did"
	echo
	echo "## Validity"
	echo
	for side in pmem-on pmem-off pksfault pkstop icount icount-on icount-off; do
		echo "- $side: valid boots (run index):${valid[$side]:- none} of $runs; protection evidence" \
			"(key owned by Device Memory, key the kernel announced, its \"turned off\" message, command line):" \
			"$(evidence_summary "$side")"
	done
	echo "- tracepoints on/off order in the valid pmem-on boots, by run:${valid[pmem-on]:- none} ->${pm[pmem-on:order_tracepoints]:- none}"
	echo "- a window leaked to user space on this kernel (no CONFIG_PKS_DEBUG): $leak_result"
	if [ ${#invalid[@]} -eq 0 ]; then
		echo "- no run refused"
	else
		for line in "${invalid[@]}"; do
			echo "- **INVALID, not used**: ${line//"$ROOT"\//}"
		done
	fi
	echo
	[ -f "$svg" ] && echo "![throughput per configuration](throughput.svg)" && echo
	echo "## Throughput side by side (IOPS)"
	echo
	echo "| configuration | IOPS | baseline IOPS | ratio of medians |"
	echo "|---|---|---|---|"
	pair "raw pmem, protection on vs off" pmem-on:raw_iops pmem-off:raw_iops
	pair "ext4-dax, protection on vs off" pmem-on:ext4dax_iops pmem-off:ext4dax_iops
	pair "devdax, protection on vs off" pmem-on:devdax_iops pmem-off:devdax_iops
	pair "raw pmem, pks tracepoints on vs off (same boot)" pmem-on:raw_iops_tracepoints_on pmem-on:raw_iops
	pair "ext4-dax, two empty BPF programs on the window events vs not: the floor for any tool that runs per window (same boot, median)" pkstop:fio_iops_with_floor pkstop:fio_iops_without_pkstop
	pair "ext4-dax, pkstop running vs not (same boot, median of its rounds)" pkstop:fio_iops_with_pkstop pkstop:fio_iops_without_pkstop
	pair "ext4-dax, a bpftrace one-liner counting the same events per thread vs not (same boot, median)" pkstop:fio_iops_with_bpftrace pkstop:fio_iops_without_pkstop
	pair "ext4-dax, pkstop vs that bpftrace one-liner (same boot, median; target: at least 1)" pkstop:fio_iops_with_pkstop pkstop:fio_iops_with_bpftrace
	pair "ext4-dax, pksfault attached vs not (same boot, mean of its rounds)" pksfault:fio_iops_pksfault pksfault:fio_iops_plain
	pair "ext4-dax, pksfault --hist vs not (same boot, mean of its rounds)" pksfault:fio_iops_pksfault_hist pksfault:fio_iops_plain
	pair "ext4-dax, pksfault --leak --hist vs not (same boot, mean of its rounds)" pksfault:fio_iops_pksfault_leak_hist pksfault:fio_iops_plain
	pair "ext4-dax, pksfault --leak --hist --open-stacks vs not (same boot, mean of its rounds)" pksfault:fio_iops_pksfault_open_stacks pksfault:fio_iops_plain
	echo
	echo "## Cost of a window"
	echo
	for k in pkrs_per_io_4k pkrs_per_io_128k; do
		echo "- PKRS writes per pmem request ($k, msr tracepoint): $(stat "pmem-on:$k") (last valid boot: ${pm[pmem-on:$k.raw]:-none});" \
			"protection off: $(stat "pmem-off:$k")"
	done
	echo
	echo "PKRS writes and the key's open time per operation on ext4-dax (bench-ops.py: 256 of each," \
		"this process's msr and pks trace events; the target is at most 2 writes each):"
	echo
	echo "| operation | PKRS writes per op (on) | per op (off) | key open per op, us | op time, us | key open / op time |"
	echo "|---|---|---|---|---|---|"
	for op in read write fsync fault cow; do
		echo "| $op | $(stat "pmem-on:ops_${op}_pkrs") | $(stat "pmem-off:ops_${op}_pkrs") |" \
			"$(stat "pmem-on:ops_${op}_window_us") | $(stat "pmem-on:ops_${op}_op_us") |" \
			"$(ratio "$(med "pmem-on:ops_${op}_window_us")" "$(med "pmem-on:ops_${op}_op_us")") |"
	done
	echo
	echo "- kmap_local_page()/kunmap_local() on DRAM against page_address() alone, which is all the pair is" \
		"in a kernel without the series (timed by the hook in alternating blocks, so both sides see the" \
		"same host; median of the rounds' ratios):"
	echo "  - static branch off (no protected pgmap; the in-line tests are skipped, the stack adjustment" \
		"for their call is not): ratio $(stat pmem-on:kmap_ratio_branch0);" \
		"pair $(stat pmem-on:kmap_ns_branch0) ns, page_address() $(stat pmem-on:kmap_addr_ns_branch0) ns"
	echo "  - static branch on (a protected pgmap exists): ratio $(stat pmem-on:kmap_ratio_branch1);" \
		"pair $(stat pmem-on:kmap_ns_branch1) ns, page_address() $(stat pmem-on:kmap_addr_ns_branch1) ns"
	echo "  - with a protected pgmap vs without (target: at most 1.05), ratio of the medians:" \
		"$(ratio "$(med pmem-on:kmap_ratio_branch1)" "$(med pmem-on:kmap_ratio_branch0)")"
	echo "- one window (dev_access_enable + disable, 2 PKRS writes), ns: $(stat pmem-on:window_ns)"
	on=$(med pmem-on:raw_iops) off=$(med pmem-off:raw_iops)
	echo "- raw pmem, extra time per request with protection (from the medians): $(awk -v a="$on" -v b="$off" \
		'BEGIN { if (a > 0 && b > 0) printf "%.0f ns", 1e9 / a - 1e9 / b; else printf "n/a (not measured)" }')."
	echo "  Every WRMSR to PKRS makes QEMU flush its whole software TLB, and the"
	echo "  accesses after it refill it; on hardware a PKRS write costs a few"
	echo "  hundred cycles and no flush, so these ratios are TCG's, not PKS's."
	echo
	echo "## The tools"
	echo
	echo "| figure | value |"
	echo "|---|---|"
	for hz in 1000 4000 16000 64000; do
		k=pksfault:pksfault_windows_hz${hz}
		echo "| pksfault, $hz windows/s requested: events generated per s | $(stat "${k}_generated_per_s") |"
		echo "| pksfault, $hz windows/s requested: events seen per s | $(stat "${k}_events_seen_per_s") |"
		echo "| pksfault, $hz windows/s requested: events dropped | $(stat "${k}_dropped") |"
	done
	for n in 1000 5000 20000; do
		k=pksfault:pksfault_fault_burst${n}
		echo "| pksfault, burst of $n relaxed stray faults: seen | $(stat "${k}_seen") |"
		echo "| pksfault, burst of $n relaxed stray faults: dropped | $(stat "${k}_dropped") |"
		echo "| pksfault, burst of $n relaxed stray faults: seconds | $(stat "${k}_seconds") |"
	done
	echo "| pkstop CPU ms per 1 s interval, idle | $(stat pkstop:pkstop_cpu_ms_per_interval_idle) |"
	echo "| pkstop CPU ms per 1 s interval, under fio (first round) | $(stat pkstop:pkstop_cpu_ms_per_interval_fio1) |"
	echo "| bpftrace one-liner CPU ms per 1 s, idle (/proc/PID/stat) | $(stat pkstop:bpftrace_cpu_ms_per_interval_idle_procstat) |"
	echo "| bpftrace one-liner CPU ms per 1 s, under fio (first round) | $(stat pkstop:bpftrace_cpu_ms_per_interval_fio1_procstat) |"
	echo "| pkstop CPU ms per 1 s, under fio (first round, /proc/PID/stat) | $(stat pkstop:pkstop_cpu_ms_per_interval_fio1_procstat) |"
	echo
	echo "## The tools in instructions (icount)"
	echo
	echo "Two boots of vm/run.sh --icount (one vCPU; the guest clock advances one ns per retired instruction):"
	echo "retired instructions, each REP iteration counted, a WRMSR one; not cycles.  A write figure is the smallest of three runs of"
	echo "4000 in its boot: work that lands in a run by chance (a tool's periodic sweep or sample, a kworker) only adds."
	echo "Valid boots (run index):${valid[icount]:- none} of 2;"
	echo "protection evidence: $(evidence_summary icount)."
	echo
	echo "| per 4 KiB O_DIRECT write to fsdax pmem | instructions, each boot | added vs bare (medians) | bare / with |"
	echo "|---|---|---|---|"
	for v in "${icount_variants[@]}"; do
		echo "| ${icount_label[$v]} | $(each "icount:icount_write_$v") |" \
			"$(minus "$(med "icount:icount_write_$v")" "$(med icount:icount_write_bare)" 1) |" \
			"$(ratio "$(med icount:icount_write_bare)" "$(med "icount:icount_write_$v")") |"
	done
	echo
	echo "| per pks event (windowbench: one enable and one disable event per pair) | pair, each boot | per event added vs bare | per event added vs the floor |"
	echo "|---|---|---|---|"
	for v in "${icount_variants[@]}"; do
		echo "| ${icount_label[$v]} | $(each "icount:icount_pair_$v") |" \
			"$(minus "$(med "icount:icount_pair_$v")" "$(med icount:icount_pair_bare)" 2) |" \
			"$(minus "$(med "icount:icount_pair_$v")" "$(med icount:icount_pair_floor)" 2) |"
	done
	echo
	echo "Where a tool's per-event instructions go: the floor's programs doing one thing each that the tools do at"
	echo "every event (bpf/floor.bpf.c; this kernel calls each of these helpers, none is inlined)."
	echo
	echo "| one part of a tool's per-event work | pair, each boot | per event added vs the floor |"
	echo "|---|---|---|"
	for v in ktime pid_tgid preempt_count percpu_lookup; do
		echo "| ${floor_part_label[$v]} | $(each "icount:icount_pair_floor_$v") |" \
			"$(minus "$(med "icount:icount_pair_floor_$v")" "$(med icount:icount_pair_floor)" 2) |"
	done
	echo
	echo "- bare again after the tools, write / pair: $(each icount:icount_write_bare_after) / $(each icount:icount_pair_bare_after)"
	echo "- evidence each tool was attached: pkstop's window opens $(each icount:icount_pkstop_opens);" \
		"pksfault's windows closed ${pm[icount:icount_pksfault_windows_closed.raw]:-none} (last boot; with --leak only" \
		"${pm[icount:icount_pksfault_leak_windows_closed.raw]:-none}, faults only ${pm[icount:icount_pksfault_faults_windows_closed.raw]:-none});" \
		"bpftrace's events counted $(each icount:icount_bpftrace_events)"
	echo
	echo "## Protection in instructions (icount)"
	echo
	echo "Boots of vm/run.sh --icount with device memory protected, and with dev_access_protection=off (retired"
	echo "instructions, not cycles).  Each request and operation figure is the smallest of three runs in its boot, as above."
	echo "Valid boots (run index): on${valid[icount-on]:- none}, off${valid[icount-off]:- none} of 2."
	echo
	echo "| per 4 KiB O_DIRECT request to an fsdax namespace (block device, or a file on ext4 -o dax) | protection on, each boot | off, each boot | off / on (medians) |"
	echo "|---|---|---|---|"
	for rw in write read ext4_write ext4_read; do
		on_off_row "$(sed 's/^ext4_write$/ext4-dax file, write (an overwrite)/; s/^ext4_/ext4-dax file, /' <<<"$rw")" "$rw"
	done
	echo
	echo "| per operation (tests/guest/opbench.c; the guest clock around the operation only) | protection on, each boot | off, each boot | off / on (medians) |"
	echo "|---|---|---|---|"
	declare -A op_label=([ext4_fsync]="ext4-dax: store to a cleaned page of a shared mapping, then fdatasync (its write-back)"
		[ext4_fault]="ext4-dax: write fault on a fresh shared mapping"
		[xfs_cow]="xfs -o dax, reflink: write fault on a cloned extent (copy on write)"
		[devdax_fault]="device-dax: fault of a fresh shared mapping (2 MiB)")
	for op in ext4_fsync ext4_fault xfs_cow devdax_fault; do
		on_off_row "${op_label[$op]}" "$op"
	done
	echo
	echo "| entry and exit, protection on (hooks irqbench 5000, switchbench 5000) | no key open, each boot | a key open, each boot | added by the open key (medians) |"
	echo "|---|---|---|---|"
	echo "| self-interrupt (irq_work IPI), queue to handled | $(each icount-on:icount_prot_irq) | $(each icount-on:icount_prot_irq_open) |" \
		"$(minus "$(med icount-on:icount_prot_irq_open)" "$(med icount-on:icount_prot_irq)" 1) |"
	echo "| context switch between two threads on one CPU (completions) | $(each icount-on:icount_prot_switch) | $(each icount-on:icount_prot_switch_open) |" \
		"$(minus "$(med icount-on:icount_prot_switch_open)" "$(med icount-on:icount_prot_switch)" 1) |"
	echo
	echo "| dev_access_enable()/disable() pair (hooks windowbench 100000) | each boot |"
	echo "|---|---|"
	echo "| per loop iteration, pair included | $(each icount-on:icount_prot_pair) |"
	echo "| per loop iteration, the loop alone | $(each icount-on:icount_prot_loop) |"
	echo "| the pair (medians' difference) | $(minus "$(med icount-on:icount_prot_pair)" "$(med icount-on:icount_prot_loop)" 1) |"
	echo
	echo "## Build, boot, test"
	echo
	echo "| figure | value |"
	echo "|---|---|"
	echo "| bench kernel build at the start of this run, s (${bench_kobj#"$ROOT"/}, $kbuild_kind) | $kbuild_s (n=1) |"
	row "one-file rebuild of the bench kernel, s (arch/x86/mm/pks.c, incl. link + BTF)" "${rebuild[@]}"
	for cpu in pks nopks; do
		# shellcheck disable=SC2086 # one value per word
		row "boot to first test, guest uptime s ($cpu)" ${boot_up[$cpu]:-}
		# shellcheck disable=SC2086
		row "boot + job + power-off, host wall s ($cpu)" ${boot_wall[$cpu]:-}
	done
	echo
	echo "Not measured in this run (a from-scratch build or make test alone takes longer than this report may):"
	echo
	kb=$LOGS/kernel-build-times
	rec=$(last_record "$kb" ' kobj=kobj .*from_scratch=yes')
	if [ -n "$rec" ]; then
		echo "- from-scratch build of the test kernel (build/kobj): $(recorded "$rec" "$kb" kernel/build.sh)"
	else
		echo "- from-scratch build of the test kernel (build/kobj): not recorded in ${kb#"$ROOT"/}"
	fi
	mt=$LOGS/make-test-times
	rec=$(last_record "$mt" ' failed=0( |$)')
	if [ -n "$rec" ]; then
		echo "- make test, last clean run (failed=0, from scratch: $(field "$rec" from_scratch | grep . || echo "not recorded")):" \
			"$(recorded "$rec" "$mt" tests/run.sh)"
	else
		echo "- make test, last clean run: not recorded in ${mt#"$ROOT"/}"
	fi
	rec=$(last_record "$mt" ' from_scratch=yes( |$)')
	if [ -n "$rec" ]; then
		echo "- make test from scratch (passed=$(field "$rec" passed) failed=$(field "$rec" failed)): $(recorded "$rec" "$mt" tests/run.sh)"
	else
		echo "- make test from scratch: not recorded (no line of ${mt#"$ROOT"/} says from_scratch=yes)"
	fi
} >"$report"

# Publish: the report and chart where the README says they are.
cp "$report" "$out/report.md"
[ -f "$svg" ] && cp "$svg" "$out/throughput.svg"
cat "$out/report.md"
if [ ${#invalid[@]} -gt 0 ]; then
	echo "bench: ${#invalid[@]} run(s) refused, see \"Validity\" in $out/report.md" >&2
	exit 1
fi
