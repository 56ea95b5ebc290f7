// SPDX-License-Identifier: GPL-2.0-only
/*
 * The project's own test hooks for device-memory protection: workloads,
 * benchmarks and provocations that its tools, benchmarks and harness use
 * and the kernel series does not carry (the series' own checks are in
 * lib/pks/).  Built out of tree against the series (tests/hooks/build.sh)
 * and loaded by the guest scripts on first use.  Through
 * /sys/kernel/debug/pks_hooks (root only): write one command, read back
 * one result line.  A command that takes PHYS holds a reference on the
 * page's dev_pagemap while it runs.
 *
 *   hold MS
 *	open a window and keep it open for MS milliseconds, as a leak would.
 *	-> "hold ms=MS depth=1"
 *
 *   unbalanced
 *	dev_access_disable() with no window open: reported once, the depth
 *	stays 0 and the key stays closed.
 *	-> "unbalanced depth=0 closed=Y"
 *
 *   windowbench N
 *	time N dev_access_enable()/dev_access_disable() pairs: two PKRS
 *	writes each while a protected pgmap exists; then N calls of
 *	nothing through the same loop, whose time per call every pair's
 *	includes (the pair alone is X - L).
 *	-> "windowbench pairs=N ns_per_pair=X.YY ns_loop=L.LL static_branch=0|1"
 *
 *   kmapbench N
 *	time N kmap_local_page()/kunmap_local() pairs on a DRAM page against
 *	N page_address() calls, which is all the pair is without protection,
 *	in rounds of alternating blocks, as the median of the rounds' ratios.
 *	-> "kmapbench pairs=N ns_per_pair=X.YY ns_per_page_address=X.YY
 *	    ratio=R.RRR static_branch=0|1"
 *
 *   irq PHYS
 *	with a window open on the protected page at PHYS, take an hrtimer
 *	interrupt, an IPI from another CPU and an NMI.  Each handler must
 *	run with the default PKRS and depth 0, fault on the page, succeed
 *	inside its own window, and leave the thread's window as it was.
 *	-> "irq hrtimer=PASS ipi=PASS nmi=PASS", or FAIL:<failed checks>
 *
 *   stress SECONDS PHYS
 *	a thread per CPU opens and closes windows nested 1-3 deep, checking
 *	the state and accessing the page at PHYS each time, while a 200 us
 *	hrtimer per CPU and cross-CPU IPIs check that handlers never see
 *	the window.  Blocks for SECONDS.
 *	-> "stress seconds=S cpus=C windows=W irq_checks=I ipis=P
 *	    mismatches=M unexpected_faults=U expected_faults=E"
 *
 *   windows DEPTH HZ SECONDS
 *	start a kthread "pks-windows" that HZ times a second opens DEPTH
 *	nested windows and closes them, for SECONDS: a known workload for
 *	the tools.  -> "windows tid=T depth=D hz=H seconds=S"
 *
 *   leak MS
 *	start a kthread "pks-leak" that opens a window and sleeps MS ms
 *	holding it: an idle thread with a leaked window, for the tools.
 *	-> "leak tid=T ms=MS"
 *
 *   threads
 *	every thread's window depth and saved PKRS, read under RCU: the
 *	check that no thread, running or not, was left with a window open
 *	or a key enabled.  The writer itself is at depth 0 here.
 *	-> "threads checked=N open=M" and, for up to 4 offenders,
 *	   " TID:COMM:depth=D:pkrs=0xX"
 *
 *   lockdep
 *	take two mutexes in one order, then in the other: lockdep must
 *	report a possible circular dependency (nothing can deadlock, one
 *	thread takes them).  The test harness must fail the run.
 *	-> "lockdep done"
 *
 *   flush PHYS
 *	write back the cache line at PHYS with no window open, as a path
 *	that forgot its window would: on PKS hardware CLWB faults, under
 *	QEMU it does not, and CONFIG_PKS_DEBUG must WARN.
 *	-> "flush done"
 *
 *   leakuser
 *	open a window and return to user space with it open: the exit to
 *	user space must report and close it.
 *	-> "leakuser depth=1"
 *
 *   softirq PHYS
 *	with a window open on the page at PHYS and bottom halves disabled,
 *	schedule a tasklet, then enable bottom halves: the tasklet runs
 *	right there, in this thread, and must see depth 0, the default
 *	PKRS and the page closed; the thread's window is intact after.
 *	-> "softirq ran=Y depth=0 pkrs=0x55555554 blocked=Y thread_depth=1
 *	    thread_open=Y"
 *
 *   relaxed PHYS
 *	in relaxed mode only (-EPERM otherwise), stray reads of the page at
 *	PHYS in each context that single-stepping treats specially: one
 *	load in an NMI handler and one in a #DB handler (a hardware
 *	breakpoint's, on its IST stack), both NMI-like and so refused (read
 *	nofault, they must fail); a REP MOVSB of the page in an hrtimer
 *	interrupt and in this thread (stepped: one trap per iteration); one
 *	load in this thread with the trap flag set by a stand-in debugger (a
 *	die notifier that owns its single-step traps, as kgdb does).  Each
 *	must return the page's data or be refused, find the key closed
 *	right after it, and leave the default PKRS; the debugger must keep
 *	its trap flag and its traps.
 *	-> "relaxed nmi=PASS db=PASS rep=PASS rep_irq=PASS tf=PASS", or
 *	   NAME=FAIL:<failed checks>
 *
 *   repwrite PHYS LEN
 *	a stray write of LEN bytes (at most a page) at PHYS with REP STOSB
 *	and no window, as memset() of a stray pointer does, then one 8-byte
 *	store 8 KiB past the page of PHYS, each fixed up if it faults, and
 *	whether the key was open right after each.  Both land in relaxed
 *	mode, each its own stray access, the key closed after each;
 *	block-writes and strict keep every byte off the namespace.
 *	-> "repwrite len=LEN faulted=Y|N open_after=Y|N store_faulted=Y|N
 *	    open_after_store=Y|N"
 *
 *   sgmiter PHYS
 *	an sg_mapping_iter over the 8 bytes at PHYS without SG_MITER_ATOMIC,
 *	which maps with kmap(): the iterator opens a window from
 *	sg_miter_next() to sg_miter_stop(), so the read through it succeeds
 *	(read nofault) at depth 1, and the key is closed after the stop.
 *	-> "sgmiter read=Y depth=1 closed=Y"
 *
 *   keyfree KEY
 *	pks_key_free(KEY) from this module: refused for a key this module
 *	did not allocate (the device-memory key, a key another module left
 *	behind), which stays allocated.  -> "keyfree key=KEY done"
 *
 *   icountloop N
 *	N iterations of a fixed loop of ICOUNTLOOP_INSNS instructions,
 *	interrupts off, timed with ktime_get_ns(): under vm/run.sh --icount
 *	the guest clock advances one nanosecond per instruction, so ns must
 *	be N * ICOUNTLOOP_INSNS (plus the timing's own few hundred).
 *	-> "icountloop iterations=N insns_per_iteration=4 ns=NS"
 *
 *   irqbench N
 *	time N self-interrupts (a hard irq_work, raised by IPI to this CPU,
 *	each waited for), first with no window open, then inside one: the
 *	second pays what entry and exit do for an interrupted thread that
 *	holds a key (the default PKRS on entry, the thread's back on exit).
 *	-> "irqbench n=N ns_per_irq=X.YY ns_per_irq_open=X.YY"
 *
 *   switchbench N
 *	time N round trips between this thread and a kthread on the same
 *	CPU (two context switches each, by completions), first with no
 *	window open, then with this thread holding one, so that every
 *	switch changes PKRS.
 *	-> "switchbench n=N ns_per_switch=X.YY ns_per_switch_open=X.YY"
 *
 * The module cannot be unloaded: the kthreads of "windows" and "leak"
 * may outlive the command that started them.
 */
