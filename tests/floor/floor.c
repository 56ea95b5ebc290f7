// SPDX-License-Identifier: GPL-2.0
/*
 * floor [PART]: attach bpf/floor.bpf.c's programs, empty or doing PART
 * (one of the names below), print "attached", and hold them until SIGINT
 * or SIGTERM.  For make bench (bench-pkstop.sh, bench-icount.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "floor.h"
#include "floor.skel.h"

static const char *const part_names[FLOOR_NR_PARTS] = {
	[FLOOR_EMPTY] = "empty",
	[FLOOR_KTIME] = "ktime",
	[FLOOR_PID_TGID] = "pid_tgid",
	[FLOOR_PREEMPT_COUNT] = "preempt_count",
	[FLOOR_PERCPU_LOOKUP] = "percpu_lookup",
};

static int part_of(const char *name)
{
	int i;

	for (i = 0; i < FLOOR_NR_PARTS; i++) {
		if (!strcmp(name, part_names[i]))
			return i;
	}
	return -1;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	int part = argc > 1 ? part_of(argv[1]) : FLOOR_EMPTY;
	struct floor_bpf *skel;

	if (argc > 2 || part < 0) {
		fprintf(stderr, "usage: floor [empty|ktime|pid_tgid|preempt_count|percpu_lookup]\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = floor_bpf__open();
	if (skel) {
		skel->rodata->part = part;
		if (floor_bpf__load(skel)) {
			floor_bpf__destroy(skel);
			skel = NULL;
		}
	}
	if (!skel) {
		fprintf(stderr, "floor: cannot load the BPF programs\n");
		return 1;
	}
	if (floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot attach to the window events\n");
		floor_bpf__destroy(skel);
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
