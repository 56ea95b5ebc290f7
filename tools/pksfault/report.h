/* SPDX-License-Identifier: GPL-2.0 */
/* pksfault's end-of-run summary and exit status (pure: unit-tested). */
#ifndef PKSFAULT_REPORT_H
#define PKSFAULT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "view.h"

#define REPORT_MAX_STACKS 64

struct report_stack {
	__u64 ip;
	__u64 stack[PKSFAULT_MAX_STACK];
	int stack_sz;
	uint64_t count;
};

/* What the gate checks, one JUnit test case each (--junit). */
enum report_kind {
	REPORT_FAULT,
	REPORT_LEAK,
	REPORT_UNBALANCED,
	REPORT_KINDS,
};

/* Findings kept for the JUnit file, as their text records (stacks included). */
#define REPORT_MAX_FINDINGS 50

struct report_findings {
	char *text[REPORT_MAX_FINDINGS];
	int n;
	uint64_t dropped;	/* past REPORT_MAX_FINDINGS */
};

struct pksfault_report {
	uint64_t faults;
	uint64_t faults_by_key[PKS_NR_KEYS];
	uint64_t faults_by_outcome[PKS_FAULT_NR_OUTCOMES];
	char owner_by_key[PKS_NR_KEYS][PKS_OWNER_LEN];	/* as the events named them */
	struct report_stack stacks[REPORT_MAX_STACKS];	/* distinct fault stacks */
	int nr_stacks;
	uint64_t stacks_dropped;	/* faults whose stack did not fit the table */
	uint64_t leaks;			/* closed after more than the threshold */
	uint64_t open_leaks;		/* still open at exit, past the threshold */
	uint64_t open_windows;		/* still open at exit, any age */
	uint64_t leaks_reported_open;	/* leaks reported by a sweep before closing */
	uint64_t unbalanced;		/* closes of a window that was not open */
	uint64_t recursion_misses;	/* BPF runs the kernel skipped (prog info) */
	struct pksfault_stats stats;	/* BPF counters, summed over CPUs */
	uint64_t hist[PKSFAULT_HIST_SLOTS];
	bool hist_enabled;
	bool leak_enabled;
	long leak_ms;
	double elapsed_s;
	/* The command under -- CMD: */
	char **cmd;
	bool cmd_ran;
	int cmd_exit;			/* exit status, or -1 */
	int cmd_signal;			/* killing signal, or 0 */
	bool cmd_timed_out;		/* stopped by pksfault after --timeout */
	/* --junit: each finding's text record */
	bool keep_findings;
	struct report_findings findings[REPORT_KINDS];
};

void report_add_fault(struct pksfault_report *r, const struct pksfault_event *e);
void report_add_leak(struct pksfault_report *r, const struct pksfault_event *e);
void report_add_unbalanced(struct pksfault_report *r, const struct pksfault_event *e);
/* A window still open at exit after @held_ns. */
void report_add_open(struct pksfault_report *r, uint64_t held_ns);
/*
 * Keep a finding of @kind for the JUnit file: returns a stream to print
 * its text record to (NULL when findings are not kept, or past the
 * limit: then it is counted as dropped); report_finding_end() files it.
 */
FILE *report_finding_begin(struct pksfault_report *r, enum report_kind kind, char **buf,
			   size_t *len);
void report_finding_end(struct pksfault_report *r, enum report_kind kind, FILE *m, char **buf);
void report_free_findings(struct pksfault_report *r);
/* Faults, counting those whose record was lost. */
uint64_t report_faults(const struct pksfault_report *r);
/* Unbalanced closes, counting those whose record was lost. */
uint64_t report_unbalanced(const struct pksfault_report *r);
/* Events the run did not see: ring buffer full or untracked windows. */
uint64_t report_lost(const struct pksfault_report *r);
/*
 * 0 clean, 1 faults/leaks/unbalanced closes/lost events, 3 clean but the command failed,
 * 4 clean but the command ran past --timeout.
 */
int report_exit_code(const struct pksfault_report *r);
/*
 * The fault stacks as folded lines for flame graphs (flamegraph.pl,
 * speedscope): outermost frame first, frames joined by ';' (function
 * names, no offsets), a space and the count.
 */
void report_print_folded(FILE *f, const struct pksfault_env *env, const struct pksfault_report *r);
/* The summary: text block or one {"type":"summary"} JSON line. */
void report_print(FILE *f, const struct pksfault_env *env, const struct pksfault_report *r);

#endif /* PKSFAULT_REPORT_H */
