/* SPDX-License-Identifier: MIT */
/*
 * record.c: one recording, start to finish: the signal loop, status line.
 */
#ifndef DARC_REC_RECORD_H
#define DARC_REC_RECORD_H

#include "rec.h"

/* Record as @o says; returns an exit status (REC_*), having printed errors. */
int record_run(struct rec_opts *o);

#endif
