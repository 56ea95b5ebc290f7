/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop's model: what one interval is (rows, totals, keys), how the BPF
 * side's cumulative counters become it (deltas per slot, open time, depth,
 * held time), and the arithmetic of its counts.  Pure: the host tests feed
 * it made-up map values.  rollup.c adds rows up by key and process,
 * view.c prints; neither calls back into the model.
 */
#ifndef PKSTOP_MODEL_H
#define PKSTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/types.h>

#include "opts.h"
#include "pks_common.h"
#include "pkstop.h"	/* the BPF side's records */

/* Per-interval counts (deltas), for a thread or the system. */
struct pkstop_delta {
	uint64_t opens;		/* outermost window opens */
	uint64_t enables;	/* dev_access_enable calls, any depth */
	uint64_t pkrs_writes;	/* PKRS MSR writes by windows and updates */
	uint64_t updates;	/* pks_update_protection calls (not windows) */
	uint64_t faults;	/* PKS faults */
};

/* Whose row: a thread, or one CPU's idle task or softirqs. */
enum pkstop_row_context {
	PKS_ROW_TASK = 0,
	PKS_ROW_IDLE_TASK,
	PKS_ROW_SOFTIRQS,
};

const char *pkstop_row_context_name(enum pkstop_row_context c);

struct pkstop_row {
	enum pkstop_row_context context;
	uint32_t cpu;		/* per-CPU rows */
	uint32_t tid;
	uint32_t pid;
	char comm[16];
	bool have_state;	/* depth and pkrs come from the task iterator */
	bool exited;		/* gone; these are its last counts */
	uint32_t pkrs;
	uint32_t depth;		/* now */
	uint32_t max_depth;	/* in the interval */
	int key;		/* its windows' key; -1 before one was seen */
	struct pkstop_delta d;
	double open_pct;	/* of the interval with its window open */
	double held_s;		/* window open for this long; < 0: closed */
	bool held_lower_bound;	/* open before pkstop started: at least held_s */
};

struct pkstop_sample {
	struct timespec wall;	/* end of the interval */
	double interval_s;	/* measured length */
	bool partial;		/* cut short by a signal or q: the run's last */
	bool pks_present;	/* CPU has PKS */
	bool pks_enabled;	/* the kernel uses it (keys allocated) */
	enum pks_keys_source keys_source;
	char owners[PKS_NR_KEYS][PKS_OWNER_LEN];
	uint16_t keymask;
	struct pkstop_delta totals;
	/* totals.faults by key and outcome (enum pks_fault_outcome) */
	uint64_t faults_by[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES];
	/* totals.opens and totals.pkrs_writes by key */
	uint64_t opens_by[PKS_NR_KEYS];
	uint64_t pkrs_writes_by[PKS_NR_KEYS];
	uint64_t irq_events;	/* in hardirq/NMI context: no thread's */
	uint64_t key_events;	/* pks_key_alloc/free since start */
	uint64_t map_full;	/* failed thread-map inserts since start */
	uint64_t missed;	/* BPF program runs the kernel skipped (recursion) */
	uint64_t threads_tracked;
	double self_cpu_ms;	/* CPU time pkstop used since the last sample */
	struct pkstop_row *rows;
	size_t nrows;
};

bool pkstop_delta_any(const struct pkstop_delta *d);
/* Add fault counts by key and outcome (struct pkstop_sample's faults_by). */
void pkstop_faults_add(uint64_t sum[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES],
		       const uint64_t add[PKS_NR_KEYS][PKS_FAULT_NR_OUTCOMES]);
void pkstop_delta_add(struct pkstop_delta *sum, const struct pkstop_delta *d);

/* The row passes -p and -n. */
bool pkstop_row_visible(const struct pkstop_row *r, const struct pkstop_opts *o);

/* From BPF state to rows.  What user space remembers of one TID between intervals. */
struct pkstop_tstate {
	uint32_t tid;
	struct pkstop_counts prev[2];	/* last value read of each slot */
	uint64_t prev_open_ns;		/* cumulative open time at the last sample */
	bool seen;			/* prev_open_ns is valid */
	uint32_t prev_depth;		/* depth at the last sample (iterator) */
	unsigned int absent;		/* samples in a row the iterator missed it */
};

/* Cumulative window-open time of @t at monotonic time @now. */
uint64_t pkstop_open_ns(const struct pkstop_thread *t, uint64_t now);

/* Differences of two counter sets, as a delta. */
void pkstop_counts_delta(const struct pkstop_counts *cur, const struct pkstop_counts *prev,
			 struct pkstop_delta *d);

/*
 * Fill @row from map value @t read after interval @old_gen closed at
 * monotonic @now (interval @interval_ns long) and the iterator record
 * @task (NULL when the iterator did not see the thread: it exited).
 * Updates @st for the next interval.
 */
void pkstop_account(struct pkstop_tstate *st, const struct pkstop_thread *t,
		    const struct pkstop_task *task, uint64_t old_gen, uint64_t now,
		    uint64_t interval_ns, struct pkstop_row *row);

/*
 * Map id @id is a per-CPU row (bpf/pks_ctx.h): name it "idle/N" or
 * "softirq/N", TID and PID 0.  Thread rows are left alone.
 */
void pkstop_name_cpu_row(uint32_t id, struct pkstop_row *row);

/* A row for a thread with state but no events ever (iterator only). */
void pkstop_row_from_task(const struct pkstop_task *task, struct pkstop_row *row);

/* The row is worth showing: activity in the interval, or state. */
bool pkstop_row_interesting(const struct pkstop_row *row);

#endif
