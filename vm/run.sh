#!/usr/bin/env bash
# Boot the built kernel under QEMU TCG with an emulated NVDIMM and run one
# script in the guest.  The guest's root is the host's, read-only over 9p,
# so the script and every tool it calls are used in place (see vm/README).
#
# Usage: vm/run.sh [options] SCRIPT [ARGS...]
#   --no-pks        CPU without PKS (-cpu max,-pks); default is -cpu max
#   --timeout SEC   kill the guest after SEC seconds (default 300)
#   --log FILE      the script's output (default build/vm/job.log); the
#                   kernel's console goes to FILE.console
#   --append ARGS   extra kernel command line
#   --kernel-fault-mode  leave memremap.pks_fault_mode at the kernel's own
#                   default (relaxed); every other run boots strict, so
#                   that a stray access to device memory never happens and
#                   fails the run (--append memremap.pks_fault_mode=relaxed
#                   still overrides it: the last value given wins)
#   PKS_GUEST_*     environment variables passed on to the guest script
#   PKS_TCG_THREAD  single (default: one host thread runs both vCPUs) or
#                   multi (one each; can hang on kernel text patching)
#   --pmem FILE     NVDIMM backing file (default build/vm/pmem0.img): 1 GiB
#                   of namespace after the 2 MiB label area, so that the
#                   region stays 16 MiB aligned for fsdax/devdax
#   --disk FILE     a 64 MiB virtio-blk disk (/dev/vda) that uses the DMA
#                   API (iommu_platform=on): with swiotlb=force on the
#                   command line, all its I/O is bounced
#   --allow-taint M taint flags (mask) the run may leave; default TAINT_TEST
#                   (1<<18): KUnit runs at every boot, and TAINT_OOT_MODULE
#                   (1<<12): the guest scripts load the project's own
#                   out-of-tree test hooks (tests/hooks)
#   --icount        count instructions: -icount shift=0, one vCPU.  The
#                   guest clock then advances one nanosecond per retired
#                   instruction, so every ktime delta (and fio's latencies)
#                   is an instruction count: each REP iteration counts, a
#                   WRMSR counts one; not cycles.  One vCPU: with -smp 2 the
#                   guest hung at secondary-CPU bring-up under icount
#                   (QEMU 7.2)
#   --quiet         do not echo the output and console to stdout
#   --shell         interactive shell instead of SCRIPT (developers)
#
# Exit status: the guest script's, or 124 on timeout, or 125 when the
# kernel warned, oopsed, stalled or was left tainted, or this run's end
# sentinel is missing, whatever the script returned (vm/verdict.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${PKS_BUILD_DIR:-$ROOT/build}
KERNEL=${PKS_KERNEL:-$BUILD/kobj/arch/x86/boot/bzImage}

cpu=max vcpus=(-smp 2) timeout=300 log=$BUILD/vm/job.log append="" quiet=0 shell=0
fault_mode=memremap.pks_fault_mode=strict
allow_taint=$(((1 << 18) | (1 << 12))) disk=""
pmem=$BUILD/vm/pmem0.img
while [ $# -gt 0 ]; do
	case "$1" in
	--no-pks) cpu=max,-pks ;;
	--kernel-fault-mode) fault_mode="" ;;
	--timeout) timeout=$2; shift ;;
	--log) log=$2; shift ;;
	--append) append="$append $2"; shift ;;
	--pmem) pmem=$2; shift ;;
	--disk) disk=$2; shift ;;
	--allow-taint) allow_taint=$2; shift ;;
	--icount) vcpus=(-icount shift=0 -smp 1) ;;
	--quiet) quiet=1 ;;
	--shell) shell=1 ;;
	--) shift; break ;;
	-*) echo "vm/run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
