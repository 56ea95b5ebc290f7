/* SPDX-License-Identifier: GPL-2.0 */
/* Log2 histograms as printed by the BPF tools (text and JSON). */
#ifndef PKS_HIST_H
#define PKS_HIST_H

#include <stdint.h>
#include <stdio.h>

/*
 * Slot i counts values v with floor(log2(v)) == i (slot 0 also holds 0):
 * the range [2^i, 2^(i+1) - 1].  The last slot, nr - 1, is the overflow
 * bucket: every value from 2^(nr-1) up, printed "2^(nr-1) -> inf".
 * Prints only the slots from the first to the last non-empty one, with a
 * 40-character bar of '*' (no escapes).
 */
void hist_print_log2(FILE *f, const uint64_t *slots, int nr, const char *unit);
/*
 * [{"from":0,"to":1,"count":N},...] for the same slots; the overflow
 * bucket has "to":null.
 */
void hist_json_log2(FILE *f, const uint64_t *slots, int nr);
uint64_t hist_total(const uint64_t *slots, int nr);

#endif /* PKS_HIST_H */
