// SPDX-License-Identifier: GPL-2.0
/*
 * pksfault: did anything touch PKS-protected memory it should not have,
 * and which code opened a device-access window and did not close it?
 *
 * Streams pks_fault events with stacks, follows each thread's outermost
 * dev_access window (--leak, --hist), and gates a command (-- CMD) on
 * both.  The same file roles as pkstop's: options in opts.c, the open
 * windows (BPF state to records) in model.c, all printing in view.c, the
 * summary and exit status in report.c.
 */
#define _GNU_SOURCE	/* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pks_common.h"
#include "view.h"
#include "junit.h"
#include "replay.h"
#include "opts.h"
#include "report.h"
#include "model.h"
#include "pksfault.skel.h"

/* The direct window records (bpf/pksfault.h), mapped read-only. */
#define DIRECT_BYTES	(PKSFAULT_DIRECT_WINDOWS * sizeof(struct pksfault_window))

static volatile sig_atomic_t stop_signal;

static struct pksfault_opts opts;
static struct pksfault_env env;
static struct pksfault_report report;
static struct pksfault_windows windows;
/* env for text records whatever the output: the findings --junit keeps */
static struct pksfault_env text_env;
/* Where records and the summary go: stdout, or -o FILE (then CMD keeps stdout). */
static FILE *out;
static const char *out_name = "stdout";

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * A frame in the module area that no symbol covers: a module loaded since
 * kallsyms was read (by -- CMD, say).  Read it again, at most once a
 * second, so that a stream of such frames cannot keep pksfault busy.
 */
static void refresh_symbols(const struct pksfault_event *e)
{
	static uint64_t last_ns;
	int i, n = e->stack_sz > 0 ? e->stack_sz / (int)sizeof(e->stack[0]) : 0;
	bool stale = ksyms_stale(env.ks, e->ip) || ksyms_stale(env.ks, e->close_caller) ||
		     ksyms_stale(env.ks, e->open_caller);
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	struct ksyms *fresh;

	for (i = 0; i < n && i < PKSFAULT_MAX_STACK && !stale; i++)
		stale = ksyms_stale(env.ks, e->stack[i]);
	if (!stale || (last_ns && now - last_ns < 1000000000ULL))
		return;
	last_ns = now;
	fresh = ksyms_load(NULL);
	if (fresh && ksyms_count(fresh)) {
		ksyms_free(env.ks);
		env.ks = fresh;
	} else {
		ksyms_free(fresh);
	}
}

/* --junit: the event's text record, kept as a finding of @kind. */
static void finding(enum report_kind kind, const struct pksfault_event *e)
{
	char *buf;
	size_t len;
	FILE *m = report_finding_begin(&report, kind, &buf, &len);

	if (!m)
		return;
	if (kind == REPORT_FAULT)
		pksfault_print_fault(m, &text_env, e);
	else if (kind == REPORT_LEAK)
		pksfault_print_leak(m, &text_env, e, false);
	else
		pksfault_print_unbalanced(m, &text_env, e);
	report_finding_end(&report, kind, m, &buf);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct pksfault_event *e = data;
	bool reported_open;

	if (size < sizeof(*e))
		return 0;
	refresh_symbols(e);
	switch (e->type) {
	case PKSFAULT_EV_FAULT:
		report_add_fault(&report, e);
		pksfault_print_fault(out, &env, e);
		finding(REPORT_FAULT, e);
		break;
	case PKSFAULT_EV_LEAK:
		report_add_leak(&report, e);
		reported_open = windows_closed(&windows, e->tid, e->open_ns);
		pksfault_print_leak(out, &env, e, reported_open);
		if (!reported_open)	/* else found while open, kept then */
			finding(REPORT_LEAK, e);
		break;
	case PKSFAULT_EV_UNBALANCED:
		report_add_unbalanced(&report, e);
		pksfault_print_unbalanced(out, &env, e);
		finding(REPORT_UNBALANCED, e);
		break;
	}
	return 0;
}

/*
 * Symbols, devices and key owners.  Each that a missing capability hides
 * is said in one line: the tool runs on, with less in its reports.
 */
