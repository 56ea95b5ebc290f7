// SPDX-License-Identifier: GPL-2.0
/* Log2 histogram output; see hist.h. */
#include <inttypes.h>

#include "hist.h"

#define BAR_WIDTH 40

/* The range of slot i of nr; the last one is open-ended (*hi UINT64_MAX). */
static void slot_range(int i, int nr, uint64_t *lo, uint64_t *hi)
{
	*lo = i ? 1ULL << i : 0;
	*hi = i < 63 && i < nr - 1 ? (1ULL << (i + 1)) - 1 : UINT64_MAX;
}

/* First and last non-empty slot; returns 0 when all are empty. */
static int used_range(const uint64_t *slots, int nr, int *first, int *last)
{
	int i;

	*first = -1;
	*last = -1;
	for (i = 0; i < nr; i++)
		if (slots[i]) {
			if (*first < 0)
				*first = i;
			*last = i;
		}
	return *first >= 0;
}

uint64_t hist_total(const uint64_t *slots, int nr)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < nr; i++)
		sum += slots[i];
	return sum;
}

void hist_print_log2(FILE *f, const uint64_t *slots, int nr, const char *unit)
{
	uint64_t lo, hi, max = 0;
	int i, first, last, stars;

	if (!used_range(slots, nr, &first, &last)) {
		fprintf(f, "     (no samples)\n");
		return;
	}
	for (i = first; i <= last; i++)
		if (slots[i] > max)
			max = slots[i];
	fprintf(f, "%24s : %-10s distribution\n", unit, "count");
	for (i = first; i <= last; i++) {
		slot_range(i, nr, &lo, &hi);
		stars = (int)(slots[i] * BAR_WIDTH / max);
		if (slots[i] && !stars)
			stars = 1;	/* a non-empty slot never looks empty */
		fprintf(f, "%10" PRIu64 " -> ", lo);
		if (hi == UINT64_MAX)
			fprintf(f, "%-10s", "inf");
		else
			fprintf(f, "%-10" PRIu64, hi);
		fprintf(f, " : %-10" PRIu64 " |%-*.*s|\n", slots[i], BAR_WIDTH, stars,
			"****************************************");
	}
}

void hist_json_log2(FILE *f, const uint64_t *slots, int nr)
{
	uint64_t lo, hi;
	int i, first, last;

	fputc('[', f);
	if (used_range(slots, nr, &first, &last))
		for (i = first; i <= last; i++) {
			slot_range(i, nr, &lo, &hi);
			fprintf(f, "%s{\"from\":%" PRIu64 ",\"to\":", i > first ? "," : "", lo);
			if (hi == UINT64_MAX)
				fputs("null", f);
			else
				fprintf(f, "%" PRIu64, hi);
			fprintf(f, ",\"count\":%" PRIu64 "}", slots[i]);
		}
	fputc(']', f);
}
