/* SPDX-License-Identifier: MIT */
/*
 * decomp: the block decompressors trace.dat v7 names in its header
 * ("zstd", "zlib"), behind one call.
 */
#ifndef DARC_DECOMP_H
#define DARC_DECOMP_H

#include <stddef.h>

struct decomp;

/*
 * A decompressor for algorithm @name, or NULL with errno = ENOTSUP for an
 * algorithm this build does not know. Release it with decomp_free().
 */
struct decomp *decomp_new(const char *name);

/* Release @d. Accepts NULL. */
void decomp_free(struct decomp *d);

/*
 * Decompress @srclen bytes at @src into exactly @dstlen bytes at @dst.
 * Returns 0 on success, -1 when the data is corrupt or does not expand to
 * exactly @dstlen bytes.
 */
int decomp_run(struct decomp *d, const void *src, size_t srclen, void *dst, size_t dstlen);

#endif
