// SPDX-License-Identifier: GPL-2.0
/* Resolve physical addresses to pmem/dax devices; see iomem.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "iomem.h"

/* "namespace0.0", "dax1.2", "pmem0", "btt0.1": a device name we can report. */
static bool device_name(const char *s)
{
	static const char *const prefixes[] = { "namespace", "dax", "pmem", "btt" };
	size_t i, n;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		n = strlen(prefixes[i]);
		if (!strncmp(s, prefixes[i], n) && isdigit((unsigned char)s[n]))
			return true;
	}
	return false;
}

int iomem_load(const char *path, struct iomem_map *map)
{
	unsigned long long start, end;
	char line[256], name[64];
	FILE *f;

	map->nr = 0;
	f = fopen(path ? path : "/proc/iomem", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && map->nr < IOMEM_MAX_DEVS) {
		if (sscanf(line, " %llx-%llx : %63[^\n]", &start, &end, name) != 3)
			continue;
		if (!device_name(name) || (!start && !end) || end < start)
			continue;
		map->devs[map->nr].start = start;
		map->devs[map->nr].end = end;
		snprintf(map->devs[map->nr].name, sizeof(map->devs[0].name), "%s", name);
		map->nr++;
	}
	fclose(f);
	return map->nr;
}

const struct iomem_dev *iomem_lookup(const struct iomem_map *map, uint64_t phys)
{
	const struct iomem_dev *best = NULL;
	int i;

	for (i = 0; i < map->nr; i++) {
		const struct iomem_dev *d = &map->devs[i];

		if (phys < d->start || phys > d->end)
			continue;
		if (!best || d->end - d->start < best->end - best->start)
			best = d;
	}
	return best;
}
