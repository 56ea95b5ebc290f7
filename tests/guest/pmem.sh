#!/bin/bash
# Stray-write protection of persistent memory, on the emulated NVDIMM.
#   pmem.sh full KIND     fsdax (--map=dev, --map=mem), devdax and ext4-dax
#                         tests; leaves ext4 with a file for the next boot
#   pmem.sh persist KIND  after a VM restart: that file reads back identical
# KIND is what the host booted: pks (PKS, protection on), nopks (a CPU
# without PKS) or protoff (dev_access_protection=off).  The suite checks
# that the kernel is in that state, then runs the checks for it: with
# protection every protection check, otherwise the same I/O, unprotected.
set -uo pipefail
SUITE=${SUITE:-pmem}
. "$(dirname "$0")/lib.sh"

MNT=/mnt/pmem
STEP=${1:-full}
KIND=${2:?pmem.sh: say what the host booted: pks, nopks or protoff}
protected=0
case "$KIND" in
pks) protected=1 ;;
nopks) SUITE=nopks-$SUITE ;;
protoff) SUITE=protoff-$SUITE ;;
*) echo "pmem.sh: unknown kind $KIND" >&2; exit 2 ;;
esac
[ "$STEP" = full ] || SUITE=$SUITE-$STEP

# Stray writes and reads without a window are blocked and change nothing;
# the same accesses inside a window succeed.
injection() {	# DEVICE LABEL
	local dev=$1 label=$2 phys before after out
	phys=$(inj_phys) || { fail "$label: namespace address not found"; return; }
	before=$(dev_crc "$dev")
	out=$(hook inject "$phys" $INJ_LEN $INJ_N 42 nowindow)
	echo "# $label: $out"
	[[ "$out" == "inject nowindow attempted=$INJ_N blocked=$INJ_N landed=0" ]] &&
		pass "$label: $INJ_N stray writes, $INJ_N blocked" ||
		fail "$label: stray writes blocked ($out)"
	out=$(hook inject "$phys" $INJ_LEN $INJ_N 43 read)
	[[ "$out" == "inject read attempted=$INJ_N blocked=$INJ_N landed=0" ]] &&
		pass "$label: $INJ_N stray reads, $INJ_N blocked" ||
		fail "$label: stray reads blocked ($out)"
	out=$(hook inject "$phys" $INJ_LEN $INJ_N 44 window)
	[[ "$out" == "inject window attempted=$INJ_N blocked=0 landed=$INJ_N" ]] &&
		pass "$label: $INJ_N accesses inside a window succeed" ||
		fail "$label: accesses inside a window ($out)"
	after=$(dev_crc "$dev")
	echo "# $label: checksum before $before, after $after"
	[ "$before" = "$after" ] && pass "$label: data unchanged by the injection" ||
		fail "$label: data changed by the injection"
}

nesting() {	# LABEL
	local out
	out=$(hook nest "$(inj_phys)")
	echo "# $1: $out"
	[[ "$out" == "nest max_depth=2 open_at_2=Y open_at_1=Y closed_at_0=Y" ]] &&
		pass "$1: kmap inside a window nests to depth 2, closes at 0" ||
		fail "$1: nesting ($out)"
	# kmap() is global and may be kunmap()ed by another thread, so it
	# opens no window: reads through it are stray, and the other
	# thread's kunmap() touches neither thread's window.
	out=$(hook kmap "$(inj_phys)")
	echo "# $1: $out"
	[[ "$out" == "kmap depth=0 blocked=Y unmapper_depth=0/0 window_depth=1 window_open=Y closed=Y" ]] &&
		pass "$1: kmap() opens no window; a kunmap() in another thread closes none" ||
		fail "$1: kmap()/kunmap() across threads ($out)"
	# sg_miter maps with kmap() unless SG_MITER_ATOMIC, and its mapping
	# is the iterating thread's alone: it opens a window of its own.
	out=$(hook sgmiter "$(inj_phys)")
	echo "# $1: $out"
	[ "$out" = "sgmiter read=Y depth=1 closed=Y" ] &&
		pass "$1: sg_miter (kmap() mapping) opens a window from next to stop" ||
		fail "$1: sg_miter ($out)"
	# Unbalanced closes WARN: tested by the must-fail suite
	# verdict-unbalanced (tests/guest/provoke.sh), under pksfault.
	out=$(hook hold 50)
	[[ "$out" == "hold ms=50 depth=1" ]] && pass "$1: leak hook holds a window" ||
		fail "$1: leak hook ($out)"
	# make bench's kmap figure comes from this hook; it went missing
	# from the report once, when another command parsed "kmapbench".
	out=$(hook kmapbench 1000)
	[[ "$out" =~ ^kmapbench\ pairs=1000\ ns_per_pair=[0-9]+\.[0-9]{2}\ ns_per_page_address=[0-9]+\.[0-9]{2}\ ratio=[0-9]+\.[0-9]{3}\ static_branch=1$ ]] &&
		pass "$1: kmap bench hook times pairs with a protected pgmap" ||
		fail "$1: kmap bench hook ($out)"
}

fio_verify() {	# FILE SIZE LABEL
	check "$3: fio 4k random write + crc32c verify" \
		fio --name=verify --filename="$1" --size="$2" --rw=randwrite --bs=4k \
		--ioengine=psync --direct=1 --verify=crc32c --do_verify=1 \
		--randrepeat=1 --verify_state_save=0 --output-format=terse
}

