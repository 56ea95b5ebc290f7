/* SPDX-License-Identifier: GPL-2.0 */
/* pkstop command line: parsed into struct pkstop_opts, testable on its own. */
#ifndef PKSTOP_OPTS_H
#define PKSTOP_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "pks_opts.h"

enum pkstop_sort {
	PKSTOP_SORT_DEPTH,
	PKSTOP_SORT_OPENS,
	PKSTOP_SORT_OPENPCT,
	PKSTOP_SORT_FAULTS,
	PKSTOP_SORT_TID,
};

/* What the table's rows are: threads, keys (-K) or processes (-P). */
enum pkstop_view {
	PKSTOP_VIEW_THREADS,
	PKSTOP_VIEW_KEYS,
	PKSTOP_VIEW_PROCESSES,
};

struct pkstop_opts {
	struct pks_opts_common common;	/* -v, --help, --version; the error stream */
	double interval;	/* seconds */
	long count;		/* intervals to show; 0 = until interrupted */
	int pid;		/* -p: process (tgid), 0 = every process */
	const char *name;	/* -n: only comms containing this; NULL = all */
	const char *cgroup;	/* -c: only threads in this cgroup v2 directory */
	int rows;		/* rows to show; -1 = default (20 text, all JSON) */
	enum pkstop_sort sort;
	enum pkstop_view view;
	bool noclear;
	bool batch;
	bool json;
	const char *openmetrics;	/* --prometheus FILE (alias --openmetrics), or NULL */
	/* Not an option: the terminal's columns, set by pkstop.c; 0 = no limit. */
	int width;
};

/* Name <-> enum for -s; -1 for an unknown name. */
int pkstop_sort_parse(const char *name);
const char *pkstop_sort_name(enum pkstop_sort sort);

/*
 * Parse @argv into @opts (defaults first; the contract of pks_opts.h).
 * Returns -1 to run, or the exit status: 0 after --help or --version, 2
 * after one line on @err.
 */
int pkstop_parse_args(int argc, char **argv, struct pkstop_opts *opts, FILE *err);

#endif
