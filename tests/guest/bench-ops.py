#!/usr/bin/env python3
"""PKRS writes and device-memory window time per file operation on DAX.

    bench-ops.py FILE [N]

FILE is on a DAX filesystem, at least 4 MiB, already written.  For each
operation (read, write, fsync, fault, cow), this process does it N times
with the msr and pks tracepoints recording, then counts in the trace, for
this process only:
  - WRMSR to PKRS (MSR 0x6e1), per operation;
  - the time the key was open, from each outermost dev_access_enable
    (depth=1) to its dev_access_disable (depth=0), per operation;
  - the operation's own time, to put the window's in proportion.
Prints "BENCH ops_OP_pkrs=WRITES", "BENCH ops_OP_window_us=US" and
"BENCH ops_OP_op_us=US" for each operation.  Times are QEMU TCG times with tracing on: compare them with
each other, never with hardware.
"""
import mmap
import os
import re
import sys
import time

TR = "/sys/kernel/tracing"
PAGE = 4096
SPAN = 4 << 20          # the part of FILE the operations touch


def tr_write(path, value):
    with open(os.path.join(TR, path), "w") as f:
        f.write(value)


def trace_on():
    tr_write("tracing_on", "0")
    tr_write("trace", "")
    tr_write("events/msr/write_msr/filter", "msr == 0x6e1")
    tr_write("events/msr/write_msr/enable", "1")
    tr_write("events/pks/dev_access_enable/enable", "1")
    tr_write("events/pks/dev_access_disable/enable", "1")
    tr_write("tracing_on", "1")


def trace_off():
    tr_write("tracing_on", "0")
    for ev in ("msr/write_msr", "pks/dev_access_enable", "pks/dev_access_disable"):
        tr_write("events/%s/enable" % ev, "0")
    with open(os.path.join(TR, "trace")) as f:
        return f.read().splitlines()


LINE = re.compile(r"^\s*\S.*?-(\d+)\s+\[\d+\].*?\s(\d+\.\d+): (\S+): (.*)$")


def account(lines, pid):
    """PKRS writes and seconds with the key open, for pid's events."""
    writes = 0
    open_s = 0.0
    opened = None
    for line in lines:
        m = LINE.match(line)
        if not m or int(m.group(1)) != pid:
            continue
        ts, event, rest = float(m.group(2)), m.group(3), m.group(4)
        if event == "write_msr":
            writes += 1
        elif event == "dev_access_enable" and " depth=1 " in rest:
            opened = ts
        elif event == "dev_access_disable" and " depth=0 " in rest and opened is not None:
            open_s += ts - opened
            opened = None
    return writes, open_s


def op_read(fd, m, n):
    for i in range(n):
        os.pread(fd, PAGE, (i * PAGE) % SPAN)


def op_write(fd, m, n):
    buf = b"w" * PAGE
    for i in range(n):
        os.pwrite(fd, buf, (i * PAGE) % SPAN)


def op_fsync(fd, m, n):
    # Dirty one page of a shared mapping (a write fault on a mapped
    # block), then fsync: dax_writeback_one() flushes it.
    for i in range(n):
        m[(i * PAGE) % SPAN] = 0x66
        os.fsync(fd)


def op_fault(fd, m, n):
    # Read faults on pages not mapped yet: a fresh mapping per round.
    done = 0
    while done < n:
        mm = mmap.mmap(fd, SPAN, mmap.MAP_SHARED, mmap.PROT_READ)
        for i in range(min(n - done, SPAN // PAGE)):
            mm[i * PAGE]
        done += min(n - done, SPAN // PAGE)
        mm.close()


def op_cow(fd, m, n):
    # Write faults on a private mapping of the file: each copies its page
    # out of device memory (copy_cow_page_dax()).
    done = 0
    while done < n:
        mm = mmap.mmap(fd, SPAN, mmap.MAP_PRIVATE)
        for i in range(min(n - done, SPAN // PAGE)):
            mm[i * PAGE] = 0x63
        done += min(n - done, SPAN // PAGE)
        mm.close()


OPS = (("read", op_read), ("write", op_write), ("fsync", op_fsync),
       ("fault", op_fault), ("cow", op_cow))


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    fd = os.open(path, os.O_RDWR)
    if os.fstat(fd).st_size < SPAN:
        sys.exit("bench-ops: %s is smaller than %d bytes" % (path, SPAN))
    m = mmap.mmap(fd, SPAN, mmap.MAP_SHARED)
    for name, fn in OPS:
        fn(fd, m, 8)            # warm: QEMU translates the paths once
        trace_on()
        t0 = time.monotonic()
        fn(fd, m, n)
        op_s = time.monotonic() - t0
        writes, open_s = account(trace_off(), os.getpid())
        print("BENCH ops_%s_pkrs=%.2f (pkrs_writes=%d ops=%d)" % (name, writes / n, writes, n))
        print("BENCH ops_%s_window_us=%.1f" % (name, open_s * 1e6 / n))
        print("BENCH ops_%s_op_us=%.1f" % (name, op_s * 1e6 / n))
    m.close()
    os.close(fd)


if __name__ == "__main__":
    main()
