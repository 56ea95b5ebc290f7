#!/bin/bash
# Real kernel paths onto protected device memory, beyond the test hooks.
# The test kernel carries CONFIG_PKS_DEBUG: wherever the hardware would
# check the key but QEMU's TCG does not (cache write-back of pmem), it
# WARNs when no window is open, and the host fails the run on any WARN.
#   realpaths.sh   fsync/msync of dirty shared DAX mappings (ext4-dax),
#                  windows only around the accesses (none for faults),
#                  the DAX recovery write over a bad block,
#                  softirqs run from local_bh_enable() inside a window,
#                  S3 suspend/resume keeps every CPU's PKRS default
#                  windows open while the first protected pgmap appears
#                  or the last goes away close cleanly
set -uo pipefail
SUITE=realpaths
. "$(dirname "$0")/lib.sh"

MNT=/mnt/pmem
mkdir -p "$MNT"

# Write a pattern through a shared mapping, msync (dax_writeback_one ->
# dax_flush on the keyed direct map), fsync, and read it back through
# read(2), compared with the pattern's checksum taken in DRAM.
shared_mapping_sync() {	# FILE SIZE
	python3 - "$1" "$2" <<'PY'
import hashlib, mmap, os, sys
path, size = sys.argv[1], int(sys.argv[2])
pat = os.urandom(size)
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
os.ftruncate(fd, size)
m = mmap.mmap(fd, size, mmap.MAP_SHARED)
m[:] = pat
m.flush()            # msync(MS_SYNC): writes back the dirty DAX entries
m[0:4096] = pat[0:4096][::-1]
os.fsync(fd)         # fsync: the same write-back through the file
m.close()
os.close(fd)
want = pat[0:4096][::-1] + pat[4096:]
got = open(path, "rb").read()
sys.exit(0 if hashlib.sha256(got).digest() == hashlib.sha256(want).digest() else 1)
PY
}

check "fsdax namespace" ns_mode fsdax mem
check "ext4 with DAX on /dev/pmem0" bash -c "mkfs.ext4 -q -F -b 4096 /dev/pmem0 && mount -o dax /dev/pmem0 $MNT && grep -q '$MNT ext4 .*dax' /proc/mounts"
check "msync + fsync of a dirty shared DAX mapping, data read back" shared_mapping_sync "$MNT/shared" $((8 << 20))

# Windows open around the accesses to device memory, not around
# dax_read_lock(): page faults that only map DAX pages into a process
# touch no device memory and open none; a read(2) opens one, for its copy.
T=/sys/kernel/tracing
windows_opened() {	# PYTHON-CODE: run it; print the callers of the outermost windows its process opened
	local pid
	echo 0 >$T/events/pks/enable
	echo >$T/trace
	echo 1 >$T/events/pks/dev_access_enable/enable
	python3 -c "$1" &
	pid=$!
	wait $pid || echo "python-exit-$?"
	echo 0 >$T/events/pks/enable
	sed -n "s/^ *[^ ].*-$pid  *\[.*dev_access_enable: .* depth=1 .* caller=\([^+]*\)+.*/\1/p" $T/trace
}
fault_all='import mmap, os
fd = os.open("'$MNT'/shared", os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED)
s = sum(m[i] for i in range(0, len(m), 4096))
for i in range(0, len(m), 8192):
    m[i] = m[i]
m.close()'
out=$(windows_opened "$fault_all")
echo "# windows opened by read and write faults over 8 MiB of DAX pages: $(grep -c . <<<"$out")," \
	"by caller: $(grep . <<<"$out" | sort | uniq -c | head -n 3 | tr -s ' \n' ' ')"
