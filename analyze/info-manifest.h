/* SPDX-License-Identifier: MIT */
/*
 * darc info's account of a darc-record manifest: a few lines instead of
 * the whole JSON (which names every thread of the host); `darc info --json`
 * keeps the whole.
 */
#ifndef DARC_INFO_MANIFEST_H
#define DARC_INFO_MANIFEST_H

#include <stdint.h>

struct tep_handle;

/*
 * Print the summary of manifest @json: the command and how it ended, the
 * target's pids, the probes with their events in @counts (per event type
 * id, of the recording read by @tep), and the target's threads only. A
 * manifest that is no JSON object is said in one line.
 */
void info_manifest(const char *json, struct tep_handle *tep, const uint64_t *counts);

#endif
