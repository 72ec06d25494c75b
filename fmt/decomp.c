// SPDX-License-Identifier: MIT
#include "decomp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

enum algo { ALGO_ZSTD, ALGO_ZLIB };

struct decomp {
	enum algo algo;
#ifdef HAVE_ZSTD
	ZSTD_DCtx *zctx; /* reused across chunks: no allocation per chunk */
#endif
};

struct decomp *decomp_new(const char *name)
{
	struct decomp *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
#ifdef HAVE_ZSTD
	if (!strcmp(name, "zstd")) {
		d->algo = ALGO_ZSTD;
		d->zctx = ZSTD_createDCtx();
		if (!d->zctx)
			goto fail;
		return d;
	}
#endif
#ifdef HAVE_ZLIB
	if (!strcmp(name, "zlib")) {
		d->algo = ALGO_ZLIB;
		return d;
	}
#endif
	errno = ENOTSUP;
#ifdef HAVE_ZSTD
fail:
#endif
	free(d);
	return NULL;
}

void decomp_free(struct decomp *d)
{
	if (!d)
		return;
#ifdef HAVE_ZSTD
	ZSTD_freeDCtx(d->zctx);
#endif
	free(d);
}

int decomp_run(struct decomp *d, const void *src, size_t srclen, void *dst, size_t dstlen)
{
	switch (d->algo) {
#ifdef HAVE_ZSTD
	case ALGO_ZSTD: {
		size_t n = ZSTD_decompressDCtx(d->zctx, dst, dstlen, src, srclen);
		return (ZSTD_isError(n) || n != dstlen) ? -1 : 0;
	}
#endif
#ifdef HAVE_ZLIB
	case ALGO_ZLIB: {
		uLongf n = dstlen;
		int rc = uncompress(dst, &n, src, srclen);
		return (rc != Z_OK || n != dstlen) ? -1 : 0;
	}
#endif
	default:
		return -1;
	}
}
