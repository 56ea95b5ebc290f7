/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command-line contract both tools keep (pksfault(8), pkstop(8)):
 * argp, never exiting from inside it; -v/--verbose, --version and
 * -h/--help handled alike; every number through one strict parser; a
 * usage error is one line on stderr, "TOOL: <what is wrong>; see 'TOOL
 * --help'", and exit status 2.  Pure (no BPF): unit-tested on the host.
 */
#ifndef PKS_OPTS_H
#define PKS_OPTS_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

/* argp keys of the shared options that have no short form. */
#define PKS_OPT_VERSION	0x1000

/* The shared options, last in each tool's table. */
#define PKS_OPTS_SHARED							\
	{ "verbose", 'v', NULL, 0, "Show libbpf's debug output", 0 },	\
	{ "version", PKS_OPT_VERSION, NULL, 0, "Show the version", 0 },	\
	{ "help", 'h', NULL, 0, "Show this help", 0 }

/* What every tool's parse keeps besides its own options. */
struct pks_opts_common {
	const char *tool;	/* "pksfault": the prefix of every message */
	FILE *err;		/* usage errors go here (stderr; tests: a memstream) */
	bool verbose;		/* -v */
	bool done;		/* --help or --version printed: exit 0 */
	bool said;		/* a usage error was printed */
	const char *bad;	/* the argument argp stopped at */
};

/* "TOOL: <fmt...>; see 'TOOL --help'", one line on c->err. */
void pks_usage(struct pks_opts_common *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A whole decimal number in [min, max]: digits only (a '-' only when
 * @min < 0), no blanks, no '+', no trailing junk, no overflow.  Returns 0
 * and sets *@out, or -1.
 */
int pks_parse_long(const char *arg, long min, long max, long *out);
/* A decimal number of seconds ("2", "0.5"; no exponent, inf or nan) in [min, max]. */
int pks_parse_seconds(const char *arg, double min, double max, double *out);

/* The same, with the usage error said: 0, or -1 after one line. */
int pks_opt_long(struct pks_opts_common *c, const char *what, const char *arg, long min,
		 long max, long *out);
int pks_opt_seconds(struct pks_opts_common *c, const char *what, const char *arg, double min,
		    double max, double *out);
/* -p PID: 1..INT_MAX. */
int pks_opt_pid(struct pks_opts_common *c, const char *arg, int *pid);
/* A file or directory argument (-c PATH, -o FILE): not empty. */
int pks_opt_path(struct pks_opts_common *c, const char *opt, const char *arg, const char **out);

/*
 * The shared options' part of an argp parser: -v, --version, -h, and
 * what argp itself rejects.  A tool's parser ends in
 *	default: return pks_opt_shared(&o->common, key, arg, state);
 */
int pks_opt_shared(struct pks_opts_common *c, int key, char *arg, struct argp_state *state);

/*
 * Run @argp over @argv (ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS |
 * @flags) with @input for the tool's parser.  Returns -1 to run, or the
 * exit status: 0 after --help or --version, 2 after a usage error (said
 * in one line, argp's own included).
 */
int pks_opts_parse(const struct argp *argp, int argc, char **argv, unsigned int flags,
		   struct pks_opts_common *c, void *input);

#endif /* PKS_OPTS_H */