static void setup_env(struct bpf_program *keys_iter)
{
	enum pks_keys_source source;
	int ret;

	env.json = opts.json;
	env.mono_to_real_ns = (int64_t)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC));
	env.ks = ksyms_load(NULL);
	if (!env.ks || !ksyms_count(env.ks))
		fprintf(stderr, "pksfault: %s: stacks shown as addresses\n",
			pks_have_cap(CAP_SYSLOG) ? "/proc/kallsyms unreadable" :
			"no CAP_SYSLOG (/proc/kallsyms hides addresses)");
	if (iomem_load(NULL, &env.iomem) <= 0 && !pks_have_cap(CAP_SYS_ADMIN))
		fprintf(stderr, "pksfault: no CAP_SYS_ADMIN (/proc/iomem hides addresses): "
			"faults are not matched to devices\n");
	/* Neither kfunc nor debugfs: owners then come from the events. */
	ret = pks_load_keys(keys_iter, NULL, env.owners, &env.keymask, &source);
	if (ret < 0 && pks_cpu_has_pks())
		fprintf(stderr, "pksfault: no key table (%s needs root): keys named "
			"only when allocated or faulted on\n", PKS_KEYS_PATH);
	else if (ret >= 0 && opts.common.verbose)
		fprintf(stderr, "pksfault: %d keys, from %s\n", ret,
			pks_keys_source_name(source));
}

/*
 * The terminal, when pksfault runs in its foreground: CMD gets it (its
 * own process group would otherwise stop on SIGTTIN the moment it reads
 * it), pksfault takes it back when CMD stops or ends, as a shell does.
 */
static bool own_tty;

/* Make @pgrp the terminal's foreground group (not stopped by SIGTTOU). */
static void give_terminal(pid_t pgrp)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	if (!own_tty)
		return;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGTTOU, &ign, &old);
	tcsetpgrp(STDIN_FILENO, pgrp);
	sigaction(SIGTTOU, &old, NULL);
}

/*
 * CMD stopped (Ctrl-Z, or a read of a terminal it does not own): take
 * the terminal back and stop as a job does, so that the shell sees the
 * job stopped; once continued, hand the terminal back and continue CMD.
 */
static void command_stopped(pid_t pgid, int sig)
{
	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU)
		return;	/* SIGSTOP from someone else: theirs to continue */
	give_terminal(getpgrp());
	raise(sig);
	/* Continued (fg or bg): the terminal only if it is ours again. */
	own_tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	give_terminal(pgid);
	kill(-pgid, SIGCONT);
}

/*
 * Fork and exec the command; the exec's errno comes back through a
 * close-on-exec pipe, so "not found" is told apart from the command's
 * own exit 127.  Returns the pid, or -1 after printing why.
 */
static pid_t start_command(char **cmd)
{
	int pfd[2], err = 0;
	ssize_t n;
	pid_t pid, parent;

	if (pipe2(pfd, O_CLOEXEC)) {
		fprintf(stderr, "pksfault: pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	own_tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	parent = getpid();	/* not 1: pksfault may itself be a container's PID 1 */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "pksfault: fork: %s\n", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/*
		 * Its own process group, so that stopping it stops everything
		 * it started; and killed if pksfault dies without stopping it.
		 */
		setpgid(0, 0);
		give_terminal(getpid());	/* both sides, as shells do: no race */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);	/* pksfault died before the prctl */
		/* --json: our stdout carries JSON Lines only; the command's goes to stderr. */
		if (opts.json && !opts.output && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(pfd[1]);
	setpgid(pid, pid);	/* also here: no window where a kill misses the group */
	give_terminal(pid);
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == sizeof(err)) {
		waitpid(pid, NULL, 0);
		give_terminal(getpgrp());
		fprintf(stderr, "pksfault: cannot run '%s': %s\n", cmd[0], strerror(err));
		return -1;
	}
	return pid;
}

/*
 * The BPF counters, summed over CPUs.  Without them the gate cannot say
 * clean: 0, or -1 after one line saying why.
 */
static int read_stats(struct pksfault_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus(), i, s, err = 0;
	struct pksfault_stats *percpu = NULL;
	__u32 zero = 0;

	if (ncpus <= 0)
		err = ncpus ? -ncpus : EINVAL;
	else if (!(percpu = calloc(ncpus, sizeof(*percpu))))
		err = ENOMEM;
	else if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.stats), &zero, percpu))
		err = errno;
	if (err) {
		fprintf(stderr, "pksfault: cannot read the BPF counters: %s\n", strerror(err));
		free(percpu);
		return -1;
	}
	for (i = 0; i < ncpus; i++)
		for (s = 0; s < PKSFAULT_STAT_NR; s++)
			report.stats.v[s] += percpu[i].v[s];
	free(percpu);
	return 0;
}

