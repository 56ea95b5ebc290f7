/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel address -> "function+0xoff [module]" from a kallsyms-format file. */
#ifndef PKS_KALLSYMS_H
#define PKS_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL for vmlinux */
	size_t seq;		/* line order: the first of aliases wins */
};

struct ksyms;

/*
 * Load @path (NULL: /proc/kallsyms, and /proc/modules for the modules'
 * extents).  NULL with errno set on failure.
 */
struct ksyms *ksyms_load(const char *path);
/*
 * The loaded modules' extents, from a /proc/modules-format file: a module
 * symbol then covers only addresses inside its module, and an address
 * inside a module resolves only to that module's symbols.  Without them
 * an address in a module loaded after ksyms_load() would show as another
 * module's last function plus a large offset.  0, or -errno.
 */
int ksyms_load_modules(struct ksyms *ks, const char *path);
void ksyms_free(struct ksyms *ks);
/* Number of symbols loaded (0 when kallsyms hides addresses: not root). */
size_t ksyms_count(const struct ksyms *ks);
/* The symbol containing @addr (the last one at or below it), or NULL. */
const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr);
/*
 * @addr looks like code loaded after the table was read: no symbol covers
 * it, and it lies in the module area (at or above the lowest module
 * address known).  The caller may reload (ksyms_load()) and retry.
 */
bool ksyms_stale(const struct ksyms *ks, uint64_t addr);
/*
 * "func+0x1a" or "func+0x1a [mod]" into @buf; the bare address in hex when
 * no symbol covers it.  Returns @buf.
 */
const char *ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len);

#endif /* PKS_KALLSYMS_H */
