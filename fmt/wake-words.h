/* SPDX-License-Identifier: MIT */
/*
 * wake-words: the words darc uses where a recording lacks what would name
 * who or what ended its sleeps, so that the analysis (darc info and darc
 * explain, from the events) and the recorder (darc-record, from its
 * options, before it records) say the same thing the same way.
 */
#ifndef DARC_WAKE_WORDS_H
#define DARC_WAKE_WORDS_H

/* what is missing */
#define WAKE_NO_IRQ "no irq events"
#define WAKE_IDLE "the interrupts of idle CPUs"
/* what follows from it */
#define WAKE_UNNAMED "cannot be named"
/* what to record instead */
#define WAKE_RECORD_IRQ "record irq and irq_vectors events"
#define WAKE_EVERY_CPU "record them on every CPU"

#endif
