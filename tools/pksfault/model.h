/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pksfault's view of the open windows (BPF map "windows"): seeded at
 * attach with the windows already open, swept on every poll so that a
 * leak is reported as soon as it crosses the threshold, listed at exit.
 */
#ifndef PKSFAULT_MODEL_H
#define PKSFAULT_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "view.h"
#include "report.h"

/* Leaks reported while open that have not closed yet; more are rare. */
#define WINDOWS_REPORTED_MAX 256

/* How often a sweep looks for leaks: a fifth of the threshold, within these. */
#define WINDOWS_SWEEP_MIN_NS	20000000ULL
#define WINDOWS_SWEEP_MAX_NS	1000000000ULL

struct pksfault_windows {
	int map_fd;			/* the BPF "windows" hash map (start_ns 0: closed) */
	/* the BPF "direct" array, mapped (PKSFAULT_DIRECT_WINDOWS), or NULL */
	const struct pksfault_window *direct;
	struct pks_map_dump snap;	/* both's records at the last look */
	size_t nr_open;			/* the open ones, first in snap */
	uint64_t next_sweep_ns;
	uint64_t leak_ns;		/* 0: leaks are not reported */
	int holder_iter_fd;		/* pksfault_holder_stack's link, or -1 */
	const struct pksfault_env *text_env;	/* findings' text records (--junit), or NULL */
	__u32 *holder_tid;		/* its global: the thread to unwind */
	int nr_reported;
	struct {
		__u32 tid;
		__u64 start_ns;
	} reported[WINDOWS_REPORTED_MAX];
};

/*
 * Run the seeding task iterator (pksfault_seed_windows) once: threads
 * with a window open now get one in the map.  0 or -errno.
 */
int windows_seed(int iter_link_fd);
/* A sweep's period for threshold @leak_ns (see WINDOWS_SWEEP_*). */
uint64_t windows_sweep_period_ns(uint64_t leak_ns);
/*
 * Every period: report every window held longer than the threshold that
 * was not reported yet (once each, "leak" records), and count them in
 * @r.  0, or -errno when the map cannot be read (then no verdict).
 */
int windows_sweep(struct pksfault_windows *w, const struct pksfault_env *env,
		  struct pksfault_report *r, FILE *f, uint64_t now_ns);
/*
 * A leak closed: true if a sweep reported it while open (then forgotten);
 * its close is then that leak's end, not a second leak.
 */
bool windows_closed(struct pksfault_windows *w, __u32 tid, __u64 start_ns);
/* At exit: every window still open, counted in @r, listed if @print. 0 or -errno. */
int windows_list_open(struct pksfault_windows *w, const struct pksfault_env *env,
		      struct pksfault_report *r, FILE *f, uint64_t now_ns, bool print);

/*
 * The parts without syscalls, for tests: read the map into w->snap, keep
 * its open windows (windows_collect_open() on a filled snap), then sweep
 * or list them.
 */
int windows_snapshot(struct pksfault_windows *w);
/* Add the direct array's open windows to w->snap.  0 or -ENOMEM. */
int windows_append_direct(struct pksfault_windows *w);
int windows_collect_open(struct pksfault_windows *w);
void windows_sweep_open(struct pksfault_windows *w, const struct pksfault_env *env,
			struct pksfault_report *r, FILE *f, uint64_t now_ns);
void windows_list_snapshot(struct pksfault_windows *w, const struct pksfault_env *env,
			   struct pksfault_report *r, FILE *f, uint64_t now_ns, bool print);

#endif /* PKSFAULT_MODEL_H */
