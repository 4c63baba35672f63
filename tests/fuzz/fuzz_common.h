/*
 * fuzz_common.h - what every harness shares. Messages (error(), note())
 * go to stderr like memtrend's; scripts/fuzz.sh runs the harnesses with
 * -close_fd_mask=2 so that libFuzzer's own report stays readable.
 */
#ifndef MEMTREND_FUZZ_COMMON_H
#define MEMTREND_FUZZ_COMMON_H

static inline void fuzz_quiet(void)
{
}

#endif