#define pr_fmt(fmt) "pks_hooks: " fmt

#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/hw_breakpoint.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/io.h>
#include <linux/kdebug.h>
#include <linux/kthread.h>
#include <linux/libnvdimm.h>
#include <linux/ktime.h>
#include <linux/memremap.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pkeys.h>
#include <linux/pks.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <asm/apic.h>
#include <asm/asm.h>
#include <asm/debugreg.h>
#include <asm/nmi.h>
#include <asm/pks.h>

static DEFINE_MUTEX(result_lock);
static char result[384];

/* The range must be mapped in the direct map under the device key. */
static bool range_is_protected(phys_addr_t phys, u64 len)
{
	phys_addr_t p;

	if (!len || phys + len < phys)
		return false;
	for (p = phys & PAGE_MASK; p < phys + len; p += PAGE_SIZE) {
		if (!pfn_valid(PHYS_PFN(p)) ||
		    !page_is_access_protected(pfn_to_page(PHYS_PFN(p))))
			return false;
	}
	return true;
}

static bool key_open(void)
{
	u32 bits = current->thread.saved_pkrs >>
		   (dev_access_pkey() * PKR_BITS_PER_PKEY);

	return !(bits & (PKR_AD_BIT | PKR_WD_BIT));
}

static int run_hold(unsigned int ms)
{
	unsigned int depth;

	dev_access_enable();
	depth = current->dev_page_access_ref;
	msleep_interruptible(ms);
	dev_access_disable();
	scnprintf(result, sizeof(result), "hold ms=%u depth=%u\n", ms, depth);
	return 0;
}

static int run_unbalanced(void)
{
	dev_access_disable();
	scnprintf(result, sizeof(result), "unbalanced depth=%u closed=%c\n",
		  current->dev_page_access_ref, key_open() ? 'N' : 'Y');
	return 0;
}

static void kmap_pair(struct page *page)
{
	void *kaddr = kmap_local_page(page);

	/* The address is used, as a caller's would be: keep it computed. */
	barrier_data(kaddr);
	kunmap_local(kaddr);
}

/* kmap_pair() without protection: page_address(), and nothing to undo. */
static void page_address_only(struct page *page)
{
	void *kaddr = page_address(page);

	barrier_data(kaddr);
}

static void window_pair(struct page *page)
{
	dev_access_enable();
	dev_access_disable();
}

/* The timing loop and its call alone: what each pair's figure includes. */
static void no_pair(struct page *page)
{
	barrier_data(page);
}

/* Nanoseconds for @n calls of @fn on @page, preemption disabled. */
static noinline u64 time_calls(void (*fn)(struct page *), struct page *page,
			       unsigned int n)
{
	unsigned int i;
	u64 start, ns;

	/* Each side calls through the same pointer: inline neither. */
	OPTIMIZER_HIDE_VAR(fn);
	preempt_disable();
	start = ktime_get_ns();
	for (i = 0; i < n; i++)
		fn(page);
	ns = ktime_get_ns() - start;
	preempt_enable();
	return ns;
}

/* Hundredths of a nanosecond per call, for "%llu.%02llu". */
static u64 centi_ns_per_call(u64 ns, unsigned int n)
{
	return div_u64(ns * 100, n);
}

/*
 * Time @n calls of @fn on a DRAM page, then @n calls of nothing through
 * the same loop; result line "NAME pairs=N ns_per_pair=X ns_loop=L":
 * the pair itself is X - L.
 */
static int run_bench(const char *name, void (*fn)(struct page *),
		     unsigned int n)
{
	struct page *page = alloc_page(GFP_KERNEL);
	u64 cns, cns_loop;

	if (!page)
		return -ENOMEM;
	cns = centi_ns_per_call(time_calls(fn, page, n), n);
	cns_loop = centi_ns_per_call(time_calls(no_pair, page, n), n);
	__free_page(page);

	scnprintf(result, sizeof(result),
		  "%s pairs=%u ns_per_pair=%llu.%02llu ns_loop=%llu.%02llu static_branch=%d\n",
		  name, n, cns / 100, cns % 100, cns_loop / 100, cns_loop % 100,
		  static_branch_unlikely(&dev_protection_static_key) ? 1 : 0);
	return 0;
}

#define KMAPBENCH_BLOCK 10000
/* Where "repwrite" stores once more, past the page it REP-writes */
#define REPWRITE_NEXT	(2 * PAGE_SIZE)

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Under TCG the host's speed changes by a factor of two within seconds,
 * and the host preempts the vCPU for milliseconds at a time: time the
 * pairs and page_address() in rounds of alternating blocks, each side
 * first in turn, and take the median of the rounds' ratios, which a
 * round that lost the CPU does not move.
 */
static int run_kmapbench(unsigned int n)
{
	unsigned int rounds = DIV_ROUND_UP(n, KMAPBENCH_BLOCK), r, block;
	u64 pair_ns = 0, addr_ns = 0, pair_cns, addr_cns;
	u64 round_pair_ns, round_addr_ns;
	struct page *page;
	u32 *ratios;

	ratios = kmalloc_array(rounds, sizeof(*ratios), GFP_KERNEL);
	page = alloc_page(GFP_KERNEL);
	if (!ratios || !page) {
		kfree(ratios);
		if (page)
			__free_page(page);
		return -ENOMEM;
	}
	for (r = 0; r < rounds; r++) {
		block = min(n - r * KMAPBENCH_BLOCK, KMAPBENCH_BLOCK);
		round_pair_ns = time_calls(kmap_pair, page, block);
		round_addr_ns = time_calls(page_address_only, page, block);
		round_addr_ns += time_calls(page_address_only, page, block);
		round_pair_ns += time_calls(kmap_pair, page, block);
		ratios[r] = div64_u64(round_pair_ns * 1000,
				      max(round_addr_ns, 1ULL));
		pair_ns += round_pair_ns;
		addr_ns += round_addr_ns;
		cond_resched();
	}
	__free_page(page);
	sort(ratios, rounds, sizeof(*ratios), cmp_u32, NULL);

	pair_cns = centi_ns_per_call(pair_ns, 2 * n);
	addr_cns = centi_ns_per_call(addr_ns, 2 * n);
	scnprintf(result, sizeof(result),
		  "kmapbench pairs=%u ns_per_pair=%llu.%02llu ns_per_page_address=%llu.%02llu ratio=%u.%03u static_branch=%d\n",
		  n, pair_cns / 100, pair_cns % 100, addr_cns / 100,
		  addr_cns % 100, ratios[rounds / 2] / 1000,
		  ratios[rounds / 2] % 1000,
		  static_branch_unlikely(&dev_protection_static_key) ? 1 : 0);
	kfree(ratios);
	return 0;
}

