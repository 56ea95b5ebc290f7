// SPDX-License-Identifier: GPL-2.0
/* pksfault's options, parsed as pks_opts.h has both tools do (tests call it). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pks_common.h"
#include "pks_opts.h"
#include "opts.h"

const char *argp_program_bug_address = "the PKS project (README.md)";

static const char doc[] =
"Report stray accesses to PKS-protected kernel memory and leaked\n"
"device-access windows; gate a command on them.\n"
"\n"
"Every pks_fault is printed as it happens (time, CPU, task, address and\n"
"pmem/dax device, key and owner, read/write, PKRS per key, nesting depth,\n"
"mode, outcome, faulting ip and kernel stack).  A summary follows at the\n"
"end: after CMD exits, after -d SECONDS, or on SIGINT/SIGTERM.\n"
"\n"
"Exit status (one table with pkstop, see pksfault(8)): 0 clean; 1 found\n"
"(faults, leaks, unbalanced closes); 2 pksfault's own error, a bad option\n"
"or CMD could not be started; 3 clean but CMD failed; 4 clean but CMD ran\n"
"past --timeout; 5 nothing found but events were lost (no verdict).\n"
"\n"
"EXAMPLES:\n"
"    pksfault                    # trace stray faults until Ctrl-C\n"
"    pksfault -d 10              # trace for 10 seconds, then summarize\n"
"    pksfault -k 1 -p 181        # faults on key 1 by process 181 only\n"
"    pksfault --leak 100         # also windows held open over 100 ms\n"
"    pksfault --hist -d 5        # histogram of window durations\n"
"    pksfault --json -- fio job.fio   # CI gate: run fio, JSON Lines out\n"
"    pksfault --json -o gate.jsonl -- make test  # JSON Lines to a file, make keeps stdout\n"
"    pksfault --leak 50 -- make test  # exit 1 on faults or leaks\n"
"    pksfault --cgroup -- make test   # only make's cgroup: not another job's\n"
"    pksfault --leak 100 --junit pks.xml -- make test  # a JUnit report for CI\n"
"    pksfault --replay run.jsonl --symbols System.map  # its summary again, offline\n"
"\n"
"OPTIONS:";

enum {
	OPT_LEAK = 0x100,
	OPT_HIST,
	OPT_JSON,
	OPT_TIMEOUT,
	OPT_OPEN_STACKS,
	OPT_CGROUP,
	OPT_JUNIT,
	OPT_FOLDED,
	OPT_REPLAY,
	OPT_SYMBOLS,
};

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Trace this process only", 0 },
	{ "tid", 't', "TID", 0, "Trace this thread only", 0 },
	{ "key", 'k', "KEY", 0, "Trace this protection key only (0-15)", 0 },
	{ "cgroup", OPT_CGROUP, NULL, 0,
	  "With -- CMD: only CMD's cgroup (pksfault's own) and the cgroups below it", 0 },
	{ NULL, 'c', "PATH", 0, "Only tasks in the cgroup v2 directory PATH and below it", 0 },
	{ "duration", 'd', "SECONDS", 0, "Trace for SECONDS, then summarize", 0 },
	{ "leak", OPT_LEAK, "MS", 0,
	  "Report device-access windows held open longer than MS ms", 0 },
	{ "open-stacks", OPT_OPEN_STACKS, NULL, 0,
	  "With --leak: a leak's stack is its opener's (an unwind at every window open; "
	  "default: the holder's when found open, the closer's when found closing)", 0 },
	{ "hist", OPT_HIST, NULL, 0, "Log2 histogram of window durations (usecs)", 0 },
	{ "timeout", OPT_TIMEOUT, "SECONDS", 0,
	  "Stop CMD (its whole process group) after SECONDS: exit 4 if otherwise clean", 0 },
	{ "json", OPT_JSON, NULL, 0,
	  "JSON Lines: one object per event and the summary (CMD's stdout goes to stderr)", 0 },
	{ "output", 'o', "FILE", 0,
	  "Records and summary to FILE, not stdout (with --json, CMD keeps stdout)", 0 },
	{ "junit", OPT_JUNIT, "FILE", 0,
	  "Also write the verdict to FILE as a JUnit XML report: a test case per check, "
	  "each finding's record and stack in its failure", 0 },
	{ "folded", OPT_FOLDED, "FILE", 0,
	  "Also write the fault stacks to FILE, folded for flame graphs (flamegraph.pl)", 0 },
	{ "replay", OPT_REPLAY, "FILE", 0,
	  "Re-summarise a run recorded with --json (no tracing; not with -- CMD or -d)", 0 },
	{ "symbols", OPT_SYMBOLS, "FILE", 0,
	  "With --replay: symbolise against FILE (System.map or a kallsyms copy), "
	  "not this machine's /proc/kallsyms", 0 },
	PKS_OPTS_SHARED,
	{},
};

/* A number option: -1 after saying why not. */
#define NUMBER(what, min, max, field)						\
	do {									\
		if (pks_opt_long(&o->common, what, arg, min, max, &v))		\
			return EINVAL;						\
		o->field = v;							\
	} while (0)

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct pksfault_opts *o = state->input;
	long v;

	switch (key) {
	case 'p':
		return pks_opt_pid(&o->common, arg, &o->pid) ? EINVAL : 0;
	case 't':
		NUMBER("TID", 1, INT_MAX, tid);
		break;
	case 'k':
		NUMBER("key", 0, PKS_NR_KEYS - 1, key);
		break;
	case 'd':
		NUMBER("duration", 1, INT_MAX, duration);
		break;
	case OPT_LEAK:
		NUMBER("leak threshold (ms)", 0, 86400000, leak_ms);
		break;
	case OPT_HIST:
		o->hist = true;
		break;
	case OPT_CGROUP:
		o->cgroup_self = true;
		break;
	case 'c':
		return pks_opt_path(&o->common, "-c", arg, &o->cgroup) ? EINVAL : 0;
	case OPT_OPEN_STACKS:
		o->open_stacks = true;
		break;
	case OPT_TIMEOUT:
		NUMBER("timeout", 1, INT_MAX, timeout);
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case 'o':
		return pks_opt_path(&o->common, "-o", arg, &o->output) ? EINVAL : 0;
	case OPT_JUNIT:
		return pks_opt_path(&o->common, "--junit", arg, &o->junit) ? EINVAL : 0;
	case OPT_FOLDED:
		return pks_opt_path(&o->common, "--folded", arg, &o->folded) ? EINVAL : 0;
	case OPT_REPLAY:
		return pks_opt_path(&o->common, "--replay", arg, &o->replay) ? EINVAL : 0;
	case OPT_SYMBOLS:
		return pks_opt_path(&o->common, "--symbols", arg, &o->symbols) ? EINVAL : 0;
	case ARGP_KEY_ARG:
		pks_usage(&o->common, "unexpected argument '%s' "
			  "(run a command with: pksfault [options] -- CMD)", arg);
		return EINVAL;
	default:
		return pks_opt_shared(&o->common, key, arg, state);
	}
	return 0;
}

