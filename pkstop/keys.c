// SPDX-License-Identifier: GPL-2.0
/* pkstop's interactive keys; see keys.h. */
#include "keys.h"

#define NR_SORTS	(PKSTOP_SORT_TID + 1)

enum pkstop_key_action pkstop_key(int c, struct pkstop_opts *o, bool *paused)
{
	switch (c) {
	case 'q':
	case 'Q':
		return PKSTOP_KEY_QUIT;
	case 's':
	case '>':
		o->sort = (o->sort + 1) % NR_SORTS;
		return PKSTOP_KEY_REDRAW;
	case '<':
		o->sort = (o->sort + NR_SORTS - 1) % NR_SORTS;
		return PKSTOP_KEY_REDRAW;
	case ' ':
		*paused = !*paused;
		return PKSTOP_KEY_PAUSE;
	}
	return PKSTOP_KEY_NONE;
}