# (Metadata block I/O the filesystem may do in the faulting thread goes
# through pmem_submit_bio(), whose window is the block driver's.)
check "DAX page faults (read and write, 8 MiB) open no window" test -z "$(grep -vx pmem_submit_bio <<<"$out")"
out=$(windows_opened 'import os; os.pread(os.open("'$MNT'/shared", os.O_RDONLY), 4096, 0)')
echo "# windows opened by a 4 KiB read(2): $(tr '\n' ' ' <<<"$out")"
check "a 4 KiB read(2) opens one window, in dax_copy_to_iter()" test "$out" = dax_copy_to_iter
# A cache flush carries no data: pmem opens no window for it.  fsync of
# a clean ext4 file sends one from the caller whenever the journal has
# nothing to commit (pmem's queue has a write cache); the journal's own
# writes, if any, are the jbd2 thread's.
python3 -c 'import os; os.fsync(os.open("'$MNT'/shared", os.O_RDONLY))'	# now clean
out=$(windows_opened 'import os
fd = os.open("'$MNT'/shared", os.O_RDONLY)
for _ in range(3):
    os.fsync(fd)')
echo "# windows opened by 3 fsyncs of a clean file: $(tr '\n' ' ' <<<"$out"), write cache: $(cat /sys/block/pmem0/queue/write_cache)"
check "fsync of a clean file (an empty flush bio) opens no window" \
	test -z "$out" -a "$(cat /sys/block/pmem0/queue/write_cache)" = "write back"

# The DAX recovery write: a write(2) over a bad block goes through
# dax_recovery_write(), which copies the good pages before the bad one
# (the driver cannot clear the poison under QEMU, so the write stops at
# the bad page).  Its copy needs a window like any other.
recovery_write() {
	local f=$MNT/recovery blk out
	python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, b"a" * 8192)
os.fsync(fd)' "$f" || return 1
	blk=$(filefrag -v -b4096 "$f" | awk '$1 == "0:" { sub(/\.\..*/, "", $4); print $4 }')
	[[ "$blk" =~ ^[0-9]+$ ]] || { echo "# no block for $f"; return 1; }
	# The second page bad: 8 sectors at its block (4 KiB blocks)
	echo "$(((blk + 1) * 8)) 8" >/sys/block/pmem0/badblocks || return 1
	out=$(windows_opened 'import os
fd = os.open("'$f'", os.O_RDWR)
print("wrote", os.pwrite(fd, b"b" * 8192, 0))')
	echo "# recovery write over a bad second page: $(tr '\n' ' ' <<<"$out")"
	grep -qx "wrote 4096" <<<"$out" && grep -qx dax_recovery_write <<<"$out" &&
		test "$(head -c 4096 "$f" | tr -d b | wc -c)" = 0
}
check "DAX recovery write over a bad block: the good page written in a window" recovery_write
check "ext4: unmount and fsck clean" bash -c "umount $MNT && fsck.ext4 -fn /dev/pmem0"

# Softirqs run from local_bh_enable() in a thread that holds a window:
# they get the default PKRS and depth 0, as interrupts do, and the
# thread's window is intact afterwards.
out=$(hook softirq "$(inj_phys)")
echo "# $out"
check "softirq from local_bh_enable(): no window, default PKRS, page closed; the thread's window intact" \
	test "$out" = "softirq ran=Y depth=0 pkrs=0x55555554 blocked=Y thread_depth=1 thread_open=Y"

# A thread's window must not depend on which pgmaps exist: a window open
# while the first protected pgmap appears, and one open while the last
# goes away, both close cleanly.  (When the count followed the static
# branch, the first close was unbalanced, a WARN, and the second left the
# thread at depth 1 into user space, which CONFIG_PKS_DEBUG WARNs.)
hold_across() {	# NDCTL-ACTION...: hold a window 10 s while it runs
	local res=/tmp/hold.$$ t0 t1 rc=0
	hook hold 10000 >"$res" &
	sleep 1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s%N)
	wait
	# The action must succeed and end inside the window, or nothing was tested.
	echo "$(cat "$res") action_rc=$rc action_ms=$(((t1 - t0) / 1000000))"
}
held_across_ok() {	# OUT: depth 1 throughout, the action done inside the window
	[[ "$1" =~ ^"hold ms=10000 depth=1 action_rc=0 action_ms="([0-9]+)$ ]] &&
		((BASH_REMATCH[1] < 8000))
}
check "namespace disabled: no protected pgmap (no /dev/pmem0)" \
	bash -c "ndctl disable-namespace namespace0.0 >/dev/null && ! test -e /dev/pmem0"