[ "$shell" = 1 ] || [ $# -ge 1 ] || { echo "usage: vm/run.sh [options] SCRIPT [ARGS...]" >&2; exit 2; }
[ -r "$KERNEL" ] || { echo "vm/run.sh: no kernel at $KERNEL; run make kernel" >&2; exit 2; }

mkdir -p "$BUILD/vm/jobs" "$BUILD/vm/out" "$(dirname "$log")"
pmem_size=1026M
[ -f "$pmem" ] && [ "$(stat -c %s "$pmem")" -ge $((1026 << 20)) ] || truncate -s $pmem_size "$pmem"

# The job file is what the guest's init runs: the script, its arguments,
# and where it runs from.
job=$(mktemp "$BUILD/vm/jobs/job.XXXXXX")
trap 'rm -f "$job"' EXIT
{
	echo "cd $(printf '%q' "$PWD")"
	# PKS_GUEST_* variables reach the guest script (test durations etc.).
	while IFS='=' read -r name _; do
		printf 'export %s=%q\n' "$name" "${!name}"
	done < <(env | grep -E '^PKS_GUEST_[A-Z0-9_]*=' || true)
	if [ "$shell" = 1 ]; then
		echo "exec setsid -c bash -l"
	else
		printf 'exec'
		printf ' %q' "$(realpath "$1")" "${@:2}"
		echo
	fi
} >"$job"

cmdline="console=ttyS0 root=root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=512000"
# A run's own id: the verdict never counts a log an earlier run left.
run_id=$(date +%s%N)-$$
console=$log.console
cmdline="$cmdline ro init=$ROOT/vm/guest-init pks_job=$job pks_run=$run_id panic=-1 oops=panic"
# Every kernel message reaches the console, whatever its level: a WARN or
# a lockdep report printed at KERN_WARNING must fail the run.
cmdline="$cmdline ignore_loglevel printk.time=1 $fault_mode $append"
# No KASLR: every address the console or a timeout report prints can be
# looked up in System.map as it is.
cmdline="$cmdline nokaslr"
# The boot-time IO-APIC timer check counts ticks against a delay loop; on
# a host busy with another guest (make test runs two) TCG can miss it and
# the kernel panics "IO-APIC + timer doesn't work!".  The timer works;
# skip the check, as virtualised guests commonly do.
cmdline="$cmdline no_timer_check"

# One TCG thread for both vCPUs (PKS_TCG_THREAD=multi for one each).
# With one per vCPU, QEMU 7.2 can keep running a translation of kernel
# text that another vCPU has since patched: text_poke_bp() puts an int3
# on a static-branch site, removes it, and a vCPU keeps trapping on the
# int3 its stale translation still holds.  kprobe_int3_handler() finds
# no int3 in memory and backs up to retry forever, with interrupts off
# (vm/cpu-state.sh: RIP at the site, memory there a NOP).  Enabling trace
# events flips sched_switch's key in __schedule(): 2 hangs in 2 runs of
# 5 minutes of flips with multi, none with single.
qemu=(qemu-system-x86_64 -machine pc,nvdimm=on -accel "tcg,thread=${PKS_TCG_THREAD:-single}" -cpu "$cpu" "${vcpus[@]}"
	-m 1G,slots=2,maxmem=4G
	-object "memory-backend-file,id=pm0,share=on,mem-path=$pmem,size=$pmem_size,align=2M"
	-device nvdimm,id=nv0,memdev=pm0,label-size=2M
	-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap
	-virtfs "local,path=$BUILD/vm/out,mount_tag=out,security_model=none"
	-kernel "$KERNEL"
	-display none -no-reboot)

if [ -n "$disk" ]; then
	[ -f "$disk" ] || truncate -s 64M "$disk"
	qemu+=(-drive "file=$disk,if=none,id=vd0,format=raw"
		-device virtio-blk-pci,drive=vd0,disable-legacy=on,iommu_platform=on)
fi

if [ "$shell" = 1 ]; then
	exec "${qemu[@]}" -monitor none -append "$cmdline" -chardev "stdio,id=con,logfile=$console,signal=off" -serial chardev:con
fi

# Fresh files for this run, created by us: nothing of an earlier run's
# output can be read as this run's.
rm -f "$log" "$console"
: >"$log"
: >"$console"
# A monitor on two FIFOs, for what the guest cannot say once it hangs.
mon=$(mktemp -u "$BUILD/vm/jobs/mon.XXXXXX")
mkfifo "$mon.in" "$mon.out"
trap 'rm -f "$job" "$mon.in" "$mon.out"' EXIT
"${qemu[@]}" -monitor "pipe:$mon" -append "$cmdline pks_out=ttyS1" -chardev "file,id=con,path=$console" -serial chardev:con \
	-chardev "file,id=job,path=$log" -serial chardev:job </dev/null &
qpid=$!
if [ "$quiet" = 0 ]; then
	tail -q -n +1 -f "$console" "$log" --pid=$qpid &
fi
status=0
timeout_hit=0
for ((i = 0; i < timeout * 10; i++)); do
	kill -0 $qpid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $qpid 2>/dev/null; then
	timeout_hit=1
	"$ROOT/vm/cpu-state.sh" "$mon" "$(dirname "$KERNEL")/../../../System.map" >"$log.cpus" 2>&1 || true
	kill $qpid 2>/dev/null || true
fi
wait $qpid 2>/dev/null || true
sleep 0.2

exec "$ROOT/vm/verdict.sh" "$log" "$console" "$timeout_hit" "$run_id" "$allow_taint"
