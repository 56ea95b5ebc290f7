#!/usr/bin/env python3
"""Real-path workloads onto DAX files and device-dax, each checking its data.

Usage: workloads.py WORKLOAD PATH [SIZE_MIB]

Each workload drives one kernel path that touches protected device memory
and exits 0 only when the data it reads back is what it wrote, as computed
in DRAM.  tests/guest/workloads.sh runs each under the pksfault gate.
"""
import ctypes
import hashlib
import mmap
import os
import subprocess
import sys

MIB = 1 << 20


def digest(data):
    return hashlib.sha256(data).hexdigest()


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def expect(what, got, want):
    if digest(got) != digest(want):
        sys.exit(f"{what}: data differs (sha256 {digest(got)[:16]}, want {digest(want)[:16]})")


def fresh(path, data):
    with open(path, "wb") as f:
        f.write(data)
        os.fsync(f.fileno())


def mmap_sync(path, size):
    """Dirty a shared mapping, msync and fsync it (dax_writeback_one)."""
    pat = os.urandom(size)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    os.ftruncate(fd, size)
    with mmap.mmap(fd, size, mmap.MAP_SHARED) as m:
        m[:] = pat
        m.flush()
        m[:4096] = pat[:4096][::-1]
        os.fsync(fd)
    os.close(fd)
    expect("msync+fsync", read_file(path), pat[:4096][::-1] + pat[4096:])


