// SPDX-License-Identifier: GPL-2.0
/* The tools' shared command-line contract; see pks_opts.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "pks_common.h"	/* PKS_TOOLS_VERSION, enum pks_exit */
#include "pks_opts.h"

void pks_usage(struct pks_opts_common *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "%s: ", c->tool);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fprintf(c->err, "; see '%s --help'\n", c->tool);
	c->said = true;
}

int pks_parse_long(const char *arg, long min, long max, long *out)
{
	const char *p = arg;
	char *end;
	long v;

	/* strtol() would take blanks, '+' and "-0" for a non-negative range. */
	if (*p == '-' && min < 0)
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int pks_parse_seconds(const char *arg, double min, double max, double *out)
{
	size_t digits = strspn(arg, "0123456789");
	char *end;
	double v;

	/* Plain decimals only: strtod() would take "1e3", "0x10", "inf", " 2". */
	if (!digits && arg[0] != '.')
		return -1;
	if (arg[digits] == '.')
		digits += 1 + strspn(arg + digits + 1, "0123456789");
	if (arg[digits] || !strcmp(arg, "."))
		return -1;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int pks_opt_long(struct pks_opts_common *c, const char *what, const char *arg, long min,
		 long max, long *out)
{
	if (!pks_parse_long(arg, min, max, out))
		return 0;
	pks_usage(c, "invalid %s '%s' (want %ld..%ld)", what, arg, min, max);
	return -1;
}

int pks_opt_seconds(struct pks_opts_common *c, const char *what, const char *arg, double min,
		    double max, double *out)
{
	if (!pks_parse_seconds(arg, min, max, out))
		return 0;
	pks_usage(c, "invalid %s '%s' (seconds, %g..%g)", what, arg, min, max);
	return -1;
}

int pks_opt_pid(struct pks_opts_common *c, const char *arg, int *pid)
{
	long v;

	if (pks_opt_long(c, "PID", arg, 1, INT_MAX, &v))
		return -1;
	*pid = v;
	return 0;
}

int pks_opt_path(struct pks_opts_common *c, const char *opt, const char *arg, const char **out)
{
	if (*arg) {
		*out = arg;
		return 0;
	}
	pks_usage(c, "%s needs a file or directory name", opt);
	return -1;
}

int pks_opt_shared(struct pks_opts_common *c, int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'v':
		c->verbose = true;
		return 0;
	case PKS_OPT_VERSION:
		printf("%s %s\n", c->tool, PKS_TOOLS_VERSION);
		c->done = true;
		return 0;
	case 'h':
		/* argp_state_help() is silent under ARGP_NO_ERRS: call argp_help(). */
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP & ~ARGP_HELP_EXIT_OK,
			  (char *)c->tool);
		c->done = true;
		return 0;
	case ARGP_KEY_ERROR:
		if (state->next > 0 && state->next <= state->argc)
			c->bad = state->argv[state->next - 1];
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

int pks_opts_parse(const struct argp *argp, int argc, char **argv, unsigned int flags,
		   struct pks_opts_common *c, void *input)
{
	error_t ret;

	c->said = false;
	c->bad = NULL;
	opterr = 0;
	ret = argp_parse(argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS | flags,
			 NULL, input);
	if (ret && !c->said) {
		/* getopt's own: an unknown option, a missing argument (it said nothing). */
		if (ret == EINVAL)
			pks_usage(c, "unknown option or missing argument: '%s'",
				  c->bad ? c->bad : "?");
		else
			pks_usage(c, "%s", strerror(ret));
	}
	if (ret)
		return PKS_EXIT_ERROR;
	return c->done ? PKS_EXIT_CLEAN : -1;
}
