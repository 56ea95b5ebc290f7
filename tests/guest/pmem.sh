#!/bin/bash
# Stray-write protection of persistent memory, on the emulated NVDIMM.
#   pmem.sh full     fsdax (--map=dev, --map=mem), devdax and ext4-dax
#                    tests; leaves ext4 with a file for the next boot
#   pmem.sh persist  after a VM restart: that file reads back identical
# With PKS every protection check runs; without PKS (SUITE=nopks-pmem)
# the same I/O must work, unprotected.
set -uo pipefail
SUITE=${SUITE:-pmem}
. "$(dirname "$0")/lib.sh"

MNT=/mnt/pmem
protected=0
[ -e "$HOOK" ] && protected=1
# Name the lines after what ran: protected or not, first boot or restart.
if grep -qw 'dev_access_protection=off' /proc/cmdline; then
	SUITE=protoff-$SUITE
elif [ "$protected" = 0 ]; then
	SUITE=nopks-$SUITE
fi
[ "${1:-full}" = full ] || SUITE=$SUITE-$1

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
		pass "$1: kmap inside dax_read_lock nests to depth 2, closes at 0" ||
		fail "$1: nesting ($out)"
	out=$(hook unbalanced)
	[[ "$out" == "unbalanced depth=0 closed=Y" ]] &&
		[ "$(dmesg | grep -c 'dev_access: .* closed a window that was not open')" = 1 ] &&
		pass "$1: unbalanced disable reported once, no underflow, key stays closed" ||
		fail "$1: unbalanced disable ($out)"
	out=$(hook hold 50)
	[[ "$out" == "hold ms=50 depth=1" ]] && pass "$1: leak hook holds a window" ||
		fail "$1: leak hook ($out)"
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
	check "ext4: create and write" dd if=/dev/urandom of="$f" bs=1M count=8 status=none
	check "ext4: read back identical" cmp "$f" <(cat "$f")
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
	dd if=/dev/urandom of="$MNT/persist.bin" bs=1M count=4 status=none
	sha256sum "$MNT/persist.bin" | cut -d' ' -f1 >"$MNT/persist.sha256"
	sync
	umount "$MNT"
	mount -o dax /dev/pmem0 "$MNT"
	check "persist: identical after unmount/remount" \
		test "$(sha256sum <"$MNT/persist.bin" | cut -d' ' -f1)" = "$(cat "$MNT/persist.sha256")"
	umount "$MNT"
}

full() {
	if grep -qw 'dev_access_protection=off' /proc/cmdline; then
		check "protection turned off on the command line, said once" \
			test "$(dmesg | grep -c 'dev_access: protection of device memory turned off')" = 1
	elif [ "$protected" = 1 ]; then
		local key
		key=$(sed -n 's/^\([0-9]*\): Device Memory$/\1/p' "$DBG/pks_keys_allocated")
		check "device memory has its own key (pks_keys_allocated)" test -n "$key"
		check "kernel reports device memory protected" \
			grep -q "dev_access: device memory protected by PKS key $key" <(dmesg)
	else
		check "kernel says once that device memory is unprotected" \
			test "$(dmesg | grep -c 'dev_access: no protection key')" = 1
	fi

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
		test "$(sha256sum <"$MNT/persist.bin" | cut -d' ' -f1)" = "$(cat "$MNT/persist.sha256")"
	umount "$MNT"
	check "persist: fsck clean after restart" fsck.ext4 -fn /dev/pmem0
}

mkdir -p "$MNT"
"${1:-full}"
check "every CPU's PKRS is the default after the pmem tests" bash -c \
	"[ ! -e $DBG/pks_cpu_pkrs ] || { . $(dirname "$0")/lib.sh; pkrs_all_default; }"
finish
