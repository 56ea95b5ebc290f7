// SPDX-License-Identifier: GPL-2.0
/* Symbolize kernel addresses from /proc/kallsyms; see kallsyms.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

/* A loaded module's text and data, from /proc/modules. */
struct kmod_range {
	uint64_t start, end;
	const char *name;
};

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	struct kmod_range *mods;
	size_t nr_mods;
	uint64_t mods_low;	/* lowest module address known; 0: none */
	char **strs;		/* names and modules, freed with the table */
	size_t nr_strs, cap_strs;
};

static char *keep(struct ksyms *ks, const char *s)
{
	char *copy, **grown;

	if (ks->nr_strs == ks->cap_strs) {
		ks->cap_strs = ks->cap_strs ? 2 * ks->cap_strs : 1024;
		grown = realloc(ks->strs, ks->cap_strs * sizeof(*grown));
		if (!grown)
			return NULL;
		ks->strs = grown;
	}
	copy = strdup(s);
	if (copy)
		ks->strs[ks->nr_strs++] = copy;
	return copy;
}

/* Modules repeat for every symbol: reuse the previous copy when the same. */
static const char *keep_module(struct ksyms *ks, const char *mod, const char **last)
{
	if (*last && !strcmp(*last, mod))
		return *last;
	*last = keep(ks, mod);
	return *last;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Same address: keep the file's order (earlier symbol first). */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

struct ksyms *ksyms_load(const char *path)
{
	char line[512], name[256], mod[128], type;
	const char *last_mod = NULL;
	struct ksyms *ks;
	unsigned long long addr;
	struct ksym *grown;
	char *lb;
	FILE *f;
	int n;

	f = fopen(path ? path : "/proc/kallsyms", "r");
	if (!f)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		goto err;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod);
		if (n < 3 || !addr || !is_text(type))
			continue;	/* data symbols only confuse code lookups */
		if (ks->nr == ks->cap) {
			ks->cap = ks->cap ? 2 * ks->cap : 4096;
			grown = realloc(ks->syms, ks->cap * sizeof(*grown));
			if (!grown)
				goto err;
			ks->syms = grown;
		}
		lb = keep(ks, name);
		if (!lb)
			goto err;
		ks->syms[ks->nr].addr = addr;
		ks->syms[ks->nr].name = lb;
		ks->syms[ks->nr].module = n == 4 ? keep_module(ks, mod, &last_mod) : NULL;
		ks->syms[ks->nr].seq = ks->nr;
		ks->nr++;
	}
	fclose(f);
	/* qsort is not stable: cmp_addr breaks ties by line order. */
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_addr);
	/* Best effort: without root, /proc/modules shows no addresses. */
	if (!path)
		ksyms_load_modules(ks, "/proc/modules");
	return ks;
err:
	fclose(f);
	ksyms_free(ks);
	errno = ENOMEM;
	return NULL;
}

int ksyms_load_modules(struct ksyms *ks, const char *path)
{
	char line[512], name[128];
	unsigned long long size, addr;
	struct kmod_range *grown;
	const char *kept;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		/* "nd_pmem 24576 1 - Live 0xffffffffc0010000 (O)" */
		if (sscanf(line, "%127s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 ||
		    !addr || !size)
			continue;
		grown = realloc(ks->mods, (ks->nr_mods + 1) * sizeof(*grown));
		if (grown)
			ks->mods = grown;
		kept = keep(ks, name);
		if (!grown || !kept) {
			fclose(f);
			return -ENOMEM;
		}
		ks->mods[ks->nr_mods++] = (struct kmod_range){ addr, addr + size, kept };
		if (!ks->mods_low || addr < ks->mods_low)
			ks->mods_low = addr;
	}
	fclose(f);
	return 0;
}

static const struct kmod_range *module_at(const struct ksyms *ks, uint64_t addr)
{
	size_t i;

	for (i = 0; i < ks->nr_mods; i++)
		if (addr >= ks->mods[i].start && addr < ks->mods[i].end)
			return &ks->mods[i];
	return NULL;
}

static bool module_known(const struct ksyms *ks, const char *name)
{
	size_t i;

	for (i = 0; i < ks->nr_mods; i++)
		if (!strcmp(ks->mods[i].name, name))
			return true;
	return false;
}

void ksyms_free(struct ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	free(ks->mods);
	for (i = 0; i < ks->nr_strs; i++)
		free(ks->strs[i]);
	free(ks->strs);
	free(ks->syms);
	free(ks);
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

static const struct ksym *nearest(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi, mid;

	if (!ks || !ks->nr || addr < ks->syms[0].addr)
		return NULL;
	hi = ks->nr;
	/* Last symbol with sym.addr <= addr, then back to the first alias at that address. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	while (lo > 0 && ks->syms[lo - 1].addr == ks->syms[lo].addr)
		lo--;
	return &ks->syms[lo];
}

const struct ksym *ksyms_lookup(const struct ksyms *ks, uint64_t addr)
{
	const struct ksym *s = nearest(ks, addr);
	const struct kmod_range *m;

	if (!s || !ks->nr_mods)
		return s;
	/*
	 * Inside a module: only its own symbols.  Outside every module: not
	 * a module's symbol either (it would be past that module's end).
	 * Pseudo-modules such as [bpf] have no extent and stay unbounded.
	 */
	m = module_at(ks, addr);
	if (m)
		return s->module && !strcmp(s->module, m->name) ? s : NULL;
	if (s->module && module_known(ks, s->module))
		return NULL;
	return s;
}

bool ksyms_stale(const struct ksyms *ks, uint64_t addr)
{
	return ks && ks->mods_low && addr >= ks->mods_low && !ksyms_lookup(ks, addr);
}

const char *ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = ksyms_lookup(ks, addr);

	if (!s)
		snprintf(buf, len, "0x%" PRIx64, addr);
	else if (s->module)
		snprintf(buf, len, "%s+0x%" PRIx64 " [%s]", s->name, addr - s->addr, s->module);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, addr - s->addr);
	return buf;
}