/* Checks across options, after all are read: 0, or -1 after one line. */
static int check_combinations(struct pksfault_opts *o)
{
	struct pks_opts_common *c = &o->common;

	if (o->duration && o->cmd)
		pks_usage(c, "-d and -- CMD exclude each other");
	else if (o->open_stacks && o->leak_ms < 0)
		pks_usage(c, "--open-stacks needs --leak MS");
	else if (o->replay && (o->cmd || o->duration || o->cgroup || o->cgroup_self))
		pks_usage(c, "--replay reads a recorded run: not with -- CMD, -d or a cgroup");
	else if (o->symbols && !o->replay)
		pks_usage(c, "--symbols is for --replay");
	else if (o->cgroup_self && !o->cmd)
		pks_usage(c, "--cgroup gates a command (-- CMD); -c PATH names a cgroup");
	else if (o->cgroup_self && o->cgroup)
		pks_usage(c, "--cgroup and -c PATH exclude each other");
	else if (o->timeout && !o->cmd)
		pks_usage(c, "--timeout needs a command (-- CMD); use -d to trace for a time");
	return c->said ? -1 : 0;
}

int pksfault_parse_args(int argc, char **argv, struct pksfault_opts *opts, FILE *err)
{
	static const struct argp argp = { options, parse_opt, "[-- CMD [ARGS...]]", doc, NULL, NULL, NULL };
	int i, nargs = argc, ret;
	char **copy;

	memset(opts, 0, sizeof(*opts));
	opts->common = (struct pks_opts_common){ .tool = "pksfault", .err = err };
	opts->key = -1;
	opts->leak_ms = -1;
	/* Everything after the first "--" is the command, never our options. */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			nargs = i;
			opts->cmd = argv[i + 1] ? &argv[i + 1] : NULL;
			if (!opts->cmd) {
				pks_usage(&opts->common, "no command after '--'");
				return PKS_EXIT_ERROR;
			}
			break;
		}
	/* argp permutes its argv: give it a copy, the command stays intact. */
	copy = calloc(nargs + 1, sizeof(*copy));
	if (!copy) {
		fprintf(err, "pksfault: out of memory\n");
		return PKS_EXIT_ERROR;
	}
	memcpy(copy, argv, nargs * sizeof(*copy));
	ret = pks_opts_parse(&argp, nargs, copy, ARGP_IN_ORDER, &opts->common, opts);
	free(copy);
	if (ret >= 0)
		return ret;
	return check_combinations(opts) ? PKS_EXIT_ERROR : -1;
}