out=$(hold_across ndctl enable-namespace namespace0.0)
echo "# window open while the first protected pgmap appeared: $out"
check "a window open while the first protected pgmap appears closes at depth 0" \
	held_across_ok "$out"
out=$(hold_across ndctl disable-namespace namespace0.0)
echo "# window open while the last protected pgmap went away: $out"
check "a window open while the last protected pgmap goes away closes at depth 0" \
	held_across_ok "$out"
check "every CPU's PKRS default, no thread left with a window" pkrs_all_default
check "namespace enabled again (for S3)" bash -c "ndctl enable-namespace namespace0.0 >/dev/null && test -e /dev/pmem0"

# S3, last: the boot CPU comes back from suspend with PKRS 0 unless the
# kernel restores it; the other CPUs come back through CPU hotplug.  The
# 9p root does not survive the resume (virtio-9p has no PM restore), so
# everything after it uses bash builtins only, and this script ends the
# run itself: no process with a file open on the root can exit any more.
# bash parses a whole function before it runs it: nothing of this file
# is read from the (lost) root after the resume.
s3_last() {
	local phys rc before after out
	phys=$(inj_phys)
	check "S3 is available (/sys/power/state lists mem, an RTC to wake us)" \
		bash -c "grep -qw mem /sys/power/state && test -w /sys/class/rtc/rtc0/wakealarm"
	read -r before </sys/power/suspend_stats/success
	# The job ends the run itself (vm/end-run.sh); pks_run, the boot's id,
	# came to it from init's environment.
	. "$(dirname "$0")/../../vm/end-run.sh"
	# What rtcwake does, with builtins: its own code, faulted in from the
	# root after the resume, would hang.
	echo 0 >/sys/class/rtc/rtc0/wakealarm
	echo +3 >/sys/class/rtc/rtc0/wakealarm
	echo mem >/sys/power/state
	rc=$?
	read -r after </sys/power/suspend_stats/success
	[ "$rc" = 0 ] && [ "$after" = $((before + 1)) ] &&
		pass "S3 suspend and resume by the RTC alarm (suspend_stats/success $before -> $after)" ||
		fail "S3 suspend and resume (rtcwake exit $rc, suspend_stats/success $before -> $after)"

	builtin_hook() {	# COMMAND...: hook() without cat
		local out file
		file=$(hook_file "$1")
		echo "$*" >"$file" && read -r out <"$file" && echo "$out"
	}
	resumed_pkrs_default() {
		local cpu msr cache n=0 out
		while read -r cpu _ msr _ cache; do
			n=$((n + 1))
			[ "$msr" = 0x55555554 ] && [ "$cache" = 0x55555554 ] ||
				{ echo "# $cpu pkrs $msr cache $cache"; return 1; }
		done <"$DBG/pks_cpu_pkrs"
		[ "$n" = 2 ] || { echo "# $n CPUs listed"; return 1; }
		out=$(builtin_hook threads)
		[[ "$out" =~ ^threads\ checked=[1-9][0-9]*\ open=0$ ]] || { echo "# $out"; return 1; }
	}
	if out=$(resumed_pkrs_default); then
		pass "after resume: every CPU's PKRS and every thread's window are the default"
	else
		fail "after resume: every CPU's PKRS and every thread's window are the default"
		echo "$out"
	fi
	out=$(builtin_hook inject "$phys" $INJ_LEN 20 9 nowindow)
	echo "# after resume: $out"
	[ "$out" = "inject nowindow attempted=20 blocked=20 landed=0" ] &&
		pass "after resume: stray writes are still blocked" ||
		fail "after resume: stray writes are still blocked"
	echo "# $SUITE: $failures failed"
	[ "$failures" -eq 0 ]
	end_run 1 $?
}

s3_last
