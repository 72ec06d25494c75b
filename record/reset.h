/* SPDX-License-Identifier: MIT */
/*
 * reset.c: --reset: remove what a killed darc-record left.
 */
#ifndef DARC_REC_RESET_H
#define DARC_REC_RESET_H

#include "rec.h"

/*
 * Remove darc-record's instances and probes that no running darc-record owns
 * (all of them with @force). Notes say what was removed. Returns the number
 * of things that could not be removed.
 */
int reset_run(bool force, struct rec_notes *notes);

#endif
