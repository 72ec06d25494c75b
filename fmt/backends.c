// SPDX-License-Identifier: MIT
/* The readers of formats other than trace.dat, tried in this order. */
#include "tracedat.h"

extern const struct fmt_backend fmt_perf_backend; /* perf.c */
extern const struct fmt_backend fmt_text_backend; /* text.c */

const struct fmt_backend *const fmt_backends[] = {
	&fmt_perf_backend,
	&fmt_text_backend,
	NULL,
};