/*
 * BPF runs the kernel skipped (a program already running on that CPU),
 * into report.recursion_misses: 0, or -1 after one line saying why.
 */
static int recursion_misses(struct pksfault_bpf *skel)
{
	struct bpf_prog_info info;
	struct bpf_program *prog;
	__u32 len;

	bpf_object__for_each_program(prog, skel->obj) {
		if (bpf_program__fd(prog) < 0)
			continue;	/* not loaded */
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
			fprintf(stderr, "pksfault: cannot read %s's skipped runs: %s\n",
				bpf_program__name(prog), strerror(errno));
			return -1;
		}
		report.recursion_misses += info.recursion_misses;
	}
	return 0;
}

#define STOP_GRACE_S 5	/* SIGTERM to SIGKILL */

static void note_status(int status)
{
	report.cmd_ran = true;
	report.cmd_exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	report.cmd_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/*
 * Stop the command's process group: SIGTERM, then SIGKILL for what is
 * left after the grace period.  @child: the command if it has not been
 * reaped yet, else -1 (then only its leftovers are stopped).
 */
static void stop_group(pid_t pgid, pid_t child)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)STOP_GRACE_S * 1000000000;
	int status;

	give_terminal(getpgrp());
	if (kill(-pgid, SIGTERM) && errno == ESRCH)
		return;	/* nothing left */
	kill(-pgid, SIGCONT);	/* a stopped process takes SIGTERM only when continued */
	while (now_ns(CLOCK_MONOTONIC) < deadline) {
		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			note_status(status);
			child = -1;
		}
		if (child < 0 && kill(-pgid, 0) && errno == ESRCH)
			return;
		usleep(20000);
	}
	kill(-pgid, SIGKILL);
	if (child > 0 && waitpid(child, &status, 0) == child)
		note_status(status);
}

static int trace(struct pksfault_bpf *skel, struct ring_buffer *rb)
{
	uint64_t start = now_ns(CLOCK_MONOTONIC), deadline = 0, cmd_deadline = 0;
	pid_t child = -1, pgid = -1;
	int status, err, poll_ms = 100;

	if (opts.duration)
		deadline = start + (uint64_t)opts.duration * 1000000000;
	if (windows.leak_ns && windows_sweep_period_ns(windows.leak_ns) < 100000000)
		poll_ms = windows_sweep_period_ns(windows.leak_ns) / 1000000;
	if (opts.cmd) {
		report.cmd = opts.cmd;
		child = start_command(opts.cmd);
		if (child < 0)
			return PKS_EXIT_ERROR;
		pgid = child;
		if (opts.timeout)
			cmd_deadline = now_ns(CLOCK_MONOTONIC) + (uint64_t)opts.timeout * 1000000000;
	} else {
		/* stderr, so JSON output stays pure; scripts wait for this line. */
		fprintf(stderr, "pksfault: tracing PKS faults%s... %s\n",
			opts.leak_ms >= 0 ? " and leaked windows" : "",
			opts.duration ? "" : "Ctrl-C to end.");
	}
	while (!stop_signal) {
		err = ring_buffer__poll(rb, poll_ms);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "pksfault: ring buffer: %s\n", strerror(-err));
			if (pgid > 0)
				stop_group(pgid, child);
			return PKS_EXIT_ERROR;
		}
		/* A leak is reported within a sweep period of crossing the threshold. */
		err = windows_sweep(&windows, &env, &report, out, now_ns(CLOCK_MONOTONIC));
		if (err < 0) {
			fprintf(stderr, "pksfault: cannot read the windows map: %s\n",
				strerror(-err));
			if (pgid > 0)
				stop_group(pgid, child);
			return PKS_EXIT_ERROR;
		}
		if (deadline && now_ns(CLOCK_MONOTONIC) >= deadline)
			break;
		if (child > 0 && waitpid(child, &status, WNOHANG | WUNTRACED) == child) {
			if (WIFSTOPPED(status)) {
				command_stopped(pgid, WSTOPSIG(status));
				continue;
			}
			note_status(status);
			child = -1;
			break;
		}
		if (cmd_deadline && now_ns(CLOCK_MONOTONIC) >= cmd_deadline) {
			report.cmd_timed_out = true;
			break;
		}
	}
	/*
	 * Stopped by a signal or --timeout, or the command is done: its
	 * process group goes (what it left running in the background too).
	 * The programs stay attached meanwhile: what stopping it does is seen.
	 */
	if (pgid > 0)
		stop_group(pgid, child);
	report.elapsed_s = (now_ns(CLOCK_MONOTONIC) - start) / 1e9;
	return 0;
}

