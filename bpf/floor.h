/* SPDX-License-Identifier: GPL-2.0 */
/* The parts of make bench's floor program (bpf/floor.bpf.c, tests/floor). */
#ifndef FLOOR_H
#define FLOOR_H

enum floor_part {
	FLOOR_EMPTY,		/* nothing: the cost of running a program */
	FLOOR_KTIME,		/* bpf_ktime_get_ns(): a window's times */
	FLOOR_PID_TGID,		/* bpf_get_current_pid_tgid(): whose event */
	FLOOR_PREEMPT_COUNT,	/* bpf_this_cpu_ptr(&__preempt_count): which context */
	FLOOR_PERCPU_LOOKUP,	/* a per-CPU array lookup and increment: a counter */
	FLOOR_NR_PARTS
};

#endif /* FLOOR_H */
