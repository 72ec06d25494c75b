/* SPDX-License-Identifier: MIT */
/*
 * io-bios: darc io --bios and --irqs, and each device's bios (io-bios.c).
 */
#ifndef DARC_IO_BIOS_H
#define DARC_IO_BIOS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "rdb.h"

/* darc io --bios: per device, log2 histograms of the bios' queue, device and total times. */
int io_bios_report(FILE *out, struct rdb *db, bool json, struct err_msg *err);

/* darc io --irqs: the @top (thread, interrupt kind) pairs by interrupt time. */
int io_irqs_report(FILE *out, struct rdb *db, int top, bool json, struct err_msg *err);

/* Each device's bios: count, mean queue time, device time p50/p90/max (JSON array), and as text. */
json_t *io_devices_json(struct rdb *db);
void io_devices_text(FILE *out, json_t *devs);

#endif