/* --folded FILE: 0, or -1 after one line. */
static int write_folded(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f) {
		fprintf(stderr, "pksfault: --folded %s: %s\n", path, strerror(errno));
		return -1;
	}
	report_print_folded(f, &env, &report);
	if (pks_check_output(f, "pksfault", path)) {
		fclose(f);
		return -1;
	}
	return fclose(f) ? -1 : 0;
}

/*
 * --replay FILE: the summary of a recorded run (and its --junit and
 * --folded files), symbolised against --symbols or this machine.
 */
static int replay(void)
{
	FILE *in = fopen(opts.replay, "re");
	int ret;

	if (!in) {
		fprintf(stderr, "pksfault: --replay %s: %s\n", opts.replay, strerror(errno));
		return PKS_EXIT_ERROR;
	}
	ret = replay_read(in, opts.replay, &report, stderr);
	fclose(in);
	if (ret)
		return PKS_EXIT_ERROR;
	env.json = opts.json;
	env.ks = ksyms_load(opts.symbols);
	if (opts.symbols && (!env.ks || !ksyms_count(env.ks))) {
		fprintf(stderr, "pksfault: --symbols %s: no text symbols read\n", opts.symbols);
		ret = PKS_EXIT_ERROR;
		goto out;
	}
	report_print(out, &env, &report);
	ret = pks_check_output(out, "pksfault", out_name) ? PKS_EXIT_ERROR
							 : report_exit_code(&report);
	if (opts.junit && junit_write(opts.junit, &report))
		ret = PKS_EXIT_ERROR;
	if (opts.folded && write_folded(opts.folded))
		ret = PKS_EXIT_ERROR;
out:
	replay_free(&report);
	ksyms_free(env.ks);
	return ret;
}

/* What a traced run holds, set up by the steps below and freed by main(). */
struct run {
	struct pksfault_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *iter, *holder_iter;
	struct bpf_program *keys_iter;	/* NULL: no bpf_pks_key_owner() */
	char cgroup_path[PATH_MAX];	/* --cgroup or -c: its directory */
	uint64_t cgroup_id;		/* 0: no cgroup filter */
};

/* -o FILE, or stdout: 0, or -1 after one line. */
static int open_output(void)
{
	out = stdout;
	if (!opts.output)
		return 0;
	out = fopen(opts.output, "we");
	if (!out) {
		fprintf(stderr, "pksfault: -o %s: %s\n", opts.output, strerror(errno));
		return -1;
	}
	setvbuf(out, NULL, _IOLBF, 0);	/* a tail -f of it sees whole records */
	out_name = opts.output;
	return 0;
}

/* --cgroup, -c PATH: the directory and its id into @run.  0 or -1 after one line. */
static int find_cgroup(struct run *run)
{
	int err;

	if (!opts.cgroup_self && !opts.cgroup)
		return 0;
	if (opts.cgroup)
		snprintf(run->cgroup_path, sizeof(run->cgroup_path), "%s", opts.cgroup);
	else if ((err = pks_own_cgroup(NULL, NULL, run->cgroup_path, sizeof(run->cgroup_path)))) {
		fprintf(stderr, "pksfault: --cgroup: cannot tell this process's cgroup: %s\n",
			strerror(-err));
		return -1;
	}
	err = pks_cgroup_id(run->cgroup_path, &run->cgroup_id);
	if (err) {
		fprintf(stderr, "pksfault: cgroup %s: %s\n", run->cgroup_path,
			err == -ENOTDIR ? "not a cgroup v2 directory" : strerror(-err));
		return -1;
	}
	return 0;
}

