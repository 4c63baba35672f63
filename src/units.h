/*
 * units.h - parsing and formatting of the user-facing quantities:
 * sizes (bytes), durations (seconds), rates (bytes/hour or bytes/request)
 * and timestamps (ISO 8601 / Unix seconds).
 *
 * Contract (DESIGN.md): SIZE is a number with B, KiB/MiB/GiB/TiB (binary) or
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

/* Parse a size. On success returns 0, stores bytes in *bytes and, when
 * quantum is not NULL, the precision of the text in bytes ("21 GB" -> 1e9,
 * "230.63GiB" -> 0.01 GiB, "5408" -> 1). Returns -1 (no message) on bad
 * text, negative numbers, NaN/inf or trailing garbage. */
int units_parse_size(const char *s, double *bytes, double *quantum);

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
 * Stores Unix seconds. Returns 0 or -1. */
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
