/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop's model: what one interval is (rows, totals, keys) and the
 * arithmetic of its counts.  account.c turns BPF state into it, rollup.c
 * adds rows up by key and process, view.c prints it; none of them calls
 * back into another.
 */
#ifndef PKSTOP_MODEL_H
#define PKSTOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "opts.h"
#include "pks_common.h"

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

#endif