def private_cow(path, size):
    """Write faults on a MAP_PRIVATE mapping copy the DAX page to DRAM."""
    pat = os.urandom(size)
    fresh(path, pat)
    fd = os.open(path, os.O_RDWR)
    with mmap.mmap(fd, size, mmap.MAP_PRIVATE) as m:
        mine = os.urandom(size // 2)
        m[: size // 2] = mine
        expect("private copy", m[:], mine + pat[size // 2:])
    os.close(fd)
    expect("file under a private mapping", read_file(path), pat)


def holes(path, size):
    """Punch a hole, zero a range, truncate down and up (dax zeroing)."""
    pat = bytearray(os.urandom(size))
    fresh(path, pat)
    fd = os.open(path, os.O_RDWR)
    # Unaligned edges make the filesystem zero partial blocks in place.
    for mode, off, length in (("punch", 4096 + 100, 3 * 4096), ("zero", MIB + 7, 2 * 4096 + 11)):
        args = ["fallocate", "-o", str(off), "-l", str(length)]
        args += ["-p"] if mode == "punch" else ["-z"]
        subprocess.run(args + [path], check=True)
        pat[off:off + length] = bytes(length)
    cut = size // 2 + 123
    os.ftruncate(fd, cut)
    os.ftruncate(fd, size)
    pat[cut:] = bytes(size - cut)
    os.close(fd)
    expect("punch/zero/truncate", read_file(path), bytes(pat))


def direct(path, size):
    """O_DIRECT writes and reads: the DAX iomap path with user buffers."""
    pat = os.urandom(size)
    buf = mmap.mmap(-1, size)
    buf[:] = pat
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o600)
    os.writev(fd, [buf])
    back = mmap.mmap(-1, size)
    os.preadv(fd, [back], 0)
    os.close(fd)
    expect("O_DIRECT read", back[:], pat)
    expect("O_DIRECT file", read_file(path), pat)


def sendfile(path, size):
    """sendfile and splice between DAX files (page-cache-less pipes)."""
    pat = os.urandom(size)
    fresh(path, pat)
    src = os.open(path, os.O_RDONLY)
    dst_path = path + ".sent"
    dst = os.open(dst_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    off = 0
    while off < size:
        off += os.sendfile(dst, src, off, size - off)
    os.close(dst)
    r, w = os.pipe()
    spliced = bytearray()
    os.lseek(src, 0, os.SEEK_SET)
    while len(spliced) < size:
        n = os.splice(src, w, min(65536, size - len(spliced)))
        if n == 0:
            break
        spliced += os.read(r, n)
    os.close(src)
    expect("sendfile copy", read_file(dst_path), pat)
    expect("splice read", bytes(spliced), pat)


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def peer_reads(path, size):
    """/proc/PID/mem and process_vm_readv on another process's DAX mapping."""
    devdax = path.startswith("/dev/dax")
    if not devdax:
        fresh(path, os.urandom(size))
    r, w = os.pipe()
    hold_r, hold_w = os.pipe()   # the child keeps its mapping until EOF here
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.close(hold_w)
        fd = os.open(path, os.O_RDWR)
        m = mmap.mmap(fd, size, mmap.MAP_SHARED)
        m[:] = os.urandom(size)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        os.write(w, f"{addr:x} {digest(m[:])}\n".encode())
        os.read(hold_r, 1)
        os._exit(0)
    os.close(w)
    os.close(hold_r)
    addr_hex, want = os.read(r, 200).decode().split()
    addr = int(addr_hex, 16)
    with open(f"/proc/{pid}/mem", "rb") as mem:
        mem.seek(addr)
        via_mem = mem.read(size)
    libc = ctypes.CDLL(None, use_errno=True)
    back = ctypes.create_string_buffer(size)
    local, remote = IoVec(ctypes.addressof(back), size), IoVec(addr, size)
    n = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    os.close(hold_w)
    os.waitpid(pid, 0)
    if n != size:
        sys.exit(f"process_vm_readv: {n} bytes, errno {ctypes.get_errno()}")
    if digest(via_mem) != want or digest(back.raw) != want:
        sys.exit("/proc/PID/mem or process_vm_readv read other data than the mapping holds")


def reflink_cow(path, size):
    """XFS reflink: write(2) and write faults on a shared extent copy it."""
    pat = os.urandom(size)
    fresh(path, pat)
    clone = path + ".clone"
    subprocess.run(["cp", "--reflink=always", path, clone], check=True)
    fd = os.open(clone, os.O_RDWR)
    with mmap.mmap(fd, size, mmap.MAP_SHARED) as m:
        m[100:200] = b"\xa5" * 100          # fault: dax_iomap_cow_copy
        m.flush()
    subprocess.run(["cp", "--reflink=always", path, clone + "2"], check=True)
    fd2 = os.open(clone + "2", os.O_RDWR)
    os.pwrite(fd2, b"\x5a" * 300, 2 * 4096 + 50)  # write(2): unaligned CoW
    os.fsync(fd2)
    os.close(fd2)
    os.close(fd)
    want = bytearray(pat)
    want[100:200] = b"\xa5" * 100
    expect("reflinked clone after a write fault", read_file(clone), bytes(want))
    want = bytearray(pat)
    want[2 * 4096 + 50:2 * 4096 + 350] = b"\x5a" * 300
    expect("reflinked clone after write(2)", read_file(clone + "2"), bytes(want))
    expect("reflink source", read_file(path), pat)


def bounce(path, size, disk="/dev/vda"):
    """O_DIRECT to and from a disk whose DMA swiotlb bounces, with the user
    buffer on DAX pages: swiotlb copies from and to the device pages."""
    pat = os.urandom(size)
    fresh(path, pat)
    fd = os.open(path, os.O_RDWR)
    dev = os.open(disk, os.O_RDWR | os.O_DIRECT)
    with mmap.mmap(fd, size, mmap.MAP_SHARED) as m:
        if os.pwritev(dev, [m], 0) != size:          # bounce: DAX -> swiotlb
            sys.exit("short O_DIRECT write")
        m[:] = bytes(size)
        if os.preadv(dev, [m], 0) != size:           # bounce: swiotlb -> DAX
            sys.exit("short O_DIRECT read")
        expect("DAX buffer after an O_DIRECT read", m[:], pat)
    os.close(fd)
    disk_copy = mmap.mmap(-1, size)
    os.preadv(dev, [disk_copy], 0)
    os.close(dev)
    expect("disk after an O_DIRECT write from a DAX buffer", disk_copy[:], pat)


WORKLOADS = {f.__name__.replace("_", "-"): f for f in
             (mmap_sync, private_cow, holes, direct, sendfile, peer_reads, reflink_cow,
              bounce)}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in WORKLOADS:
        sys.exit(f"usage: workloads.py {{{'|'.join(WORKLOADS)}}} PATH [SIZE_MIB]")
    WORKLOADS[sys.argv[1]](sys.argv[2], int(sys.argv[3] if len(sys.argv) > 3 else 8) * MIB)
