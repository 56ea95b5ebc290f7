/* SPDX-License-Identifier: GPL-2.0 */
/* Records shared by bpf/pksfault.bpf.c and tools/pksfault/pksfault.c. */
#ifndef PKSFAULT_H
#define PKSFAULT_H

#include "pks_ctx.h"	/* enum pks_ctx: which nesting counter an event belongs to */

#define PKSFAULT_TASK_COMM_LEN	16
#define PKSFAULT_OWNER_LEN	PKS_OWNER_LEN
#define PKSFAULT_MAX_STACK	32
/*
 * Frames kept for a window's opener (--open-stacks) or holder: the
 * unwinder walks only as deep as the buffer, and with --open-stacks
 * windows open on every pmem I/O, so keep it short.
 */
#define PKSFAULT_WINDOW_STACK	16
#define PKSFAULT_HIST_SLOTS	32
#define PKSFAULT_MAX_WINDOWS	16384
/*
 * Direct-mapped windows: a thread's task-context window record is
 * direct[tid % PKSFAULT_DIRECT_WINDOWS] when that slot is free or already
 * its own (the record's tid says whose, 0: free), else an entry of the
 * windows hash map, which also keeps softirq and idle-task windows.  An
 * array lookup is inlined by the verifier; a hash lookup is a call that
 * hashes the key and, on a kernel with lockdep, checks RCU: about 30
 * instructions per event against 400 on the test kernel (icount).  A
 * power of two.
 */
#define PKSFAULT_DIRECT_WINDOWS	4096

enum pksfault_event_type {
	PKSFAULT_EV_FAULT = 1,
	PKSFAULT_EV_LEAK = 2,	/* a window held longer than --leak MS, now closed */
	PKSFAULT_EV_UNBALANCED = 3,	/* dev_access_disable() with no window open */
};


/* Counters, one per CPU (summed in user space). */
enum pksfault_stat {
	PKSFAULT_STAT_FAULTS,		/* pks_fault events matching the filters */
	PKSFAULT_STAT_LOST,		/* ring buffer full: event dropped */
	PKSFAULT_STAT_WIN_OPENED,	/* outermost windows opened */
	PKSFAULT_STAT_WIN_CLOSED,	/* ... and closed (matched with their open) */
	PKSFAULT_STAT_WIN_UNTRACKED,	/* window map full: a window not followed */
	PKSFAULT_STAT_WIN_UNMATCHED,	/* close with no open seen (opened before attach) */
	PKSFAULT_STAT_IRQ_EVENTS,	/* dev_access events in hardirq/NMI, ignored */
	PKSFAULT_STAT_LEAKS,		/* windows closed after more than --leak MS */
	PKSFAULT_STAT_WIN_SEEDED,	/* found open at attach by the task iterator */
	PKSFAULT_STAT_UNBALANCED,	/* closes of a window that was not open */
	PKSFAULT_STAT_SEED_RACED,	/* seeds that were an open in flight (see below) */
	PKSFAULT_STAT_NR,
};

struct pksfault_stats {
	__u64 v[PKSFAULT_STAT_NR];
};

/*
 * Found open when pksfault attached: start_ns is the attach time, caller
 * and stack are unknown, key is -1 until the window is seen closing.
 */
#define PKSFAULT_WIN_SEEDED	1
/*
 * Whose stack a leak carries.  Unwinding at every open costs more than
 * the rest of a window's tracing, so the opener's stack is taken only
 * with --open-stacks; otherwise a leak found open carries its holder's
 * stack at that moment (user space, task iterator), and one found at its
 * close the closer's.  Neither flag: the opener's.
 */
#define PKSFAULT_WIN_STACK_HOLDER	2
#define PKSFAULT_WIN_STACK_CLOSER	4
/*
 * A seed of a thread that was running when the iterator saw its depth:
 * it may be an open in flight.  The kernel raises the depth, then (IRQs
 * off, so without a context switch) fires dev_access_enable.  A depth-1
 * open of that thread with no context switch since the seed
 * (seed_switches) is that open, not an exception handler's window inside
 * it: the seed becomes the open.
 */
#define PKSFAULT_WIN_SEED_RUNNING	8

/*
 * A thread's outermost window, keyed by thread (CPU for idle) and
 * context: open while start_ns is not 0.  The entry stays, closed,
 * between the thread's windows, and goes when the thread exits.
 * start_ns is written last at an open, so a reader that sees it set
 * sees the rest of that window; a close clears it once done with it.
 */
struct pksfault_window {
	__u64 start_ns;
	__u64 caller;		/* who called the outermost dev_access_enable */
	__u32 pid;
	__u32 tid;		/* direct records: whose slot it is, 0 when free */
	__s32 key;
	__s32 stack_sz;		/* bytes in stack[], or -errno */
	__u32 inner;		/* exception handlers' windows opened inside this one */
	__u32 flags;		/* PKSFAULT_WIN_* */
	char comm[PKSFAULT_TASK_COMM_LEN];
	__u64 seed_switches;	/* seeds: the thread's nvcsw + nivcsw then */
	__u64 stack[PKSFAULT_MAX_STACK];
};

struct pksfault_event {
	__u32 type;
	__u32 cpu;
	__u64 ts_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 pid;
	__u32 tid;
	char comm[PKSFAULT_TASK_COMM_LEN];
	__s32 key;
	__s32 stack_sz;		/* bytes in stack[], or -errno */
	/* PKSFAULT_EV_FAULT */
	__u64 address;
	__u64 phys;		/* address - page_offset_base (direct map) */
	__u64 ip;
	__u32 pkrs;
	__u32 depth;
	__s32 mode;
	__s32 outcome;
	__u8 write;
	__u8 ctx;		/* enum pks_ctx of the faulting context */
	__u8 pad[6];
	char owner[PKSFAULT_OWNER_LEN];
	/* PKSFAULT_EV_LEAK */
	__u64 open_ns;
	__u64 duration_ns;
	__u64 open_caller;
	__u64 close_caller;	/* leak: who closed it; unbalanced: who closed none */
	__u32 win_flags;	/* leak: the window's PKSFAULT_WIN_* */
	__u32 pad2;
	/* fault: at the fault; leak: see PKSFAULT_WIN_STACK_* */
	__u64 stack[PKSFAULT_MAX_STACK];
};

#endif /* PKSFAULT_H */
