// SPDX-License-Identifier: MIT
/*
 * An out-of-tree module that declares itself non-GPL (as OpenZFS does) and
 * uses the kmap family, to check that device-memory protection did not
 * take kmap away from such modules: it must build against the series
 * (modpost refuses a GPL-incompatible module that uses a GPL-only symbol)
 * and load.  The source is MIT; MODULE_LICENSE says "Proprietary" on
 * purpose, which is what makes the kernel treat it as non-GPL.
 *
 *   insmod kmap_nongpl.ko [pfn=N]
 *
 * maps a DRAM page with kmap_local_page(), kmap() and kmap_atomic(), and,
 * with pfn=, reads a device page (a protected pmem page) inside a
 * kmap_local_page() window.  It reports on the kernel log:
 * "kmap_nongpl: dram ok" and "kmap_nongpl: pfn N protected=P read ok".
 */
#include <linux/highmem.h>
#include <linux/memremap.h>
#include <linux/module.h>

static unsigned long pfn;
module_param(pfn, ulong, 0444);
MODULE_PARM_DESC(pfn, "a device page to read inside a kmap_local_page() window");

#ifdef KMAP_NONGPL_OLD_INLINES
/*
 * What kmap*() did before they went through __kmap_open_window(): call the
 * GPL-only window API inline.  tests/module/build.sh builds this variant
 * too and expects modpost to refuse it, so that the check can fail.
 */
#undef kmap_local_page
#define kmap_local_page(page) ({ dev_access_enable(); page_address(page); })
#endif

static bool dram_pairs(void)
{
	struct page *page = alloc_page(GFP_KERNEL);
	bool ok;
	u8 *p;

	if (!page)
		return false;
	p = kmap_local_page(page);
	p[0] = 0x5a;
	kunmap_local(p);
	p = kmap(page);
	ok = p[0] == 0x5a;
	kunmap(page);
	p = kmap_atomic(page);
	ok = ok && p[0] == 0x5a;
	kunmap_atomic(p);
	__free_page(page);
	return ok;
}

static int __init kmap_nongpl_init(void)
{
	struct page *page;
	u8 *p, val;

	if (!dram_pairs())
		return -EIO;
	pr_info("kmap_nongpl: dram ok\n");
	if (!pfn)
		return 0;
	/*
	 * No pfn_valid(): on a lockdep kernel its RCU read section calls
	 * GPL-only lockdep symbols, which no non-GPL module may use, with or
	 * without this series.  The test passes a pmem page's pfn.
	 */
	page = pfn_to_page(pfn);
	p = kmap_local_page(page);
	val = READ_ONCE(*p);
	kunmap_local(p);
	pr_info("kmap_nongpl: pfn %#lx protected=%d read ok (%#x)\n", pfn,
		page_is_access_protected(page), val);
	return 0;
}

static void __exit kmap_nongpl_exit(void)
{
}

module_init(kmap_nongpl_init);
module_exit(kmap_nongpl_exit);
MODULE_LICENSE("Proprietary");
MODULE_DESCRIPTION("kmap from a non-GPL module: a test of the PKS series");
