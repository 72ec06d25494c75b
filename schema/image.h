/* SPDX-License-Identifier: MIT */
/*
 * image.c: the empty database of the schema (schema_template[], schema.h)
 * written out, for a new database to start from.
 */
#ifndef DARC_IMAGE_H
#define DARC_IMAGE_H

/* Write the empty database into the empty file @fd. 0, or -1 with errno set. */
int image_template_write(int fd);

/* The empty database into @buf (schema_template_size bytes). */
void image_template_fill(void *buf);

#endif
