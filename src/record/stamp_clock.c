/*
 * stamp_clock.c - the stamps of a recording's samples (stamp_clock.h):
 * anchored on the wall clock once, then carried by the boot-time clock;
 * steps of the wall clock noted, never followed.
 *
 * Why not follow a step forward (as memtrend did until issue 31): a step
 * forward followed by the step back that undoes it (a clock set wrong and
 * then corrected) left the rest of the recording stamped ahead by the
 * step, since stamps may not go back. A resume from suspend, the one
 * forward jump that is real time, is counted by the boot-time clock
 * itself.
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>

#include "stamp_clock.h"

/* A change of boot - monotonic smaller than this is the two reads' own
 * jitter, not a suspend: keeping the offset fixed keeps on-time stamps an
 * exact arithmetic sequence. */
#define SUSPEND_MIN_S 0.01

void stamp_clock_init(struct stamp_clock *c)
{
	c->wall_minus_boot = NAN;
	c->boot_minus_mono = NAN;
	c->noted_skew = 0;
	c->notes = 0;
}

static void step_note(const struct stamp_clock *c, double skew, char *note,
		      size_t note_size)
{
	double by = skew - c->noted_skew;
	const char *way = by > 0 ? "forward" : "back";
	if (c->notes + 1 == STAMP_CLOCK_MAX_NOTES) {
		snprintf(note, note_size, "the wall clock was stepped %s by "
			 "%.3g s; later steps are not noted (sample times go "
			 "on from the elapsed time)", way, fabs(by));
	} else if (fabs(skew) < STAMP_CLOCK_STEP_S) {
		snprintf(note, note_size, "the wall clock was stepped %s by "
			 "%.3g s and agrees with the sample times again", way,
			 fabs(by));
	} else {
		snprintf(note, note_size, "the wall clock was stepped %s by "
			 "%.3g s; sample times go on from the elapsed time and "
			 "are %.3g s %s the wall clock", way, fabs(by),
			 fabs(skew), skew > 0 ? "behind" : "ahead of");
	}
}

double stamp_clock_stamp(struct stamp_clock *c, double at_mono, double mono,
			 double boot, double wall, char *note, size_t note_size,
			 bool *noted)
{
	assert(note && note_size > 0 && noted);
	*noted = false;
	note[0] = '\0';
	if (isnan(c->wall_minus_boot)) {
		c->wall_minus_boot = wall - boot;
		c->boot_minus_mono = boot - mono;
	} else if (boot - mono > c->boot_minus_mono + SUSPEND_MIN_S) {
		/* a suspend: the boot-time clock counted it, the monotonic
		 * one stood still (boot - mono never decreases) */
		c->boot_minus_mono = boot - mono;
	}
	double offset = c->boot_minus_mono + c->wall_minus_boot;
	/* wall clock minus the stamp of this moment: 0 until a step */
	double skew = wall - (mono + offset);
	if (fabs(skew - c->noted_skew) >= STAMP_CLOCK_STEP_S &&
	    c->notes < STAMP_CLOCK_MAX_NOTES) {
		step_note(c, skew, note, note_size);
		c->noted_skew = skew;
		c->notes++;
		*noted = true;
	}
	return at_mono + offset;
}
