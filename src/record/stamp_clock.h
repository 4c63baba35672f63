/*
 * stamp_clock.h - the times a recording's samples carry: wall-clock UTC at
 * the start, then the time that elapsed, never a step of the wall clock.
 *
 * A sample's stamp is the wall clock read at the first tick plus the boot
 * time (CLOCK_BOOTTIME: it counts a suspend, the monotonic clock does not)
 * elapsed since. So intervals between stamps are always the time that
 * passed, stamps never go back, and a wall clock that is stepped (NTP, a
 * hand, a test) and then stepped back leaves no part of the recording
 * stamped ahead or behind: nothing followed either step. Each step of a
 * second or more is noted with how far the wall clock now is from the
 * stamps, so a reader can put a stamp on the wall clock of that moment
 * (docs/reliability.md). What it does not do: read the clocks (the caller
 * passes their readings, so the rules are tested without a clock), or
 * correct a wall clock that was wrong when the recording started.
 */
#ifndef MEMTREND_STAMP_CLOCK_H
#define MEMTREND_STAMP_CLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* A step of the wall clock against the stamps is noted from this size. */
#define STAMP_CLOCK_STEP_S 1.0
/* At most this many steps are noted; the last note says that later ones
 * are not (a clock that is stepped again and again must not fill the
 * recording with notes). */
#define STAMP_CLOCK_MAX_NOTES 16

struct stamp_clock {
	double wall_minus_boot;  /* NAN before the first stamp */
	double boot_minus_mono;  /* grows by each suspend */
	double noted_skew;       /* wall clock - stamp clock, as last noted */
	int notes;               /* steps noted so far */
};

void stamp_clock_init(struct stamp_clock *c);

/*
 * The stamp of a tick that happened at monotonic time at_mono, given the
 * three clocks read together just before (mono, boot, wall; seconds).
 * at_mono may be a deadline a little before or after mono: an on-time
 * tick is stamped with its deadline, so regular ticks get an exact
 * arithmetic sequence of stamps (the offset added to at_mono changes only
 * at a suspend). When the wall clock has stepped by STAMP_CLOCK_STEP_S or
 * more since the last note, a note is written to note (note_size at
 * least 1) and *noted set; else note is "" and *noted false.
 */
double stamp_clock_stamp(struct stamp_clock *c, double at_mono, double mono,
			 double boot, double wall, char *note, size_t note_size,
			 bool *noted);

#endif
