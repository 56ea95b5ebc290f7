// SPDX-License-Identifier: GPL-2.0
/*
 * opbench OP PATH N: the guest clock's nanoseconds per operation on DAX,
 * for make bench's protection rows in an icount boot (vm/run.sh --icount),
 * where one nanosecond is one retired instruction.  Only the operations
 * are timed; the setup of each round (mappings, clones) is not.
 *
 *   fsync   PATH: a file on a DAX filesystem.  N times: store a byte into
 *           one page of a shared mapping (a write fault: the last sync
 *           cleaned the page) and fdatasync, which writes the page back
 *           (fsync would also commit the timestamp the store changed, a
 *           journal commit whose waits the guest clock counts as idle
 *           time, not instructions).
 *   fault   PATH: a file on a DAX filesystem.  N write faults on pages
 *           of fresh shared mappings.
 *   cow     PATH: a file on XFS with reflink and DAX.  N write faults on
 *           pages of a shared mapping of a fresh clone (FICLONE) of it:
 *           each copies its page out of device memory before writing.
 *   devdax  PATH: a device-dax character device (2 MiB alignment).  N
 *           faults of fresh shared mappings, one per 2 MiB.
 *
 * Prints "OP ns_per_op=X.XX n=N", or one line on stderr and exit 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096UL
#define SPAN		(4UL << 20)	/* of a file: what each round maps */
#define DEVDAX_ALIGN	(2UL << 20)
#define DEVDAX_SPAN	(64UL << 20)

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "opbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long long op_fsync(int fd, unsigned long n)
{
	unsigned long long ns = 0, t;
	unsigned long i;
	char *m;

	m = mmap(NULL, SPAN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		die("mmap");
	for (i = 0; i < n; i++) {
		t = now_ns();
		m[(i * PAGE) % SPAN] = 0x66;
		if (fdatasync(fd))
			die("fdatasync");
		ns += now_ns() - t;
	}
	munmap(m, SPAN);
	return ns;
}

/* Write faults on @n pages of fresh mappings of @len bytes, @step apart. */
static unsigned long long touch_mappings(int fd, unsigned long n, unsigned long len,
					 unsigned long step, int (*before)(void *),
					 void *arg)
{
	unsigned long long ns = 0, t;
	unsigned long done = 0, i, k;
	/* Each store is a fault we time: the compiler must keep them all. */
	volatile char *m;

	while (done < n) {
		if (before && before(arg))
			die("clone");
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			die("mmap");
		k = len / step < n - done ? len / step : n - done;
		t = now_ns();
		for (i = 0; i < k; i++)
			m[i * step] = 0x63;
		ns += now_ns() - t;
		munmap((void *)m, len);
		done += k;
	}
	return ns;
}

struct clone {
	int src, dst;
};

/* A fresh clone of the source's extents in the destination file. */
static int reclone(void *arg)
{
	struct clone *c = arg;

	if (ftruncate(c->dst, 0))
		return -1;
	return ioctl(c->dst, FICLONE, c->src);
}

int main(int argc, char **argv)
{
	unsigned long long ns;
	unsigned long n;
	const char *op;
	int fd;

	n = argc == 4 ? strtoul(argv[3], NULL, 10) : 0;
	if (!n) {
		fprintf(stderr, "usage: opbench fsync|fault|cow|devdax PATH N\n");
		return 2;
	}
	op = argv[1];
	fd = open(argv[2], O_RDWR);
	if (fd < 0)
		die(argv[2]);
	if (!strcmp(op, "fsync")) {
		ns = op_fsync(fd, n);
	} else if (!strcmp(op, "fault")) {
		ns = touch_mappings(fd, n, SPAN, PAGE, NULL, NULL);
	} else if (!strcmp(op, "cow")) {
		char clone_path[4096];
		struct clone c = { .src = fd };

		snprintf(clone_path, sizeof(clone_path), "%s.clone", argv[2]);
		c.dst = open(clone_path, O_RDWR | O_CREAT, 0600);
		if (c.dst < 0)
			die(clone_path);
		ns = touch_mappings(c.dst, n, SPAN, PAGE, reclone, &c);
		close(c.dst);
		unlink(clone_path);
	} else if (!strcmp(op, "devdax")) {
		ns = touch_mappings(fd, n, DEVDAX_SPAN, DEVDAX_ALIGN, NULL, NULL);
	} else {
		fprintf(stderr, "opbench: unknown operation %s\n", op);
		return 2;
	}
	close(fd);
	printf("%s ns_per_op=%.2f n=%lu\n", op, (double)ns / n, n);
	return 0;
}
