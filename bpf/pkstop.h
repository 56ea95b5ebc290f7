/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by bpf/pkstop.bpf.c and pkstop/ (user space).
 *
 * Counting without losing updates: every counter lives in two slots, and
 * the BPF programs add to slot (gen & 1), gen being a global that user
 * space bumps once per interval.  After the bump user space waits for an
 * RCU grace period (so no program still uses the old gen), then reads
 * the old slot, which nothing writes any more.  Slots are cumulative and
 * never reset: user space keeps the last value it read of each slot and
 * takes the difference, so there is no read-then-delete race at all.
 */
#ifndef PKSTOP_H
#define PKSTOP_H

#include "pks_ctx.h"	/* per-CPU row ids: idle tasks, softirqs */

#define PKSTOP_MAX_THREADS	10240
/*
 * Direct-mapped rows: a thread's row is rows[tid % PKSTOP_DIRECT_ROWS]
 * when that slot is free or already its own (the row's tid says whose),
 * else an entry of the thread hash map, which also holds the per-CPU
 * rows.  An array lookup is inlined by the verifier; a hash lookup is a
 * call that hashes the key and, on a kernel with lockdep, checks RCU:
 * about 30 instructions per event against 400 on the test kernel (icount).
 * A power of two.
 */
#define PKSTOP_DIRECT_ROWS	4096
#define PKSTOP_COMM_LEN		16
#define PKSTOP_OWNER_LEN	PKS_OWNER_LEN
#define PKSTOP_NR_KEYS		PKS_NR_KEYS
#define PKSTOP_PKRS_DEFAULT	PKS_PKRS_DEFAULT
/* Fault outcomes counted apart (pks_fault's outcome field); room to grow */
#define PKSTOP_NR_OUTCOMES	8

/* Counters of one slot (one interval in two). */
struct pkstop_counts {
	__u64 opens;		/* outermost opens: dev_access_enable, depth 1 */
	__u64 enables;		/* every dev_access_enable */
	__u64 pkrs_writes;	/* PKRS writes: windows' and updates' (see below) */
	__u64 updates;		/* pks_update_protection events: key owners' own
				 * changes (windows report theirs in their events) */
	__u64 faults;		/* pks_fault */
};

/* Thread flags */
#define PKSTOP_F_OPEN_UNKNOWN	1	/* window found open: opened before we started */
#define PKSTOP_F_SEED_RUNNING	2	/* ... while the thread ran: maybe an open in flight */

/*
 * A row: an element of the direct-mapped array or a value of the thread
 * hash map (key = TID or a per-CPU row id).  A free direct slot is all
 * zero but key, -1; user space frees one by resetting it so, tid last.
 */
struct pkstop_thread {
	__u32 pid;		/* tgid */
	__u32 flags;
	char comm[PKSTOP_COMM_LEN];
	__u32 depth;		/* last depth seen in thread context */
	__u32 nested;		/* windows of exception handlers inside ours */
	__u64 open_since;	/* ktime ns the outermost window opened; 0 closed */
	__u64 open_ns;		/* cumulative time of closed windows */
	__s32 key;		/* its windows' key (the device key); -1 before one */
	__u32 tid;		/* direct rows: whose row (0: free); hash rows: 0 */
	__u64 max_gen[2];	/* max_depth[i] belongs to interval max_gen[i] */
	__u32 max_depth[2];
	struct pkstop_counts c[2];
	__u64 seed_switches;	/* OPEN_UNKNOWN: nvcsw + nivcsw when found open */
};

/* Per-CPU system totals. */
struct pkstop_totals {
	struct pkstop_counts c[2];
	__u64 irq_events[2];	/* events in hardirq/NMI context (not a thread's) */
	/* pks_fault by key and outcome, any context */
	__u64 faults_by[2][PKSTOP_NR_KEYS][PKSTOP_NR_OUTCOMES];
	/* Outermost window opens (any context but hardirq) by the window's key */
	__u64 opens_by[2][PKSTOP_NR_KEYS];
	/* PKRS writes, by the key opened, closed or updated */
	__u64 pkrs_writes_by[2][PKSTOP_NR_KEYS];
	__u64 map_full;		/* failed inserts into the thread map */
	__u64 key_events;	/* pks_key_alloc/free seen */
};

/* One key's state as the alloc/free tracepoints last saw it. */
struct pkstop_key {
	__u64 seq;		/* event counter: 0 = never seen */
	__u32 allocated;
	__u32 pad;
	char owner[PKSTOP_OWNER_LEN];
};

/* One record of the task iterator. */
struct pkstop_task {
	__u32 tid;
	__u32 pid;
	__u32 depth;		/* task->dev_page_access_ref */
	__u32 pkrs;		/* task->thread.saved_pkrs */
	__u32 state;		/* task->__state */
	__u32 mark;		/* 0 from BPF; user space marks records it used */
	char comm[PKSTOP_COMM_LEN];
};

#endif
