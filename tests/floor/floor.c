// SPDX-License-Identifier: GPL-2.0
/*
 * floor: attach bpf/floor.bpf.c's empty programs, print "attached", and
 * hold them until SIGINT or SIGTERM.  For make bench (bench-pkstop.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(void)
{
	struct floor_bpf *skel;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = floor_bpf__open_and_load();
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
