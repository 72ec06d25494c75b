// SPDX-License-Identifier: MIT
/* The readers of formats other than trace.dat, tried in this order. */
#include "tracedat.h"

const struct fmt_backend *const fmt_backends[] = {
	NULL,
};
