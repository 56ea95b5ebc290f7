/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pkstop on a terminal: the keys top users expect.  q quits, s (or >)
 * takes the next sort key and < the one before, space pauses and resumes.
 * Pure: the host tests feed it keys.
 */
#ifndef PKSTOP_KEYS_H
#define PKSTOP_KEYS_H

#include <stdbool.h>

#include "opts.h"

enum pkstop_key_action {
	PKSTOP_KEY_NONE,	/* not ours: ignored */
	PKSTOP_KEY_QUIT,
	PKSTOP_KEY_REDRAW,	/* the sort changed: show the last sample again */
	PKSTOP_KEY_PAUSE,	/* *paused toggled */
};

enum pkstop_key_action pkstop_key(int c, struct pkstop_opts *o, bool *paused);

#endif
