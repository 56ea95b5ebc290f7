/* SPDX-License-Identifier: GPL-2.0 */
/* pksfault command line: parsed into struct pksfault_opts (unit-tested). */
#ifndef PKSFAULT_OPTS_H
#define PKSFAULT_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "pks_common.h"	/* enum pks_exit: the exit statuses */
#include "pks_opts.h"

struct pksfault_opts {
	struct pks_opts_common common;	/* -v, --help, --version; the error stream */
	int pid;		/* -p: process (tgid), 0 = all */
	int tid;		/* -t: thread, 0 = all */
	int key;		/* -k: key, -1 = all */
	int duration;		/* -d: seconds, 0 = until CMD ends or a signal */
	int timeout;		/* --timeout: seconds CMD may run, 0 = no limit */
	long leak_ms;		/* --leak: threshold, -1 = windows not followed */
	const char *cgroup;	/* -c: only tasks in this cgroup v2 directory or below */
	bool cgroup_self;	/* --cgroup: ... in pksfault's own (CMD's) cgroup */
	bool hist;		/* --hist */
	bool open_stacks;	/* --open-stacks: unwind at each window open */
	bool json;		/* --json */
	const char *output;	/* -o FILE: records and summary there, not on stdout */
	const char *junit;	/* --junit FILE: the verdict as a JUnit XML report */
	const char *folded;	/* --folded FILE: fault stacks, folded for flame graphs */
	const char *replay;	/* --replay FILE: re-summarise a recorded --json run */
	const char *symbols;	/* --symbols FILE: System.map or kallsyms copy for it */
	char **cmd;		/* after "--": NULL-terminated, or NULL */
};

/*
 * Parse @argv (the contract of pks_opts.h).  Returns -1 to run, or the
 * exit status: 0 after --help or --version, 2 after one line on @err.
 * argv is not modified; opts->cmd points into it.
 */
int pksfault_parse_args(int argc, char **argv, struct pksfault_opts *opts, FILE *err);

#endif /* PKSFAULT_OPTS_H */