/* PKRS as the MSR has it: what accesses on this CPU are checked against. */
static u32 pkrs_now(void)
{
	u64 msr;

	rdmsrl(MSR_IA32_PKRS, msr);
	return msr;
}

/* The state an interrupt handler must see, whatever it interrupted. */
static bool handler_state_default(void)
{
	return pkrs_now() == PKRS_INIT_VALUE &&
	       current->thread.saved_pkrs == PKRS_INIT_VALUE &&
	       current->dev_page_access_ref == 0;
}

static bool page_readable(phys_addr_t phys)
{
	u64 val;

	return !copy_from_kernel_nofault(&val, __va(phys), sizeof(val));
}

/* What one interrupt handler found; see "irq" above. */
struct irq_probe {
	phys_addr_t	phys;
	bool		ran;
	bool		default_state;
	bool		blocked;
	bool		own_window;
	bool		closed_again;
};

static void irq_probe_run(struct irq_probe *p)
{
	p->default_state = handler_state_default();
	p->blocked = !page_readable(p->phys);
	dev_access_enable();
	p->own_window = page_readable(p->phys);
	dev_access_disable();
	p->closed_again = handler_state_default();
	/* Publish the results before the flag the waiter polls. */
	smp_store_release(&p->ran, true);
}

/* Wait, with interrupts on (and a window open, for some), for a handler. */
static bool wait_flag(bool *done)
{
	u64 deadline = ktime_get_ns() + 2 * NSEC_PER_SEC;

	/* Pairs with the handler's release: its results are read after. */
	while (!smp_load_acquire(done)) {
		if (ktime_get_ns() > deadline)
			return false;
		cpu_relax();
	}
	return true;
}

static bool irq_probe_wait(struct irq_probe *p)
{
	return wait_flag(&p->ran);
}

/* A function to run in interrupt context, and the flag it sets when done */
struct irq_call {
	void		(*fn)(void *arg);
	void		*arg;
	bool		*done;
};

struct call_timer {
	struct hrtimer		timer;
	const struct irq_call	*call;
};

static enum hrtimer_restart call_timer_fn(struct hrtimer *timer)
{
	const struct irq_call *call = container_of(timer, struct call_timer,
						   timer)->call;

	call->fn(call->arg);
	return HRTIMER_NORESTART;
}

/* Run @call in a hard-interrupt hrtimer on this CPU and wait for it. */
static void call_by_hrtimer(const struct irq_call *call)
{
	struct call_timer t = { .call = call };

	hrtimer_init_on_stack(&t.timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	t.timer.function = call_timer_fn;
	hrtimer_start(&t.timer, ns_to_ktime(100 * NSEC_PER_USEC), HRTIMER_MODE_REL_PINNED_HARD);
	wait_flag(call->done);
	hrtimer_cancel(&t.timer);
	destroy_hrtimer_on_stack(&t.timer);
}

static void irq_probe_call(void *arg)
{
	irq_probe_run(arg);
}

static void probe_by_hrtimer(struct irq_probe *p)
{
	struct irq_call call = { irq_probe_call, p, &p->ran };

	call_by_hrtimer(&call);
}

struct probe_ipi {
	struct work_struct	work;
	int			target;
	struct irq_probe	*probe;
};

static void probe_ipi_fn(void *info)
{
	irq_probe_run(info);
}

/* Runs on another CPU and interrupts the one holding the window. */
static void probe_ipi_send(struct work_struct *work)
{
	struct probe_ipi *ipi = container_of(work, struct probe_ipi, work);

	smp_call_function_single(ipi->target, probe_ipi_fn, ipi->probe, 1);
}

static bool probe_by_ipi(struct irq_probe *p)
{
	struct probe_ipi ipi = { .target = smp_processor_id(), .probe = p };
	int other = cpumask_any_but(cpu_online_mask, ipi.target);

	if (other >= nr_cpu_ids)
		return false;
	INIT_WORK_ONSTACK(&ipi.work, probe_ipi_send);
	queue_work_on(other, system_highpri_wq, &ipi.work);
	irq_probe_wait(p);
	/* The window holder must not sleep: flush once the handler ran. */
	preempt_enable();
	flush_work(&ipi.work);
	preempt_disable();
	destroy_work_on_stack(&ipi.work);
	return true;
}

static const struct irq_call *nmi_call;

static int call_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	const struct irq_call *call = xchg(&nmi_call, NULL);

	if (!call)
		return NMI_DONE;
	call->fn(call->arg);
	return NMI_HANDLED;
}

/*
 * Run @call in an NMI on this CPU and wait for it.  The caller registers
 * call_nmi_handler() around this (unregistering sleeps).
 */
static void call_by_nmi(const struct irq_call *call)
{
	WRITE_ONCE(nmi_call, call);
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	wait_flag(call->done);
	WRITE_ONCE(nmi_call, NULL);
}

static void probe_by_nmi(struct irq_probe *p)
{
	struct irq_call call = { irq_probe_call, p, &p->ran };

	call_by_nmi(&call);
}

/* Appends "NAME=PASS" or "NAME=FAIL:<checks that failed>" to @buf. */
static int irq_probe_report(char *buf, size_t len, const char *name,
			    const struct irq_probe *p, bool thread_intact)
{
	bool pass = p->ran && p->default_state && p->blocked &&
		    p->own_window && p->closed_again && thread_intact;

	if (pass)
		return scnprintf(buf, len, " %s=PASS", name);
	return scnprintf(buf, len, " %s=FAIL:%s%s%s%s%s%s", name,
			 p->ran ? "" : "not_run,",
			 p->default_state ? "" : "window_inherited,",
			 p->blocked ? "" : "not_blocked,",
			 p->own_window ? "" : "own_window_failed,",
			 p->closed_again ? "" : "own_window_left_open,",
			 thread_intact ? "" : "thread_window_changed");
}

/* The window opened by run_irq(): depth 1, key open, page readable. */
static bool thread_window_intact(phys_addr_t phys, u32 window_pkrs)
{
	return current->dev_page_access_ref == 1 &&
	       current->thread.saved_pkrs == window_pkrs &&
	       pkrs_now() == window_pkrs && page_readable(phys);
}

