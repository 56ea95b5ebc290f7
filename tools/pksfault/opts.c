// SPDX-License-Identifier: GPL-2.0
/* pksfault option parsing with argp, without exiting (so tests can call it). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pks_common.h"
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
"Exit status: 0 no faults, no leaks and no lost events; 1 faults, leaks\n"
"or events lost (a lossy run is never clean); 2 pksfault's own error or\n"
"CMD could not be started (e.g. not found); 3 nothing found but CMD\n"
"exited non-zero or was killed (\"command exited N\" is printed).\n"
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
	OPT_VERSION,
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
	{ "verbose", 'v', NULL, 0, "Show libbpf debug output", 0 },
	{ "version", OPT_VERSION, NULL, 0, "Show the version", 0 },
	{ "help", 'h', NULL, 0, "Show this help", 0 },
	{},
};

struct parse_state {
	struct pksfault_opts *opts;
	FILE *err;
	bool said;	/* parse_opt printed the error already */
	const char *bad;	/* the argument getopt stopped at */
};

/* A whole decimal number in [min, max], or -1 after printing why not. */
static int number(struct parse_state *ps, const char *what, const char *arg, long min, long max,
		  long *out)
{
	if (!pks_parse_long(arg, min, max, out))
		return 0;
	fprintf(ps->err, "pksfault: invalid %s '%s' (want %ld..%ld)\n", what, arg, min, max);
	ps->said = true;
	return -1;
}

/* A file or directory argument: not empty, or -1 after printing why. */
static int path_arg(struct parse_state *ps, const char *opt, const char *arg, const char **out)
{
	if (*arg) {
		*out = arg;
		return 0;
	}
	fprintf(ps->err, "pksfault: %s needs a file or directory name\n", opt);
	ps->said = true;
	return -1;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct parse_state *ps = state->input;
	struct pksfault_opts *o = ps->opts;
	long v;

	switch (key) {
	case 'p':
		if (number(ps, "PID", arg, 1, INT_MAX, &v))
			return EINVAL;
		o->pid = v;
		break;
	case 't':
		if (number(ps, "TID", arg, 1, INT_MAX, &v))
			return EINVAL;
		o->tid = v;
		break;
	case 'k':
		if (number(ps, "key", arg, 0, 15, &v))
			return EINVAL;
		o->key = v;
		break;
	case 'd':
		if (number(ps, "duration", arg, 1, INT_MAX, &v))
			return EINVAL;
		o->duration = v;
		break;
	case OPT_LEAK:
		if (number(ps, "leak threshold (ms)", arg, 0, 86400000, &v))
			return EINVAL;
		o->leak_ms = v;
		break;
	case OPT_HIST:
		o->hist = true;
		break;
	case OPT_CGROUP:
		o->cgroup_self = true;
		break;
	case 'c':
		return path_arg(ps, "-c", arg, &o->cgroup) ? EINVAL : 0;
	case OPT_OPEN_STACKS:
		o->open_stacks = true;
		break;
	case OPT_TIMEOUT:
		if (number(ps, "timeout", arg, 1, INT_MAX, &v))
			return EINVAL;
		o->timeout = v;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case 'v':
		o->verbose = true;
		break;
	case 'o':
		return path_arg(ps, "-o", arg, &o->output) ? EINVAL : 0;
	case OPT_JUNIT:
		return path_arg(ps, "--junit", arg, &o->junit) ? EINVAL : 0;
	case OPT_FOLDED:
		return path_arg(ps, "--folded", arg, &o->folded) ? EINVAL : 0;
	case OPT_REPLAY:
		return path_arg(ps, "--replay", arg, &o->replay) ? EINVAL : 0;
	case OPT_SYMBOLS:
		return path_arg(ps, "--symbols", arg, &o->symbols) ? EINVAL : 0;
	case OPT_VERSION:
		printf("pksfault %s\n", PKS_TOOLS_VERSION);
		o->version = true;
		break;
	case 'h':
		/* argp_state_help() is silent under ARGP_NO_ERRS: call argp_help(). */
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "pksfault");
		o->help = true;
		break;
	case ARGP_KEY_ERROR:
		ps->bad = state->argv[state->next > 0 ? state->next - 1 : 0];
		break;
	case ARGP_KEY_ARG:
		fprintf(ps->err, "pksfault: unexpected argument '%s' "
			"(run a command with: pksfault [options] -- CMD)\n", arg);
		ps->said = true;
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int pksfault_parse_args(int argc, char **argv, struct pksfault_opts *opts, FILE *err)
{
	static const struct argp argp = { options, parse_opt, "[-- CMD [ARGS...]]", doc, NULL, NULL, NULL };
	struct parse_state ps = { opts, err, false, NULL };
	int i, nargs = argc;
	char **copy;
	error_t ret;

	memset(opts, 0, sizeof(*opts));
	opts->key = -1;
	opts->leak_ms = -1;
	/* Everything after the first "--" is the command, never our options. */
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			nargs = i;
			opts->cmd = argv[i + 1] ? &argv[i + 1] : NULL;
			if (!opts->cmd) {
				fprintf(err, "pksfault: no command after '--'\n");
				return -1;
			}
			break;
		}
	/* argp permutes its argv: give it a copy, the command stays intact. */
	copy = calloc(nargs + 1, sizeof(*copy));
	if (!copy) {
		fprintf(err, "pksfault: out of memory\n");
		return -1;
	}
	memcpy(copy, argv, nargs * sizeof(*copy));
	opterr = 0;
	ret = argp_parse(&argp, nargs, copy,
			 ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS | ARGP_IN_ORDER, NULL, &ps);
	if (ret && ret != EINVAL)
		fprintf(err, "pksfault: %s\n", strerror(ret));
	else if (ret && !ps.said)	/* getopt's error: unknown option, missing argument */
		fprintf(err, "pksfault: unknown option or missing argument: '%s' (see --help)\n",
			ps.bad ? ps.bad : "?");
	free(copy);
	if (ret)
		return -1;
	if (opts->help || opts->version)
		return 0;
	if (opts->duration && opts->cmd) {
		fprintf(err, "pksfault: -d and -- CMD exclude each other\n");
		return -1;
	}
	if (opts->open_stacks && opts->leak_ms < 0) {
		fprintf(err, "pksfault: --open-stacks needs --leak MS\n");
		return -1;
	}
	if (opts->replay && (opts->cmd || opts->duration || opts->cgroup || opts->cgroup_self)) {
		fprintf(err, "pksfault: --replay reads a recorded run: not with -- CMD, -d or a cgroup\n");
		return -1;
	}
	if (opts->symbols && !opts->replay) {
		fprintf(err, "pksfault: --symbols is for --replay\n");
		return -1;
	}
	if (opts->cgroup_self && !opts->cmd) {
		fprintf(err, "pksfault: --cgroup gates a command (-- CMD); -c PATH names a cgroup\n");
		return -1;
	}
	if (opts->cgroup_self && opts->cgroup) {
		fprintf(err, "pksfault: --cgroup and -c PATH exclude each other\n");
		return -1;
	}
	if (opts->timeout && !opts->cmd) {
		fprintf(err, "pksfault: --timeout needs a command (-- CMD); use -d to trace for a time\n");
		return -1;
	}
	return 0;
}
