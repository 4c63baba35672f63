/*
 * units.h - parsing and formatting of the user-facing quantities:
 * sizes (bytes), durations (seconds), rates (bytes/hour or bytes/request)
 * and timestamps (ISO 8601 / Unix seconds).
 *
 * Contract (docs/design.md, "Formats"): SIZE is a number with B, KiB/MiB/GiB/TiB (binary) or
 * kB/KB/MB/GB/TB (decimal), bare = bytes; a space between number and unit
 * is allowed ("21 GB"), units are case-sensitive except that "kb"/"KB"/"kB"
 * all mean 1000. DUR is 15s, 5m, 2h, 1d, 250ms or bare seconds (fractions
 * allowed). RATE is SIZE/h, SIZE/min, SIZE/s, SIZE/d or SIZE/req.
 * Pure functions: no I/O, no global state.
 */
#ifndef MEMTREND_UNITS_H
#define MEMTREND_UNITS_H

#include <stdbool.h>
#include <stddef.h>

/* Sizes above this (1 EiB) are refused: no memory figure is that large. */
#define UNITS_SIZE_MAX 1152921504606846976.0 /* 2^60 */
/* Times outside [1970-01-01, 10000-01-01) UTC are refused: before the
 * epoch or past what an ISO 8601 date (and the reports) can write. */
#define UNITS_TIME_MIN 0.0
#define UNITS_TIME_MAX 253402300800.0

/* Parse a size. On success returns 0, stores bytes in *bytes and, when
 * quantum is not NULL, the precision of the text in bytes ("21 GB" -> 1e9,
 * "230.63GiB" -> 0.01 GiB, "5408" -> 1). Units: units_size_help().
 * Returns -1 (no message) on bad text, negative numbers, NaN/inf, an
 * unknown unit or trailing garbage; -2 for a size above UNITS_SIZE_MAX. */
int units_parse_size(const char *s, double *bytes, double *quantum);
/* The accepted size units, for error messages. */
const char *units_size_help(void);
/* Whether t (Unix seconds) lies in [UNITS_TIME_MIN, UNITS_TIME_MAX). */
bool units_time_in_range(double t);

/* Parse a duration into seconds (> 0 not required; negative rejected). */
int units_parse_duration(const char *s, double *seconds);

enum rate_basis { RATE_PER_HOUR, RATE_PER_REQUEST };
struct rate {
	double bytes;          /* bytes per hour, or bytes per request */
	enum rate_basis basis;
};
/* Parse a rate: "10MiB/h", "2 MB/min" (stored per hour), "48KiB/req". */
int units_parse_rate(const char *s, struct rate *out);

/* Parse a timestamp: ISO 8601 with a zone ("2026-05-01T02:04:00Z",
 * "2026-05-01 02:04:00+02:00", fractional seconds allowed) or Unix seconds
 * ("1746065040.5"). An ISO time without a zone is rejected (ambiguous).
 * Stores Unix seconds. Returns 0, -1 (bad text) or -2 (a time outside
 * units_time_in_range(), *unix_seconds set). */
int units_parse_time(const char *s, double *unix_seconds);

/* Human formatting into buf (always NUL-terminated); return buf.
 * Sizes use binary units with 3 significant digits ("1.23 GiB", "512 B",
 * "-40 MiB"); rates append "/h"; durations pick s/min/h/d ("4.3 h",
 * "5 min 20 s" style is not used: one unit, 2-3 significant digits). */
char *units_format_size(char *buf, size_t n, double bytes);
/* The same in decimal units (B, kB, MB, GB, TB) when decimal is true:
 * for figures that came from a source counting in decimal ("21 GB"). */
char *units_format_size_in(char *buf, size_t n, double bytes, bool decimal);
char *units_format_rate(char *buf, size_t n, double bytes_per_hour);
/* A slope: a rate with its sign, "+1.09 GiB/h", "-40 MiB/h", "0 B/h";
 * decimal units when decimal is true. */
char *units_format_slope(char *buf, size_t n, double bytes_per_hour,
			 bool decimal);
/* Per request: "+1.05 KiB/req". */
char *units_format_per_request(char *buf, size_t n, double bytes_per_request,
			       bool decimal);
/* A count, rounded, with thousands separators: "3,100". */
char *units_format_count(char *buf, size_t n, double count);
char *units_format_duration(char *buf, size_t n, double seconds);
/* ISO 8601 UTC with second precision: "2026-05-01T02:04:00Z". */
char *units_format_time(char *buf, size_t n, double unix_seconds);

#endif