static int run_irq(phys_addr_t phys)
{
	struct irq_probe timer = { .phys = phys }, ipi = { .phys = phys },
			 nmi = { .phys = phys };
	bool timer_ok, ipi_ok, nmi_ok, have_ipi, have_nmi;
	u32 window_pkrs;
	size_t n;

	if (!range_is_protected(phys, PAGE_SIZE))
		return -EINVAL;
	have_nmi = !register_nmi_handler(NMI_LOCAL, call_nmi_handler, 0,
					 "pks_hooks");

	preempt_disable();
	dev_access_enable();
	window_pkrs = current->thread.saved_pkrs;

	probe_by_hrtimer(&timer);
	timer_ok = thread_window_intact(phys, window_pkrs);
	have_ipi = probe_by_ipi(&ipi);
	ipi_ok = thread_window_intact(phys, window_pkrs);
	if (have_nmi)
		probe_by_nmi(&nmi);
	nmi_ok = thread_window_intact(phys, window_pkrs);

	dev_access_disable();
	preempt_enable();
	if (have_nmi)
		unregister_nmi_handler(NMI_LOCAL, "pks_hooks");

	n = scnprintf(result, sizeof(result), "irq");
	n += irq_probe_report(result + n, sizeof(result) - n, "hrtimer",
			      &timer, timer_ok);
	if (have_ipi)
		n += irq_probe_report(result + n, sizeof(result) - n, "ipi",
				      &ipi, ipi_ok);
	else
		n += scnprintf(result + n, sizeof(result) - n, " ipi=FAIL:one_cpu");
	n += irq_probe_report(result + n, sizeof(result) - n, "nmi", &nmi,
			      nmi_ok);
	scnprintf(result + n, sizeof(result) - n, "\n");
	return 0;
}

/* ---- relaxed mode: each stray access stepped, or refused ---- */

/* Whether @pkrs lets the device-memory key be accessed at all */
static bool pkrs_key_open(u32 pkrs)
{
	return !((pkrs >> (dev_access_pkey() * PKR_BITS_PER_PKEY)) & PKR_AD_BIT);
}

/* One copy of @len bytes done by a single REP MOVSB instruction */
static void rep_movsb(void *dst, const void *src, size_t len)
{
	asm volatile("rep movsb"
		     : "+D" (dst), "+S" (src), "+c" (len)
		     : : "memory");
}

/* A stray read of a protected page, made in some context; see "relaxed" */
struct stray_read {
	const void	*src;		/* the protected page */
	const u8	*expect;	/* its contents, read inside a window */
	u8		*buf;		/* PAGE_SIZE bytes */
	bool		rep;		/* a REP MOVSB of the page, or one load */
	bool		refuse;		/* must be refused: read it nofault */
	bool		ran;
	bool		data_ok;	/* got the page's data, or was refused */
	bool		open_after;	/* the key was still open right after */
};

static void stray_read_run(void *arg)
{
	struct stray_read *r = arg;

	if (r->refuse) {
		r->data_ok = copy_from_kernel_nofault(r->buf, r->src,
						      sizeof(u64)) == -EFAULT;
	} else if (r->rep) {
		rep_movsb(r->buf, r->src, PAGE_SIZE);
		r->data_ok = !memcmp(r->buf, r->expect, PAGE_SIZE);
	} else {
		r->data_ok = READ_ONCE(*(const u64 *)r->src) ==
			     *(const u64 *)r->expect;
	}
	r->open_after = pkrs_key_open(pkrs_now());
	/* Publish the results before the flag the waiter polls. */
	smp_store_release(&r->ran, true);
}

/* Appends "NAME=PASS" or "NAME=FAIL:<checks that failed>" to @buf. */
static int stray_read_report(char *buf, size_t len, const char *name,
			     const struct stray_read *r, bool restored)
{
	if (r->ran && r->data_ok && !r->open_after && restored)
		return scnprintf(buf, len, " %s=PASS", name);
	return scnprintf(buf, len, " %s=FAIL:%s%s%s%s", name,
			 r->ran ? "" : "not_run,",
			 r->data_ok ? "" : r->refuse ? "not_refused," :
						       "wrong_data,",
			 r->open_after ? "left_open," : "",
			 restored ? "" : "not_restored");
}

/* The word the #DB probe watches, and what its breakpoint handler runs */
static u32 db_watched;
static const struct irq_call *db_call;

static void call_db_handler(struct perf_event *bp, struct perf_sample_data *data,
			    struct pt_regs *regs)
{
	const struct irq_call *call = xchg(&db_call, NULL);

	if (call)
		call->fn(call->arg);
}

/*
 * Run @call in a #DB handler on this CPU: a data breakpoint on a word,
 * hit by a write from here.  The #DB runs before the write's next
 * instruction, on its IST stack, in NMI-like context.  Returns false if
 * no breakpoint could be set.
 */
static bool call_by_db(const struct irq_call *call)
{
	struct perf_event * __percpu *bp;
	struct perf_event_attr attr;

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&db_watched;
	attr.bp_len = HW_BREAKPOINT_LEN_4;
	attr.bp_type = HW_BREAKPOINT_W;
	bp = register_wide_hw_breakpoint(&attr, call_db_handler, NULL);
	if (IS_ERR(bp))
		return false;
	WRITE_ONCE(db_call, call);
	WRITE_ONCE(db_watched, db_watched + 1);
	WRITE_ONCE(db_call, NULL);
	unregister_wide_hw_breakpoint(bp);
	return true;
}

/*
 * A stand-in for kgdb stepping this thread: it owns the single-step traps
 * of the thread it is armed for, and counts them.
 */
static struct task_struct *stepper_task;
static unsigned int stepper_traps;