mmap_rw() {	# FILE SIZE: write a pattern through mmap, msync, read it back
	python3 - "$1" "$2" <<'PY'
import mmap, os, sys
path, size = sys.argv[1], int(sys.argv[2])
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
if not path.startswith("/dev/"):
    os.ftruncate(fd, size)
m = mmap.mmap(fd, size)
pat = bytes(range(256)) * (size // 256)
m[:] = pat
if not path.startswith("/dev/"):
    m.flush()  # msync; device-dax has no fsync and needs none
m.close()
m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
ok = m[:] == pat
m.close()
os.close(fd)
sys.exit(0 if ok else 1)
PY
}

ext4_battery() {
	local f=$MNT/data
	check "ext4: mkfs.ext4 -b 4096" mkfs.ext4 -q -F -b 4096 /dev/pmem0
	check "ext4: mount -o dax" mount -o dax /dev/pmem0 "$MNT"
	if ! grep -qE "^/dev/pmem0 $MNT ext4 .*dax" /proc/mounts; then
		fail "ext4: mounted with DAX"
		return
	fi
	pass "ext4: mounted with DAX"
	# The data's checksum is taken from the source in DRAM, before the
	# write: the read-back through DAX is compared with it, not with itself.
	local src=/tmp/ext4-src want
	dd if=/dev/urandom of="$src" bs=1M count=8 status=none
	want=$(sha256sum <"$src" | cut -d' ' -f1)
	check "ext4: create and write" dd if="$src" of="$f" bs=1M status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
	check "ext4: read back identical to the source" same_sha256 "$want" "$f"
	check "ext4: mmap write + msync + read" mmap_rw "$MNT/mapped" $((2 << 20))
	check "ext4: truncate" bash -c "truncate -s 3M '$f' && [ \$(stat -c %s '$f') = 3145728 ]"
	check "ext4: fallocate punch-hole" bash -c "fallocate -p -o 1M -l 1M '$f' && \
		cmp -n 1048576 -i 1048576:0 '$f' /dev/zero"
	check "ext4: rename" mv "$f" "$f.renamed"
	check "ext4: unlink" rm "$f.renamed" "$MNT/mapped"
	fio_verify "$MNT/fio.dat" 16M "ext4-dax"
	rm -f "$MNT/fio.dat"
	check "ext4: unmount" umount "$MNT"
	check "ext4: fsck clean" fsck.ext4 -fn /dev/pmem0
}

persist_write() {
	mount -o dax /dev/pmem0 "$MNT" || { fail "persist: mount"; return; }
	dd if=/dev/urandom of=/tmp/persist.bin bs=1M count=4 status=none
	sha256sum </tmp/persist.bin | cut -d' ' -f1 >"$MNT/persist.sha256"
	cp /tmp/persist.bin "$MNT/persist.bin"
	sync
	umount "$MNT"
	mount -o dax /dev/pmem0 "$MNT"
	check "persist: identical after unmount/remount" \
		same_sha256 "$(cat "$MNT/persist.sha256")" "$MNT/persist.bin"
	umount "$MNT"
}

full() {
	case "$KIND" in
	protoff)
		check "protection turned off on the command line, said once" \
			test "$(dmesg | grep -c 'dev_access: protection of device memory turned off')" = 1
		check "no device-memory test hooks (nothing is protected)" test ! -e "$HOOK" ;;
	pks)
		local key
		key=$(sed -n 's/^\([0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated" 2>/dev/null)
		check "device memory has its own key (pks_keys_allocated)" test -n "$key"
		check "kernel reports device memory protected" \
			grep -q "dev_access: device memory protected by PKS key $key" <(dmesg) ;;
	nopks)
		check "kernel says once that device memory is unprotected" \
			test "$(dmesg | grep -c 'dev_access: no protection key')" = 1
		check "no device-memory test hooks (nothing is protected)" test ! -e "$HOOK" ;;
	esac

	check "fsdax --map=dev namespace" ns_mode fsdax dev
	fio_verify /dev/pmem0 32M "fsdax map=dev raw"
	if [ "$protected" = 1 ]; then
		injection /dev/pmem0 "fsdax map=dev"
		nesting "fsdax map=dev"
	fi

	check "devdax namespace" ns_mode devdax
	check "devdax: mmap write + read back" mmap_rw /dev/dax0.0 $((2 << 20))
	[ "$protected" = 1 ] && injection /dev/dax0.0 "devdax"

	check "fsdax --map=mem namespace" ns_mode fsdax mem
	fio_verify /dev/pmem0 32M "fsdax map=mem raw"
	[ "$protected" = 1 ] && injection /dev/pmem0 "fsdax map=mem"
	ext4_battery
	persist_write
}

persist() {
	mount -o dax /dev/pmem0 "$MNT" 2>/dev/null || { fail "persist: mount after restart"; return; }
	check "persist: identical after a VM restart" \
		same_sha256 "$(cat "$MNT/persist.sha256")" "$MNT/persist.bin"
	umount "$MNT"
	check "persist: fsck clean after restart" fsck.ext4 -fn /dev/pmem0
}

mkdir -p "$MNT"
"$STEP"
if [ "$KIND" = nopks ]; then
	check "no PKRS to check: no PKS debugfs" test ! -e "$DBG/pks_cpu_pkrs"
else
	check "every CPU's PKRS and every thread's window are the default after the pmem tests" \
		pkrs_all_default
fi
finish
