// SPDX-License-Identifier: MIT
/* The formats darc reads, tried in this order on a file's content (reader.c). */
#include "backend.h"

extern const struct fmt_backend fmt_tracedat_backend; /* tracedat.c */
extern const struct fmt_backend fmt_perf_backend; /* perf.c */
extern const struct fmt_backend fmt_text_backend; /* text.c */

const struct fmt_backend *const fmt_backends[] = {
	&fmt_tracedat_backend,
	&fmt_perf_backend,
	&fmt_text_backend,
	NULL,
};