static int stepper_notify(struct notifier_block *nb, unsigned long val,
			  void *data)
{
	struct die_args *args = data;
	unsigned long *dr6 = (unsigned long *)args->err;

	if (val != DIE_DEBUG || READ_ONCE(stepper_task) != current ||
	    !(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	stepper_traps++;
	*dr6 &= ~DR_STEP;
	return NOTIFY_STOP;
}

static struct notifier_block stepper_nb = {
	.notifier_call = stepper_notify,
};

/*
 * One stray load with the trap flag already set, as under a debugger
 * stepping this code.  The step stays the debugger's: the key is closed
 * at its #DB, which it still gets, and the trap flag is still set after
 * the load.  Returns whether it was.
 */
static noinline bool stepped_read(struct stray_read *r)
{
	unsigned long flags;

	asm volatile("pushf\n\torq $0x100, (%%rsp)\n\tpopf" ::: "memory", "cc");
	r->data_ok = READ_ONCE(*(const u64 *)r->src) == *(const u64 *)r->expect;
	r->open_after = pkrs_key_open(pkrs_now());
	flags = native_save_fl();
	asm volatile("pushf\n\tandq $~0x100, (%%rsp)\n\tpopf" ::: "memory", "cc");
	r->ran = true;
	return flags & X86_EFLAGS_TF;
}

static bool run_stepped_read(struct stray_read *r)
{
	bool tf_kept;

	if (register_die_notifier(&stepper_nb))
		return false;
	stepper_traps = 0;
	preempt_disable();	/* never schedule with the trap flag set */
	WRITE_ONCE(stepper_task, current);
	tf_kept = stepped_read(r);
	WRITE_ONCE(stepper_task, NULL);
	preempt_enable();
	unregister_die_notifier(&stepper_nb);
	return tf_kept && stepper_traps && handler_state_default();
}

static int run_relaxed(phys_addr_t phys)
{
	struct stray_read nmi = {}, db = {}, rep = {}, rep_irq = {}, tf = {};
	struct irq_call call;
	bool nmi_ok = false, db_ok = false, rep_ok, rep_irq_ok, tf_ok;
	u8 *expect, *bufs;
	size_t n;
	int rc = -ENOMEM;

	phys &= PAGE_MASK;
	if (!range_is_protected(phys, PAGE_SIZE))
		return -EINVAL;
	/* In strict mode the reads below would oops: refuse, by trying one. */
	if (!page_readable(phys))
		return -EPERM;

	expect = kmalloc(PAGE_SIZE, GFP_KERNEL);
	bufs = kcalloc(3, PAGE_SIZE, GFP_KERNEL);
	if (!expect || !bufs)
		goto out;
	dev_access_enable();
	memcpy(expect, __va(phys), PAGE_SIZE);
	dev_access_disable();
	nmi = (struct stray_read){ __va(phys), expect, bufs, .refuse = true };
	db = (struct stray_read){ __va(phys), expect, bufs, .refuse = true };
	rep = (struct stray_read){ __va(phys), expect, bufs + PAGE_SIZE, true };
	rep_irq = (struct stray_read){ __va(phys), expect,
				       bufs + 2 * PAGE_SIZE, true };
	tf = (struct stray_read){ __va(phys), expect, bufs, false };

	if (!register_nmi_handler(NMI_LOCAL, call_nmi_handler, 0,
				  "pks_hooks")) {
		preempt_disable();
		call = (struct irq_call){ stray_read_run, &nmi, &nmi.ran };
		call_by_nmi(&call);
		nmi_ok = handler_state_default();
		preempt_enable();
		unregister_nmi_handler(NMI_LOCAL, "pks_hooks");
	}

	tf_ok = run_stepped_read(&tf);

	/* Migration would move the write away from where it was checked. */
	migrate_disable();
	call = (struct irq_call){ stray_read_run, &db, &db.ran };
	if (call_by_db(&call))
		db_ok = handler_state_default();
	migrate_enable();

	preempt_disable();
	call = (struct irq_call){ stray_read_run, &rep_irq, &rep_irq.ran };
	call_by_hrtimer(&call);
	rep_irq_ok = handler_state_default();
	preempt_enable();

	stray_read_run(&rep);
	rep_ok = handler_state_default();

	n = scnprintf(result, sizeof(result), "relaxed");
	n += stray_read_report(result + n, sizeof(result) - n, "nmi", &nmi,
			       nmi_ok);
	n += stray_read_report(result + n, sizeof(result) - n, "db", &db,
			       db_ok);
	n += stray_read_report(result + n, sizeof(result) - n, "rep", &rep,
			       rep_ok);
	n += stray_read_report(result + n, sizeof(result) - n, "rep_irq",
			       &rep_irq, rep_irq_ok);
	n += stray_read_report(result + n, sizeof(result) - n, "tf", &tf,
			       tf_ok);
	scnprintf(result + n, sizeof(result) - n, "\n");
	rc = 0;
out:
	kfree(bufs);
	kfree(expect);
	return rc;
}

/* ---- stress: windows toggled under a high interrupt rate ---- */

static struct {
	phys_addr_t	phys;
	u64		deadline;
	atomic64_t	windows;
	atomic64_t	irq_checks;
	atomic64_t	ipis;
	atomic64_t	mismatches;
	atomic64_t	unexpected_faults;
	atomic64_t	expected_faults;
} stress;

#define STRESS_TIMER_NS		(200 * NSEC_PER_USEC)

/* A handler's view: never the interrupted thread's window. */
static void stress_check_handler(bool access)
{
	atomic64_inc(&stress.irq_checks);
	if (!handler_state_default()) {
		atomic64_inc(&stress.mismatches);
		return;
	}
	if (!access)
		return;
	if (page_readable(stress.phys))
		atomic64_inc(&stress.mismatches);
	else
		atomic64_inc(&stress.expected_faults);
	dev_access_enable();
	if (!page_readable(stress.phys))
		atomic64_inc(&stress.unexpected_faults);
	dev_access_disable();
}

static DEFINE_PER_CPU(unsigned int, stress_ticks);

static enum hrtimer_restart stress_timer_fn(struct hrtimer *timer)
{
	/* Touch the page on one tick in 16: faults are slow under TCG. */
	stress_check_handler(!(this_cpu_inc_return(stress_ticks) % 16));
	if (ktime_get_ns() > stress.deadline)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(STRESS_TIMER_NS));
	return HRTIMER_RESTART;
}

static void stress_ipi_fn(void *unused)
{
	atomic64_inc(&stress.ipis);
	stress_check_handler(true);
}

/*
 * copy_to_kernel_nofault() without the export it lacks in 6.1: an 8-byte
 * store that a fault turns into a false return.
 */
static bool store_nofault(void *dst, u64 val)
{
	pagefault_disable();
	__put_kernel_nofault(dst, &val, u64, fault);
	pagefault_enable();
	return true;
fault:
	pagefault_enable();
	return false;
}

/* One window nested @depth deep, checked at each level. */
static void stress_one_window(unsigned int depth)
{
	unsigned int i;
	u64 val;

	for (i = 1; i <= depth; i++) {
		dev_access_enable();
		if (current->dev_page_access_ref != i)
			atomic64_inc(&stress.mismatches);
	}
	/* Read and write back: the data never changes. */
	if (copy_from_kernel_nofault(&val, __va(stress.phys), sizeof(val)) ||
	    !store_nofault(__va(stress.phys), val))
		atomic64_inc(&stress.unexpected_faults);
	for (i = depth; i > 0; i--)
		dev_access_disable();
	if (current->dev_page_access_ref ||
	    current->thread.saved_pkrs != PKRS_INIT_VALUE)
		atomic64_inc(&stress.mismatches);
	atomic64_inc(&stress.windows);
}

static int stress_thread(void *done)
{
	struct hrtimer timer;
	unsigned long iter = 0;
	int other;

	hrtimer_init_on_stack(&timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
	timer.function = stress_timer_fn;
	hrtimer_start(&timer, ns_to_ktime(STRESS_TIMER_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);

	while (ktime_get_ns() < stress.deadline) {
		stress_one_window(1 + iter % 3);
		if (!(iter % 8)) {
			if (page_readable(stress.phys))
				atomic64_inc(&stress.mismatches);
			else
				atomic64_inc(&stress.expected_faults);
		}
		other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
		if (!(iter % 128) && other < nr_cpu_ids)
			smp_call_function_single(other, stress_ipi_fn, NULL, 1);
		iter++;
		cond_resched();
	}

	hrtimer_cancel(&timer);
	destroy_hrtimer_on_stack(&timer);
	complete(done);
	return 0;
}

static int run_stress(unsigned int seconds, phys_addr_t phys)
{
	struct completion *done;
	unsigned int cpu, ncpus = 0;
	struct task_struct *t;

	if (!range_is_protected(phys, PAGE_SIZE))
		return -EINVAL;
	done = kcalloc(nr_cpu_ids, sizeof(*done), GFP_KERNEL);
	if (!done)
		return -ENOMEM;

	stress.phys = phys;
	stress.deadline = ktime_get_ns() + (u64)seconds * NSEC_PER_SEC;
	atomic64_set(&stress.windows, 0);
	atomic64_set(&stress.irq_checks, 0);
	atomic64_set(&stress.ipis, 0);
	atomic64_set(&stress.mismatches, 0);
	atomic64_set(&stress.unexpected_faults, 0);
	atomic64_set(&stress.expected_faults, 0);

	/*
	 * No cpus_read_lock(): make stress takes CPUs offline meanwhile.  A
	 * thread whose CPU goes away runs on elsewhere, and so does its
	 * timer.  CPUs without a thread complete their entry at once.
	 */
	for_each_possible_cpu(cpu) {
		init_completion(&done[cpu]);
		t = NULL;
		if (cpu_online(cpu))
			t = kthread_create_on_cpu(stress_thread, &done[cpu], cpu,
						  "pks-stress/%u");
		if (IS_ERR_OR_NULL(t)) {
			complete(&done[cpu]);
			continue;
		}
		wake_up_process(t);
		ncpus++;
	}
	for_each_possible_cpu(cpu)
		wait_for_completion(&done[cpu]);
	kfree(done);

	scnprintf(result, sizeof(result),
		  "stress seconds=%u cpus=%u windows=%lld irq_checks=%lld ipis=%lld mismatches=%lld unexpected_faults=%lld expected_faults=%lld\n",
		  seconds, ncpus, atomic64_read(&stress.windows),
		  atomic64_read(&stress.irq_checks), atomic64_read(&stress.ipis),
		  atomic64_read(&stress.mismatches),
		  atomic64_read(&stress.unexpected_faults),
		  atomic64_read(&stress.expected_faults));
	return 0;
}

/* ---- known workloads for pkstop and pksfault ---- */

struct windows_args {
	unsigned int	depth;
	unsigned int	hz;
	unsigned int	seconds;
};

static int windows_thread(void *data)
{
	struct windows_args args = *(struct windows_args *)data;
	ktime_t next = ktime_get(), end;
	u64 period = NSEC_PER_SEC / args.hz;
	unsigned int i;

	kfree(data);
	end = ktime_add_ns(next, (u64)args.seconds * NSEC_PER_SEC);
	while (ktime_before(next, end)) {
		for (i = 0; i < args.depth; i++)
			dev_access_enable();
		for (i = 0; i < args.depth; i++)
			dev_access_disable();
		/* Absolute deadlines: the rate does not drift with overhead. */
		next = ktime_add_ns(next, period);
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
	}
	return 0;
}

static int run_windows(unsigned int depth, unsigned int hz,
		       unsigned int seconds)
{
	struct windows_args *args = kmalloc(sizeof(*args), GFP_KERNEL);
	struct task_struct *t;

	if (!args)
		return -ENOMEM;
	*args = (struct windows_args){ depth, hz, seconds };
	t = kthread_run(windows_thread, args, "pks-windows");
	if (IS_ERR(t)) {
		kfree(args);
		return PTR_ERR(t);
	}
	scnprintf(result, sizeof(result),
		  "windows tid=%d depth=%u hz=%u seconds=%u\n",
		  task_pid_nr(t), depth, hz, seconds);
	return 0;
}

static int leak_thread(void *data)
{
	unsigned long ms = (unsigned long)data;

	dev_access_enable();
	msleep(ms);
	dev_access_disable();
	return 0;
}

static int run_leak(unsigned int ms)
{
	struct task_struct *t;

	t = kthread_run(leak_thread, (void *)(unsigned long)ms, "pks-leak");
	if (IS_ERR(t))
		return PTR_ERR(t);
	scnprintf(result, sizeof(result), "leak tid=%d ms=%u\n",
		  task_pid_nr(t), ms);
	return 0;
}

/* Up to 4 threads with a window or a key open; under result_lock. */
static char offenders[256];

static int run_threads(void)
{
	struct task_struct *p, *t;
	unsigned int checked = 0, open = 0;
	size_t len = 0;

	offenders[0] = '\0';
	rcu_read_lock();
	for_each_process_thread(p, t) {
		unsigned int depth = READ_ONCE(t->dev_page_access_ref);
		u32 pkrs = READ_ONCE(t->thread.saved_pkrs);

		checked++;
		if (!depth && pkrs == PKRS_INIT_VALUE)
			continue;
		if (++open <= 4)
			len += scnprintf(offenders + len, sizeof(offenders) - len,
					 " %d:%s:depth=%u:pkrs=%#x",
					 task_pid_nr(t), t->comm, depth, pkrs);
	}
	rcu_read_unlock();
	scnprintf(result, sizeof(result), "threads checked=%u open=%u%s\n",
		  checked, open, offenders);
	return 0;
}

static DEFINE_MUTEX(lockdep_a);
static DEFINE_MUTEX(lockdep_b);

static int run_lockdep(void)
{
	mutex_lock(&lockdep_a);
	mutex_lock(&lockdep_b);
	mutex_unlock(&lockdep_b);
	mutex_unlock(&lockdep_a);
	/* The inverse order: a possible AB-BA deadlock for lockdep. */
	mutex_lock(&lockdep_b);
	mutex_lock(&lockdep_a);
	mutex_unlock(&lockdep_a);
	mutex_unlock(&lockdep_b);
	scnprintf(result, sizeof(result), "lockdep done\n");
	return 0;
}

static int run_flush(phys_addr_t phys)
{
	if (!range_is_protected(phys, 1))
		return -EINVAL;
	arch_wb_cache_pmem(__va(phys), L1_CACHE_BYTES);
	scnprintf(result, sizeof(result), "flush done\n");
	return 0;
}

static int run_leakuser(void)
{
	dev_access_enable();
	scnprintf(result, sizeof(result), "leakuser depth=%u\n",
		  current->dev_page_access_ref);
	return 0;
}

static struct {
	phys_addr_t phys;
	bool ran, blocked;
	unsigned int depth;
	u32 pkrs;
} softirq_seen;

static void softirq_probe(struct tasklet_struct *t)
{
	softirq_seen.ran = true;
	softirq_seen.depth = current->dev_page_access_ref;
	softirq_seen.pkrs = pkrs_now();
	softirq_seen.blocked = !page_readable(softirq_seen.phys);
}

static int run_softirq(phys_addr_t phys)
{
	struct tasklet_struct t;
	unsigned int depth;
	bool open;

	if (!range_is_protected(phys, 1))
		return -EINVAL;
	memset(&softirq_seen, 0, sizeof(softirq_seen));
	softirq_seen.phys = phys;
	tasklet_setup(&t, softirq_probe);

	dev_access_enable();
	local_bh_disable();
	tasklet_schedule(&t);
	/* Runs the tasklet here, in this thread: no interrupt entry. */
	local_bh_enable();
	depth = current->dev_page_access_ref;
	open = key_open();
	dev_access_disable();
	/* Had it not run yet (ksoftirqd), wait for it before t goes away. */
	tasklet_kill(&t);

	scnprintf(result, sizeof(result),
		  "softirq ran=%c depth=%u pkrs=%#010x blocked=%c thread_depth=%u thread_open=%c\n",
		  softirq_seen.ran ? 'Y' : 'N', softirq_seen.depth,
		  softirq_seen.pkrs, softirq_seen.blocked ? 'Y' : 'N', depth,
		  open ? 'Y' : 'N');
	return 0;
}

/* REP STOSB of @len bytes of @c at @dst; false if it faulted (fixed up) */
static bool rep_stosb_nofault(void *dst, int c, size_t len)
{
	bool faulted = true;

	asm volatile("1:	rep stosb\n"
		     "	movb $0, %[faulted]\n"
		     "2:\n"
		     _ASM_EXTABLE(1b, 2b)
		     : "+D" (dst), "+c" (len), [faulted] "+m" (faulted)
		     : "a" (c)
		     : "memory");
	return !faulted;
}

/*
 * memset() through a stray pointer, then one more stray store further on,
 * as a bug that wrote past the end would: each is a stray access of its
 * own, and the key must be closed again right after each.
 */
static int run_repwrite(phys_addr_t phys, unsigned int len)
{
	phys_addr_t next = (phys & PAGE_MASK) + REPWRITE_NEXT;
	bool ok, open_after, stored, open_after_store;

	if (!len || len > PAGE_SIZE - offset_in_page(phys) ||
	    !range_is_protected(next, sizeof(u64)))
		return -EINVAL;
	ok = rep_stosb_nofault(__va(phys), 0x5a, len);
	open_after = pkrs_key_open(pkrs_now());
	stored = store_nofault(__va(next), 0x5a5a5a5a5a5a5a5aULL);
	open_after_store = pkrs_key_open(pkrs_now());
	scnprintf(result, sizeof(result),
		  "repwrite len=%u faulted=%c open_after=%c store_faulted=%c open_after_store=%c\n",
		  len, ok ? 'N' : 'Y', open_after ? 'Y' : 'N',
		  stored ? 'N' : 'Y', open_after_store ? 'Y' : 'N');
	return 0;
}

static int run_sgmiter(phys_addr_t phys)
{
	struct sg_mapping_iter miter;
	struct scatterlist sg;
	unsigned int depth = 0;
	bool read = false;
	u64 val;

	sg_init_table(&sg, 1);
	sg_set_page(&sg, pfn_to_page(PHYS_PFN(phys)), sizeof(val),
		    offset_in_page(phys));
	sg_miter_start(&miter, &sg, 1, SG_MITER_FROM_SG);
	if (sg_miter_next(&miter)) {
		read = !copy_from_kernel_nofault(&val, miter.addr, sizeof(val));
		depth = current->dev_page_access_ref;
	}
	sg_miter_stop(&miter);
	scnprintf(result, sizeof(result), "sgmiter read=%c depth=%u closed=%c\n",
		  read ? 'Y' : 'N', depth,
		  handler_state_default() ? 'Y' : 'N');
	return 0;
}

static int run_keyfree(int pkey)
{
	pks_key_free(pkey);
	scnprintf(result, sizeof(result), "keyfree key=%d done\n", pkey);
	return 0;
}

/*
 * The loop is inline asm so that no compiler can change its length: add,
 * xor, dec, jnz, ICOUNTLOOP_INSNS per iteration.  Interrupts are off so
 * that no handler's instructions land in the count.
 */
#define ICOUNTLOOP_INSNS	4

static int run_icountloop(unsigned int n)
{
	unsigned long acc = 0, mix = 0, left = n, flags;
	u64 start, ns;

	local_irq_save(flags);
	start = ktime_get_ns();
	asm volatile("1:	add %[step], %[acc]\n"
		     "	xor %[acc], %[mix]\n"
		     "	dec %[left]\n"
		     "	jnz 1b\n"
		     : [acc] "+r" (acc), [mix] "+r" (mix), [left] "+r" (left)
		     : [step] "r" (3UL)
		     : "cc");
	ns = ktime_get_ns() - start;
	local_irq_restore(flags);
	scnprintf(result, sizeof(result),
		  "icountloop iterations=%u insns_per_iteration=%d ns=%llu\n",
		  n, ICOUNTLOOP_INSNS, ns);
	return 0;
}

/* irqbench: an empty handler, run in hard interrupt context. */
static void irqbench_fn(struct irq_work *work)
{
}

static struct irq_work irqbench_work = IRQ_WORK_INIT_HARD(irqbench_fn);

/* Nanoseconds for @n self-interrupts, inside a window if @open. */
static u64 time_irqs(unsigned int n, bool open)
{
	unsigned int i;
	u64 start, ns;

	preempt_disable();
	if (open)
		dev_access_enable();
	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		irq_work_queue(&irqbench_work);
		/* irq_work_sync() may sleep; this waits with preemption off. */
		while (irq_work_is_busy(&irqbench_work))
			cpu_relax();
	}
	ns = ktime_get_ns() - start;
	if (open)
		dev_access_disable();
	preempt_enable();
	return ns;
}

static int run_irqbench(unsigned int n)
{
	u64 cns = centi_ns_per_call(time_irqs(n, false), n);
	u64 cns_open = centi_ns_per_call(time_irqs(n, true), n);

	scnprintf(result, sizeof(result),
		  "irqbench n=%u ns_per_irq=%llu.%02llu ns_per_irq_open=%llu.%02llu\n",
		  n, cns / 100, cns % 100, cns_open / 100, cns_open % 100);
	return 0;
}

/* switchbench: the partner kthread answers each ping with a pong. */
struct switchbench {
	struct completion ping, pong;
	unsigned int n;
};

static int switchbench_partner(void *data)
{
	struct switchbench *sb = data;
	unsigned int i;

	for (i = 0; i < sb->n; i++) {
		wait_for_completion(&sb->ping);
		complete(&sb->pong);
	}
	return 0;
}

/* Nanoseconds for @n round trips, with a window held if @open; 0 on error. */
static u64 time_switches(unsigned int n, bool open)
{
	struct switchbench sb = { .n = n };
	struct task_struct *partner;
	unsigned int i;
	u64 start, ns;

	init_completion(&sb.ping);
	init_completion(&sb.pong);
	/* Both on this CPU: every round trip is two context switches. */
	migrate_disable();
	partner = kthread_create(switchbench_partner, &sb, "pks-switchbench");
	if (IS_ERR(partner)) {
		migrate_enable();
		return 0;
	}
	kthread_bind(partner, smp_processor_id());
	get_task_struct(partner);
	wake_up_process(partner);
	if (open)
		dev_access_enable();
	start = ktime_get_ns();
	for (i = 0; i < n; i++) {
		complete(&sb.ping);
		wait_for_completion(&sb.pong);
	}
	ns = ktime_get_ns() - start;
	if (open)
		dev_access_disable();
	migrate_enable();
	/* It returns after its last pong: it touches @sb no more. */
	kthread_stop(partner);
	put_task_struct(partner);
	return ns;
}

static int run_switchbench(unsigned int n)
{
	u64 ns = time_switches(n, false), ns_open = time_switches(n, true);
	u64 cns, cns_open;

	if (!ns || !ns_open)
		return -ENOMEM;
	cns = centi_ns_per_call(ns, 2 * n);
	cns_open = centi_ns_per_call(ns_open, 2 * n);
	scnprintf(result, sizeof(result),
		  "switchbench n=%u ns_per_switch=%llu.%02llu ns_per_switch_open=%llu.%02llu\n",
		  n, cns / 100, cns % 100, cns_open / 100, cns_open % 100);
	return 0;
}

/* A reference on the dev_pagemap of the protected page at @phys, or NULL. */
static struct dev_pagemap *get_protected_pgmap(phys_addr_t phys)
{
	struct dev_pagemap *pgmap = get_dev_pagemap(PHYS_PFN(phys), NULL);

	if (pgmap && !range_is_protected(phys, 1)) {
		put_dev_pagemap(pgmap);
		pgmap = NULL;
	}
	return pgmap;
}

static int run_phys_command(const char *verb, const char *buf)
{
	unsigned long long phys;
	unsigned int seconds, len;
	struct dev_pagemap *pgmap;
	char extra;
	int rc;

	if (!strcmp(verb, "stress")) {
		if (sscanf(buf, "stress %u %llx %c", &seconds, &phys, &extra) != 2 ||
		    !seconds || seconds > 600)
			return -EINVAL;
	} else if (!strcmp(verb, "repwrite")) {
		if (sscanf(buf, "repwrite %llx %u %c", &phys, &len, &extra) != 2)
			return -EINVAL;
	} else if (sscanf(buf, "%*s %llx %c", &phys, &extra) != 1) {
		return -EINVAL;
	}
	pgmap = get_protected_pgmap(phys);
	if (!pgmap)
		return -EINVAL;
	if (!strcmp(verb, "irq"))
		rc = run_irq(phys);
	else if (!strcmp(verb, "stress"))
		rc = run_stress(seconds, phys);
	else if (!strcmp(verb, "flush"))
		rc = run_flush(phys);
	else if (!strcmp(verb, "softirq"))
		rc = run_softirq(phys);
	else if (!strcmp(verb, "repwrite"))
		rc = run_repwrite(phys, len);
	else if (!strcmp(verb, "sgmiter"))
		rc = run_sgmiter(phys);
	else
		rc = run_relaxed(phys);
	put_dev_pagemap(pgmap);
	return rc;
}

/* The verb picks the command; only then are its arguments parsed. */
static int run_command(const char *buf)
{
	unsigned int n, ms, depth, hz, seconds;
	char verb[16], extra;

	if (sscanf(buf, "%15s", verb) != 1)
		return -EINVAL;
	if (!strcmp(verb, "irq") || !strcmp(verb, "stress") ||
	    !strcmp(verb, "flush") || !strcmp(verb, "softirq") ||
	    !strcmp(verb, "relaxed") || !strcmp(verb, "repwrite") ||
	    !strcmp(verb, "sgmiter"))
		return run_phys_command(verb, buf);
	if (!strcmp(verb, "keyfree")) {
		int pkey;

		if (sscanf(buf, "keyfree %d %c", &pkey, &extra) != 1)
			return -EINVAL;
		return run_keyfree(pkey);
	}
	if (!strcmp(verb, "hold") || !strcmp(verb, "leak")) {
		if (sscanf(buf, "%*s %u %c", &ms, &extra) != 1 || ms > 600000)
			return -EINVAL;
		return verb[0] == 'h' ? run_hold(ms) : run_leak(ms);
	}
	if (!strcmp(verb, "windowbench") || !strcmp(verb, "kmapbench")) {
		if (sscanf(buf, "%*s %u %c", &n, &extra) != 1 || !n || n > 100000000)
			return -EINVAL;
		return verb[0] == 'w' ? run_bench("windowbench", window_pair, n) :
					run_kmapbench(n);
	}
	if (!strcmp(verb, "irqbench") || !strcmp(verb, "switchbench")) {
		if (sscanf(buf, "%*s %u %c", &n, &extra) != 1 || !n || n > 1000000)
			return -EINVAL;
		return verb[0] == 'i' ? run_irqbench(n) : run_switchbench(n);
	}
	if (!strcmp(verb, "windows")) {
		if (sscanf(buf, "windows %u %u %u %c", &depth, &hz, &seconds,
			   &extra) != 3 || !depth || depth > 16 || !hz ||
		    hz > 100000 || !seconds || seconds > 600)
			return -EINVAL;
		return run_windows(depth, hz, seconds);
	}
	if (!strcmp(verb, "icountloop")) {
		if (sscanf(buf, "icountloop %u %c", &n, &extra) != 1 || !n ||
		    n > 10000000)
			return -EINVAL;
		return run_icountloop(n);
	}
	if (sscanf(buf, "%*s %c", &extra) == 1)
		return -EINVAL;
	if (!strcmp(verb, "unbalanced"))
		return run_unbalanced();
	if (!strcmp(verb, "threads"))
		return run_threads();
	if (!strcmp(verb, "lockdep"))
		return run_lockdep();
	if (!strcmp(verb, "leakuser"))
		return run_leakuser();
	return -EINVAL;
}

static ssize_t pks_hooks_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[128];
	int rc;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (dev_access_pkey() < 0)
		return -ENODEV;

	mutex_lock(&result_lock);
	result[0] = '\0';
	rc = run_command(buf);
	mutex_unlock(&result_lock);

	return rc ? rc : count;
}

static ssize_t pks_hooks_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&result_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, result, strlen(result));
	mutex_unlock(&result_lock);
	return ret;
}

static const struct file_operations pks_hooks_fops = {
	.write	= pks_hooks_write,
	.read	= pks_hooks_read,
	.llseek	= default_llseek,
};

static int __init pks_hooks_init(void)
{
	if (dev_access_pkey() < 0)
		return -ENODEV;
	debugfs_create_file("pks_hooks", 0600, NULL, NULL, &pks_hooks_fops);
	return 0;
}
module_init(pks_hooks_init);

MODULE_DESCRIPTION("The PKS project's device-memory test hooks (out of tree)");
MODULE_LICENSE("GPL");
