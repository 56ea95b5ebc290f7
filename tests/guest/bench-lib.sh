# shellcheck shell=bash
# Shared by the guest halves of make bench (bench-*.sh), sourced after
# lib.sh (DBG).  tests/bench.sh parses the "BENCH ..." lines.

# The index of this boot among the host's runs (1, 2, ...), passed as
# PKS_GUEST_BENCH_RUN.  Odd runs measure the baseline first, even runs
# last, so that drift, a cold cache or QEMU's code translation never
# favours the same side.
BENCH_RUN=${PKS_GUEST_BENCH_RUN:-1}
# baseline_first ROUND: whether the baseline goes first in this run (and
# round, which flips the order again within one boot).
baseline_first() { [ $(((BENCH_RUN + $1) % 2)) = 0 ]; }

# What this boot did with device memory, in the kernel's own words, for
# the host to check against the side it booted (it never trusts its own
# command line alone): the key owned by "Device Memory", the key the
# kernel announced, whether it said protection was turned off, whether
# the command line asked for that, and whether lockdep runs (the bench
# kernel has none; the test kernel does).
protection_evidence() {
	local key dkey off cmd=0 lockdep=0
	key=$(sed -n 's/^ *\([0-9][0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated" 2>/dev/null | head -n 1)
	dkey=$(dmesg | sed -n 's/.*dev_access: device memory protected by PKS key \([0-9][0-9]*\).*/\1/p' | head -n 1)
	off=$(dmesg | grep -c 'dev_access: protection of device memory turned off')
	grep -qw 'dev_access_protection=off' /proc/cmdline && cmd=1
	[ -e /proc/lockdep_stats ] && lockdep=1
	echo "BENCH protection_evidence key=${key:-none} dmesg_key=${dkey:-none} dmesg_off=${off:-0} cmdline_off=$cmd lockdep=$lockdep"
}

# The values among the arguments that are numbers (a failed measurement
# prints nothing or "n/a", and must not count as a zero).
numbers() { printf '%s\n' "$@" | grep -E '^[0-9]+(\.[0-9]+)?$'; }
# mean_of / median_of VALUES...: over the numbers only; nothing when none.
mean_of() { numbers "$@" | awk '{ s += $1; n++ } END { if (n) printf "%d\n", s / n + 0.5 }'; }
median_of() { numbers "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