/* Before load: filters and what to load.  0 or -1 after one line. */
static int configure(struct run *run)
{
	struct pksfault_bpf *skel = run->skel;

	if (find_cgroup(run))
		return -1;
	skel->rodata->pks_cgroup_id = run->cgroup_id;
	skel->rodata->target_pid = opts.pid;
	skel->rodata->target_tid = opts.tid;
	skel->rodata->target_key = opts.key;
	skel->rodata->track_windows = opts.leak_ms >= 0 || opts.hist;
	skel->rodata->window_stacks = opts.open_stacks;
	skel->rodata->leak_ns = opts.leak_ms >= 0 ? (__u64)opts.leak_ms * 1000000 : 0;
	/* --leak 0 reports every window: leak_ns 0 means "off" in BPF, so use 1 ns. */
	if (opts.leak_ms == 0)
		skel->rodata->leak_ns = 1;
	if (!skel->rodata->track_windows) {
		/* Untraced windows then cost nothing: no trampoline on the hot path. */
		bpf_program__set_autoload(skel->progs.pksfault_enable, false);
		bpf_program__set_autoload(skel->progs.pksfault_disable, false);
		bpf_program__set_autoload(skel->progs.pksfault_seed_windows, false);
		bpf_program__set_autoload(skel->progs.pksfault_thread_exit, false);
	}
	if (opts.leak_ms < 0)
		bpf_program__set_autoload(skel->progs.pksfault_holder_stack, false);
	/* Kernels of this series before the event: say so, trace the rest. */
	if (pks_kernel_has_event("dev_access_unbalanced") != 1) {
		fprintf(stderr, "pksfault: this kernel has no dev_access_unbalanced event: "
			"unbalanced window closes are not reported\n");
		bpf_program__set_autoload(skel->progs.pksfault_unbalanced, false);
	}
	if (pks_keys_iter_prepare(skel->progs.pksfault_keys))
		run->keys_iter = skel->progs.pksfault_keys;
	return 0;
}

/*
 * Load, attach, arm, then what reads the maps: the ring buffer, the
 * environment, the windows found open.  0 or -1 after one line.
 */
static int start(struct run *run)
{
	struct pksfault_bpf *skel = run->skel;
	int err;

	err = pksfault_bpf__load(skel);
	if (err) {
		fprintf(stderr, "pksfault: cannot load BPF programs: %s (-v for details)\n",
			strerror(-err));
		return -1;
	}
	if (run->cgroup_id && (err = pks_cgroup_attach(skel->maps.pks_cgroup, run->cgroup_path))) {
		fprintf(stderr, "pksfault: cannot filter by cgroup: %s\n", strerror(-err));
		return -1;
	}
	err = pksfault_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "pksfault: cannot attach to the pks tracepoints: %s\n",
			strerror(-err));
		return -1;
	}
	skel->bss->pks_armed = true;	/* all attached: windows are followed from now */
	run->rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!run->rb) {
		fprintf(stderr, "pksfault: cannot create ring buffer: %s\n", strerror(errno));
		return -1;
	}
	setup_env(run->keys_iter);
	text_env = env;
	text_env.json = false;
	report.keep_findings = opts.junit;
	windows.text_env = opts.junit ? &text_env : NULL;
	windows.map_fd = bpf_map__fd(skel->maps.windows);
	windows.direct = mmap(NULL, DIRECT_BYTES, PROT_READ, MAP_SHARED,
			      bpf_map__fd(skel->maps.direct), 0);
	if (windows.direct == MAP_FAILED) {
		fprintf(stderr, "pksfault: cannot map the window records: %s\n", strerror(errno));
		windows.direct = NULL;
		return -1;
	}
	windows.leak_ns = skel->rodata->leak_ns;
	windows.holder_iter_fd = -1;
	windows.holder_tid = &skel->bss->holder_tid;
	if (opts.leak_ms >= 0) {
		/* Without it a leak found open is reported without a stack. */
		run->holder_iter = bpf_program__attach_iter(skel->progs.pksfault_holder_stack, NULL);
		if (run->holder_iter)
			windows.holder_iter_fd = bpf_link__fd(run->holder_iter);
		else
			fprintf(stderr, "pksfault: cannot attach the holder-stack iterator: %s; "
				"leaks found open are reported without a stack\n", strerror(errno));
	}
	if (skel->rodata->track_windows) {
		/* After arming: a window opened from now on is seen opening. */
		run->iter = bpf_program__attach_iter(skel->progs.pksfault_seed_windows, NULL);
		err = run->iter ? windows_seed(bpf_link__fd(run->iter)) : -errno;
		if (err) {
			fprintf(stderr, "pksfault: cannot look for windows open before attach: %s\n",
				strerror(-err));
			return -1;
		}
	}
	report.leak_enabled = opts.leak_ms >= 0;
	report.leak_ms = opts.leak_ms;
	report.hist_enabled = opts.hist;
	report.cmd_exit = -1;
	return 0;
}

