// SPDX-License-Identifier: GPL-2.0
/* pkstop's options, parsed as pks_opts.h has both tools do (tests call it). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

static const char doc[] =
"Live, top-like view of protection keys (PKS), per thread.\n"
"\n"
"USAGE: pkstop [-h] [-p PID] [-c CGROUP] [-n COMM] [-K | -P] [-r ROWS] [-s SORT] [-C] [-b] [--json]\n"
"              [--prometheus FILE] [-v] [interval] [count]\n"
"\n"
"Header: PKS present/enabled, allocated keys and owners, system totals per\n"
"second.  Rows: threads with activity in the interval or with state (a\n"
"window open, a PKRS other than the default), including idle threads that\n"
"hold a device-memory window open (HELD: how long; '>' when it was already\n"
"open when pkstop started).  On a terminal narrower than the full table\n"
"(100 columns), a compact one that fits 80.  -K: one row per key instead\n"
"(opens, open time, PKRS writes, faults, threads holding it); -P: one row\n"
"per process (its threads added up).\n"
"\n"
"EXAMPLES:\n"
"    pkstop              # refresh every second until Ctrl-C\n"
"    pkstop 5 10         # 10 intervals of 5 seconds\n"
"    pkstop -p 1234      # only threads of process 1234\n"
"    pkstop -n fio       # only threads whose name contains \"fio\"\n"
"    pkstop -c /sys/fs/cgroup/system.slice/db.service  # one cgroup's threads\n"
"    pkstop -s open%     # threads holding windows longest first\n"
"    pkstop -K           # per key: who opens it, how often, how long\n"
"    pkstop -P -s opens  # per process, busiest first\n"
"    pkstop -b 1 3 > log # batch output (also when stdout is not a TTY)\n"
"    pkstop --json 2 5   # one JSON document per interval, one line each\n"
"    pkstop -b --prometheus /var/lib/prometheus/node-exporter/pks.prom 15 >/dev/null\n"
"                        # metrics for node exporter's textfile collector\n"
"\n"
"SORT: depth (default), opens, open%, faults, tid.\n"
"Exit status (one table with pksfault, see pkstop(8)): 0 ran to its end;\n"
"2 pkstop's own error or a bad option; 5 events were lost (drops).\n";

enum { OPT_JSON = 0x100, OPT_OPENMETRICS };

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Only threads of this process (filtered in BPF)", 0 },
	{ "cgroup", 'c', "CGROUP", 0, "Only threads in this cgroup v2 directory (filtered in BPF)", 0 },
	{ "name", 'n', "COMM", 0, "Only threads whose name (comm) contains COMM", 0 },
	{ "keys", 'K', NULL, 0, "One row per key (JSON: per-key figures are always in \"keys\")", 0 },
	{ "processes", 'P', NULL, 0, "One row per process (JSON: adds \"processes\")", 0 },
	{ "rows", 'r', "ROWS", 0, "Rows to show (default: screen height, else 20; JSON: all; 0: all)", 0 },
	{ "sort", 's', "SORT", 0, "Sort by depth, opens, open%, faults or tid", 0 },
	{ "noclear", 'C', NULL, 0, "Don't clear the screen between intervals", 0 },
	{ "batch", 'b', NULL, 0, "Batch output: no screen control (default when not a TTY)", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON document per interval, one line each", 0 },
	{ "prometheus", OPT_OPENMETRICS, "FILE", 0,
	  "Also write the counters to FILE each interval (atomically) in the Prometheus text "
	  "format 0.0.4, for node exporter's textfile collector", 0 },
	/* Its first name, kept for scripts; the format was never OpenMetrics. */
	{ "openmetrics", OPT_OPENMETRICS, "FILE", OPTION_HIDDEN, NULL, 0 },
	PKS_OPTS_SHARED,
	{},
};

static const char *const sort_names[] = {
	[PKSTOP_SORT_DEPTH] = "depth",
	[PKSTOP_SORT_OPENS] = "opens",
	[PKSTOP_SORT_OPENPCT] = "open%",
	[PKSTOP_SORT_FAULTS] = "faults",
	[PKSTOP_SORT_TID] = "tid",
};

int pkstop_sort_parse(const char *name)
{
	size_t i;

	if (!strcmp(name, "openpct") || !strcmp(name, "open"))
		return PKSTOP_SORT_OPENPCT;
	for (i = 0; i < sizeof(sort_names) / sizeof(sort_names[0]); i++)
		if (!strcmp(name, sort_names[i]))
			return i;
	return -1;
}

const char *pkstop_sort_name(enum pkstop_sort sort)
{
	return sort <= PKSTOP_SORT_TID ? sort_names[sort] : "?";
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct pkstop_opts *o = state->input;
	struct pks_opts_common *c = &o->common;
	long val;
	int s;

	switch (key) {
	case 'p':
		return pks_opt_pid(c, arg, &o->pid) ? EINVAL : 0;
	case 'c':
		return pks_opt_path(c, "-c", arg, &o->cgroup) ? EINVAL : 0;
	case 'n':
		/* A comm has at most 15 bytes: a longer COMM would match nothing, silently. */
		if (!*arg || strlen(arg) > 15) {
			pks_usage(c, "invalid name '%s' (part of a comm: 1 to 15 bytes)", arg);
			return EINVAL;
		}
		o->name = arg;
		break;
	case 'r':
		if (pks_opt_long(c, "row count", arg, 0, 1000000, &val))
			return EINVAL;
		o->rows = val;
		break;
	case 's':
		s = pkstop_sort_parse(arg);
		if (s < 0) {
			pks_usage(c, "invalid sort '%s' (depth, opens, open%%, faults, tid)", arg);
			return EINVAL;
		}
		o->sort = s;
		break;
	case 'K':
	case 'P':
		s = key == 'K' ? PKSTOP_VIEW_KEYS : PKSTOP_VIEW_PROCESSES;
		if (o->view != PKSTOP_VIEW_THREADS && o->view != (enum pkstop_view)s) {
			pks_usage(c, "-K and -P are two views: choose one");
			return EINVAL;
		}
		o->view = s;
		break;
	case 'C':
		o->noclear = true;
		break;
	case 'b':
		o->batch = true;
		break;
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_OPENMETRICS:
		return pks_opt_path(c, "--prometheus", arg, &o->openmetrics) ? EINVAL : 0;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			if (pks_opt_seconds(c, "interval", arg, 0.1, 86400, &o->interval))
				return EINVAL;
		} else if (state->arg_num == 1) {
			if (pks_opt_long(c, "count", arg, 1, INT_MAX, &val))
				return EINVAL;
			o->count = val;
		} else {
			pks_usage(c, "unexpected argument '%s' (usage: pkstop [interval] [count])",
				  arg);
			return EINVAL;
		}
		break;
	default:
		return pks_opt_shared(c, key, arg, state);
	}
	return 0;
}

int pkstop_parse_args(int argc, char **argv, struct pkstop_opts *opts, FILE *err)
{
	static const struct argp argp = {
		.options = options,
		.parser = parse_arg,
		.args_doc = "[interval] [count]",
		.doc = doc,
	};

	*opts = (struct pkstop_opts){
		.common = { .tool = "pkstop", .err = err },
		.interval = 1.0,
		.rows = -1,
		.sort = PKSTOP_SORT_DEPTH,
	};
	return pks_opts_parse(&argp, argc, argv, 0, &opts->common, opts);
}
