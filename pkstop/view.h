/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop's view of one interval: rows, sorting, text and JSON output.
 * Pure functions of a struct pkstop_sample, so the host tests can check
 * them without BPF.
 */
#ifndef PKSTOP_VIEW_H
#define PKSTOP_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* Sort rows in place (stable: ties by TID). */
void pkstop_sort_rows(struct pkstop_row *rows, size_t n, enum pkstop_sort sort);

/* "850ms" "12.3s" "4m05s" "2h03m" "3d04h"; buf of at least 16 bytes. */
const char *pkstop_fmt_duration(double s, char *buf, size_t len);

/*
 * @v in at most @width characters, for a column: "%.*f" when it fits,
 * else without decimals, else in k, M, G... (12345678.9 in 8 columns is
 * "12345679", in 6 "12346k", in 5 "12.3M").  @buf of at least 32 bytes.
 */
const char *pkstop_fmt_fit(double v, int prec, int width, char *buf, size_t len);

/* Rights of the allocated keys other than key 0 (the kernel's), e.g. "1:NA". */
int pkstop_fmt_rights(uint32_t pkrs, uint16_t keymask, char *buf, size_t len);

/*
 * The table's layout for a terminal @width columns wide (0: not a terminal,
 * no limit): the wide one (every column) when its rows fit, else the
 * compact one, under 80 columns with up to two keys besides key 0.
 */
bool pkstop_layout_wide(int width, uint16_t keymask);

/* One table line (no newline) and its header, in either layout. */
int pkstop_fmt_row(const struct pkstop_row *r, uint16_t keymask, double interval_s, bool wide,
		   char *buf, size_t len);
const char *pkstop_table_header(bool wide);

/* Lines pkstop_print_text() prints above the rows, at most (no wrapping). */
#define PKSTOP_TEXT_HEADER_LINES	7

/* The row passes -p and -n. */
bool pkstop_row_visible(const struct pkstop_row *r, const struct pkstop_opts *o);

/* Rows that pass -p and -n and fit -r. */
size_t pkstop_visible_rows(const struct pkstop_sample *s, const struct pkstop_opts *o,
			   size_t *shown);

/* "tid","pid","context","cpu","comm" of a row or thread (JSON members; @comm NUL-terminated). */
void pkstop_json_thread(FILE *f, uint32_t tid, uint32_t pid, enum pkstop_row_context context,
			uint32_t cpu, const char *comm);

/* "opens":N,...,"faults_per_s":X: counts and their rates (JSON members). */
void pkstop_json_counts(FILE *f, const struct pkstop_delta *d, double per_s);

void pkstop_print_text(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o);
void pkstop_print_json(FILE *f, const struct pkstop_sample *s, const struct pkstop_opts *o);

#endif