/*
 * After tracing: the counters, the windows still open, the summary and
 * the --junit and --folded files.  The exit status.
 */
static int finish(struct run *run)
{
	struct pksfault_bpf *skel = run->skel;
	int err, ret;

	/*
	 * Stop the programs first, so that the events drained, the counters
	 * and the open windows below all describe the same instant.
	 */
	pksfault_bpf__detach(skel);
	ring_buffer__consume(run->rb);
	if (read_stats(skel) || recursion_misses(skel))
		return PKS_EXIT_ERROR;
	if (skel->rodata->track_windows) {
		memcpy(report.hist, (const void *)skel->bss->hist, sizeof(report.hist));
		err = windows_list_open(&windows, &env, &report, out, now_ns(CLOCK_MONOTONIC),
					opts.leak_ms >= 0);
		if (err) {
			fprintf(stderr, "pksfault: cannot read the windows map: %s\n",
				strerror(-err));
			return PKS_EXIT_ERROR;
		}
	}
	report_print(out, &env, &report);
	/* A report that did not reach its file (a full disk) is no verdict. */
	ret = pks_check_output(out, "pksfault", out_name) ? PKS_EXIT_ERROR
							     : report_exit_code(&report);
	if (opts.junit && (err = junit_write(opts.junit, &report))) {
		fprintf(stderr, "pksfault: writing %s: %s\n", opts.junit, strerror(-err));
		ret = PKS_EXIT_ERROR;
	}
	if (opts.folded && write_folded(opts.folded))
		ret = PKS_EXIT_ERROR;
	return ret;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	PKS_OPEN_OPTS(open_opts);
	static struct run run;
	int ret = PKS_EXIT_ERROR;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* serial consoles, pipes: whole lines */
	ret = pksfault_parse_args(argc, argv, &opts, stderr);
	if (ret >= 0)
		return ret;
	ret = PKS_EXIT_ERROR;
	if (open_output())
		return PKS_EXIT_ERROR;
	if (opts.replay)
		return replay();
	if (pks_check_environment("pksfault"))
		return PKS_EXIT_ERROR;
	if (!pks_cpu_has_pks())
		fprintf(stderr, "pksfault: this CPU has no PKS: protection-key faults cannot occur\n");
	pks_libbpf_messages(opts.common.verbose);
	run.skel = pksfault_bpf__open_opts(&open_opts);
	if (!run.skel) {
		fprintf(stderr, "pksfault: cannot open BPF object: %s\n", strerror(errno));
		return PKS_EXIT_ERROR;
	}
	if (!configure(&run) && !start(&run)) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		ret = trace(run.skel, run.rb);
		if (!ret)
			ret = finish(&run);
	}
	bpf_link__destroy(run.iter);
	bpf_link__destroy(run.holder_iter);
	ring_buffer__free(run.rb);
	if (windows.direct)
		munmap((void *)windows.direct, DIRECT_BYTES);
	pksfault_bpf__destroy(run.skel);
	ksyms_free(env.ks);
	report_free_findings(&report);
	if (out != stdout && fclose(out) && ret != PKS_EXIT_ERROR) {
		fprintf(stderr, "pksfault: writing %s: %s\n", out_name, strerror(errno));
		ret = PKS_EXIT_ERROR;
	}
	return ret;
}
