/*
 * units.c - parsing and formatting of sizes, durations, rates and
 * timestamps (see units.h for the contract).
 *
 * What it does: turns user text ("21 GB", "230.63GiB", "5m",
 * "10MiB/h", "2026-05-01T02:04:00Z") into numbers, and numbers back
 * into short human text. What it does not do: print diagnostics (callers
 * know the file, line and option a bad value came from and say so), keep
 * any state, or depend on the locale (the number grammar is checked here,
 * so a locale with a decimal comma cannot silently change a value).
 *
 * Numbers: digits with an optional fraction and exponent ("12", "1.5",
 * ".5", "5.", "1.5e3"). No sign: sizes, durations, rates and Unix times
 * are never negative in memtrend's inputs, so "-5MB" is an error rather
 * than a value. No hex floats, "inf" or "nan": they are not quantities a
 * person or a monitoring tool writes for memory.
 *
 * Precision ("quantum") of a size is the place value of the last digit
 * written, times the unit: "21 GB" -> 1e9, "230.63GiB" -> 0.01 GiB,
 * "5408" -> 1. With an exponent it is 10^(exponent - fraction digits):
 * "1.5e3" -> 100 and "2e3" -> 1000, i.e. the text is taken to show exactly
 * the digits its writer had. Trailing zeros count as written digits
 * ("1.50 MB" -> 10 kB), since a tool that prints them had that precision.
 */
#include "units.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

/* Powers of ten that are exact in a double (10^22 is the largest). */
static const double pow10_exact[] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* A scanned decimal number: value = digits * 10^exp10 when digits_exact,
 * else only the text [begin, end) is reliable (read it with strtod).
 * 10^exp10 is also the place value of the last written digit. */
struct number {
	const char *begin, *end;
	uint64_t digits;
	bool digits_exact;  /* all significant digits fit in `digits` */
	long exp10;         /* exponent of the last written digit */
};

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static void trim(const char **b, const char **e)
{
	while (*b < *e && is_blank(**b))
		(*b)++;
	while (*e > *b && is_blank((*e)[-1]))
		(*e)--;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Scan digits [. digits] [(e|E) [+-] digits] from p (not past end).
 * Returns the position after the number, or NULL when there is none. */
static const char *scan_number(const char *p, const char *end,
			       struct number *n)
{
	/* 2^53: beyond it a double cannot hold every integer exactly. */
	const uint64_t exact_limit = (uint64_t)1 << 53;
	long frac = 0;      /* fraction digits written */
	int ndigits = 0;

	n->begin = p;
	n->digits = 0;
	n->digits_exact = true;
	for (; p < end && is_digit(*p); p++, ndigits++) {
		if (n->digits <= (UINT64_MAX - 9) / 10)
			n->digits = n->digits * 10 + (uint64_t)(*p - '0');
		else
			n->digits_exact = false;
	}
	if (p < end && *p == '.') {
		p++;
		for (; p < end && is_digit(*p); p++, ndigits++, frac++) {
			if (n->digits <= (UINT64_MAX - 9) / 10)
				n->digits = n->digits * 10 +
					    (uint64_t)(*p - '0');
			else
				n->digits_exact = false;
		}
	}
	if (ndigits == 0)
		return NULL;
	if (n->digits > exact_limit)
		n->digits_exact = false;

	long e = 0;
	/* An exponent only when digits follow: "5EB" is 5 with unit "EB". */
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		bool neg = false;
		if (q < end && (*q == '+' || *q == '-'))
			neg = *q++ == '-';
		if (q < end && is_digit(*q)) {
			for (; q < end && is_digit(*q); q++)
				if (e < 100000)  /* saturate: inf/0 anyway */
					e = e * 10 + (*q - '0');
			e = neg ? -e : e;
			p = q;
		}
	}
	/* When digits were dropped, digits_exact is false and the value
	 * comes from strtod; exp10 then serves the quantum only. */
	n->exp10 = e - frac;
	n->end = p;
	return p;
}

/* Value of n * 10^extra, correctly rounded where it matters. */
static double number_value(const struct number *n, long extra)
{
	long e = n->exp10 + extra;
	/* Clinger's fast path: exact integer and exact power of ten, so a
	 * single IEEE multiply or divide rounds correctly. */
	if (n->digits_exact && e >= -22 && e <= 22) {
		double d = (double)n->digits;
		return e >= 0 ? d * pow10_exact[e] : d / pow10_exact[-e];
	}
	/* Slow path: strtod reads the same decimal grammar (checked by
	 * scan_number), so it must stop where the scan stopped; if it does
	 * not (a locale with another decimal point), refuse the text. */
	char *stop;
	double v = strtod(n->begin, &stop);
	if (stop != n->end)
		return NAN;
	return extra ? v * pow(10.0, (double)extra) : v;
}

static double pow10_of(long e)
{
	if (e >= 0 && e <= 22)
		return pow10_exact[e];
	if (e < 0 && e >= -22)
		return 1.0 / pow10_exact[-e];
	return pow(10.0, (double)e);
}

struct unit {
	const char *name;
	int exp10;      /* decimal units: a power of ten (exact scaling) */
	double factor;  /* binary units: a power of two (exact scaling) */
};

static const struct unit size_units[] = {
	{"", 0, 1},
	{"B", 0, 1},
	{"kB", 3, 1}, {"KB", 3, 1}, {"kb", 3, 1},
	{"MB", 6, 1},
	{"GB", 9, 1},
	{"TB", 12, 1},
	{"KiB", 0, 1024.0},
	{"MiB", 0, 1024.0 * 1024},
	{"GiB", 0, 1024.0 * 1024 * 1024},
	{"TiB", 0, 1024.0 * 1024 * 1024 * 1024},
	/* One letter, as vmmap, top, ps and Activity Monitor print sizes
	 * ("214.20G", "1.2g"): powers of 1024, as those tools mean them. */
	{"K", 0, 1024.0}, {"k", 0, 1024.0},
	{"M", 0, 1024.0 * 1024}, {"m", 0, 1024.0 * 1024},
	{"G", 0, 1024.0 * 1024 * 1024}, {"g", 0, 1024.0 * 1024 * 1024},
	{"T", 0, 1024.0 * 1024 * 1024 * 1024},
	{"t", 0, 1024.0 * 1024 * 1024 * 1024},
};

const char *units_size_help(void)
{
	return "B, kB, MB, GB, TB (powers of 1000), KiB, MiB, GiB, TiB or "
	       "K, M, G, T (powers of 1024), up to 1 EiB";
}

static const struct unit *find_unit(const struct unit *units, size_t count,
				    const char *b, const char *e)
{
	size_t len = (size_t)(e - b);
	for (size_t i = 0; i < count; i++)
		if (strlen(units[i].name) == len &&
		    memcmp(units[i].name, b, len) == 0)
			return &units[i];
	return NULL;
}

/* Parse "NUMBER [blanks] UNIT" in [b, e) against a unit table. */
static int parse_with_unit(const char *b, const char *e,
			   const struct unit *units, size_t count,
			   double *value, double *quantum)
{
	struct number n;
	trim(&b, &e);
	const char *p = scan_number(b, e, &n);
	if (!p)
		return -1;
	while (p < e && is_blank(*p))
		p++;
	const struct unit *u = find_unit(units, count, p, e);
	if (!u)
		return -1;
	double v = number_value(&n, u->exp10) * u->factor;
	if (!isfinite(v))
		return -1;
	*value = v;
	if (quantum)
		*quantum = pow10_of(n.exp10 + u->exp10) * u->factor;
	return 0;
}

int units_parse_size(const char *s, double *bytes, double *quantum)
{
	assert(s && bytes);
	double v;
	if (parse_with_unit(s, s + strlen(s), size_units,
			    ARRAY_SIZE(size_units), &v, quantum) < 0)
		return -1;
	/* No memory figure is an exabyte; beyond 2^60 a reading is a typo or
	 * garbage, and past 2^63 it would not even fit a JSON integer. */
	if (v > UNITS_SIZE_MAX)
		return -2;
	*bytes = v;
	return 0;
}

static const struct unit duration_units[] = {
	{"", 0, 1}, {"s", 0, 1}, {"ms", -3, 1}, {"m", 0, 60}, {"min", 0, 60},
	{"h", 0, 3600}, {"d", 0, 86400},
};

int units_parse_duration(const char *s, double *seconds)
{
	assert(s && seconds);
	return parse_with_unit(s, s + strlen(s), duration_units,
			       ARRAY_SIZE(duration_units), seconds, NULL);
}

int units_parse_rate(const char *s, struct rate *out)
{
	assert(s && out);
	const char *slash = strrchr(s, '/');
	if (!slash)
		return -1;
	const char *b = slash + 1, *e = s + strlen(s);
	trim(&b, &e);
	size_t len = (size_t)(e - b);
	struct rate r;
	double per;  /* seconds per basis unit, or 0 for per request */
	if (len == 1 && *b == 'h')
		per = 3600;
	else if (len == 3 && memcmp(b, "min", 3) == 0)
		per = 60;
	else if (len == 1 && *b == 's')
		per = 1;
	else if (len == 1 && *b == 'd')
		per = 86400;
	else if (len == 3 && memcmp(b, "req", 3) == 0)
		per = 0;
	else
		return -1;
	double bytes;
	/* A second '/' lands in the size part and fails there. */
	if (parse_with_unit(s, slash, size_units, ARRAY_SIZE(size_units),
			    &bytes, NULL) < 0)
		return -1;
	if (per == 0) {
		r.basis = RATE_PER_REQUEST;
		r.bytes = bytes;
	} else {
		r.basis = RATE_PER_HOUR;
		r.bytes = bytes * (3600 / per);
	}
	if (!isfinite(r.bytes))
		return -1;
	*out = r;
	return 0;
}

/* Read exactly `count` digits at *p into *v. */
static bool fixed_digits(const char **p, const char *e, int count, int *v)
{
	int x = 0;
	for (int i = 0; i < count; i++) {
		if (*p >= e || !is_digit(**p))
			return false;
		x = x * 10 + (*(*p)++ - '0');
	}
	*v = x;
	return true;
}

static bool expect(const char **p, const char *e, char c)
{
	if (*p < e && **p == c) {
		(*p)++;
		return true;
	}
	return false;
}

static int days_in_month(int year, int month)
{
	static const int days[] = {31, 28, 31, 30, 31, 30,
				   31, 31, 30, 31, 30, 31};
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
	return month == 2 && leap ? 29 : days[month - 1];
}

/* ISO 8601: YYYY-MM-DD(T| )HH:MM:SS[.frac](Z|±HH:MM|±HHMM|±HH). */
static int parse_iso(const char *p, const char *e, double *out)
{
	int year, mon, day, hour, min, sec;
	if (!fixed_digits(&p, e, 4, &year) || !expect(&p, e, '-') ||
	    !fixed_digits(&p, e, 2, &mon) || !expect(&p, e, '-') ||
	    !fixed_digits(&p, e, 2, &day))
		return -1;
	if (!(expect(&p, e, 'T') || expect(&p, e, 't') || expect(&p, e, ' ')))
		return -1;
	if (!fixed_digits(&p, e, 2, &hour) || !expect(&p, e, ':') ||
	    !fixed_digits(&p, e, 2, &min) || !expect(&p, e, ':') ||
	    !fixed_digits(&p, e, 2, &sec))
		return -1;
	double frac = 0;
	if (p < e && *p == '.') {
		double scale = 0.1;
		p++;
		if (p >= e || !is_digit(*p))
			return -1;
		for (; p < e && is_digit(*p); p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	/* 60 is a leap second; timegm() folds it into the next minute. */
	if (mon < 1 || mon > 12 || day < 1 ||
	    day > days_in_month(year, mon) || hour > 23 || min > 59 ||
	    sec > 60)
		return -1;

	long offset = 0;  /* seconds east of UTC */
	if (expect(&p, e, 'Z') || expect(&p, e, 'z')) {
		/* UTC */
	} else if (p < e && (*p == '+' || *p == '-')) {
		int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
		if (!fixed_digits(&p, e, 2, &oh))
			return -1;
		if (p < e) {
			expect(&p, e, ':');  /* optional: +02:00 or +0200 */
			if (!fixed_digits(&p, e, 2, &om))
				return -1;
		}
		if (oh > 23 || om > 59)
			return -1;
		offset = sign * (oh * 3600L + om * 60L);
	} else {
		/* No zone: local time of an unknown place. Refuse rather
		 * than guess (a wrong guess shifts a whole series). */
		return -1;
	}
	if (p != e)
		return -1;

	struct tm tm = {
		.tm_year = year - 1900, .tm_mon = mon - 1, .tm_mday = day,
		.tm_hour = hour, .tm_min = min, .tm_sec = sec,
	};
	time_t t = timegm(&tm);
	*out = (double)t - (double)offset + frac;
	return 0;
}

int units_parse_time(const char *s, double *unix_seconds)
{
	assert(s && unix_seconds);
	const char *b = s, *e = s + strlen(s);
	trim(&b, &e);
	/* "YYYY-" can only start an ISO date; anything else is a number. */
	if (e - b >= 5 && b[4] == '-') {
		if (parse_iso(b, e, unix_seconds) < 0)
			return -1;
		return units_time_in_range(*unix_seconds) ? 0 : -2;
	}
	struct number n;
	const char *p = scan_number(b, e, &n);
	if (!p || p != e)
		return -1;
	double v = number_value(&n, 0);
	if (!isfinite(v))
		return -1;
	*unix_seconds = v;
	return units_time_in_range(v) ? 0 : -2;
}

bool units_time_in_range(double t)
{
	return t >= UNITS_TIME_MIN && t < UNITS_TIME_MAX;
}

/* x >= 0 with 3 significant digits, no exponent for x >= 1000 and
 * trailing zeros dropped ("1", "1.5", "40", "246", "2000"). */
static void format_sig3(char *out, size_t n, double x)
{
	if (x >= 999.5)
		snprintf(out, n, "%.0f", x);
	else
		snprintf(out, n, "%.3g", x);
}

/* Sizes in binary (1024) or decimal (1000) units, 3 significant digits. */
char *units_format_size_in(char *buf, size_t n, double bytes, bool decimal)
{
	static const char *const binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	static const char *const si[] = {"B", "kB", "MB", "GB", "TB"};
	const char *const *names = decimal ? si : binary;
	double base = decimal ? 1000 : 1024;
	assert(buf && n > 0);
	if (!isfinite(bytes)) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	double a = fabs(bytes), scale = 1;
	size_t u = 0;
	/* Move up while the figure would print as 1000 or more, so at most
	 * three digits show: "0.977 GiB" rather than "1000 MiB". */
	while (u + 1 < ARRAY_SIZE(binary) && a / scale >= 999.5) {
		scale *= base;
		u++;
	}
	char num[64];
	format_sig3(num, sizeof(num), a / scale);
	/* The sign of a value that prints as 0 would read "-0 B". */
	bool neg = bytes < 0 && strcmp(num, "0") != 0;
	snprintf(buf, n, "%s%s %s", neg ? "-" : "", num, names[u]);
	return buf;
}

char *units_format_size(char *buf, size_t n, double bytes)
{
	return units_format_size_in(buf, n, bytes, false);
}

char *units_format_rate(char *buf, size_t n, double bytes_per_hour)
{
	assert(buf && n > 0);
	char size[64];
	units_format_size(size, sizeof(size), bytes_per_hour);
	snprintf(buf, n, "%s/h", size);
	return buf;
}

static char *format_signed_per(char *buf, size_t n, double bytes,
			       bool decimal, const char *per)
{
	assert(buf && n > 0);
	char size[64];
	units_format_size_in(size, sizeof(size), bytes, decimal);
	snprintf(buf, n, "%s%s/%s", bytes > 0 ? "+" : "", size, per);
	return buf;
}

char *units_format_slope(char *buf, size_t n, double bytes_per_hour,
			 bool decimal)
{
	return format_signed_per(buf, n, bytes_per_hour, decimal, "h");
}

char *units_format_per_request(char *buf, size_t n, double bytes_per_request,
			       bool decimal)
{
	return format_signed_per(buf, n, bytes_per_request, decimal, "req");
}

char *units_format_count(char *buf, size_t n, double count)
{
	assert(buf && n > 0);
	if (!isfinite(count)) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	/* Whole numbers with thousands separators: "3,100", "1,234,567". */
	char digits[48];
	snprintf(digits, sizeof(digits), "%.0f", fabs(count));
	size_t len = strlen(digits), o = 0;
	char out[72];
	if (count < 0 && llround(count) != 0)
		out[o++] = '-';
	for (size_t i = 0; i < len && o < sizeof(out) - 2; i++) {
		if (i && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(buf, n, "%s", out);
	return buf;
}

char *units_format_duration(char *buf, size_t n, double seconds)
{
	static const struct {
		const char *name;
		double seconds;
		double next;  /* this unit's count that makes the next one */
	} units[] = {
		{"s", 1, 60}, {"min", 60, 60}, {"h", 3600, 24},
		{"d", 86400, INFINITY},
	};
	assert(buf && n > 0);
	if (!isfinite(seconds)) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	double a = fabs(seconds);
	size_t u = 0;
	/* Every `next` is >= 10, so at the switch the count prints as a
	 * whole number: it reaches `next` once it is >= next - 0.5. */
	while (u + 1 < ARRAY_SIZE(units) &&
	       a / units[u].seconds >= units[u].next - 0.5)
		u++;
	double v = a / units[u].seconds;
	char num[64];
	if (v >= 9.95) {
		snprintf(num, sizeof(num), "%.0f", v);
	} else if (v >= 1 || u > 0) {
		snprintf(num, sizeof(num), "%.1f", v);
		size_t len = strlen(num);
		if (len > 2 && strcmp(num + len - 2, ".0") == 0)
			num[len - 2] = '\0';
	} else if (v < 0.0005) {
		snprintf(num, sizeof(num), "0");  /* never "1.7e-07 s" */
	} else {
		snprintf(num, sizeof(num), "%.2g", v);  /* under a second */
	}
	bool neg = seconds < 0 && strcmp(num, "0") != 0;
	snprintf(buf, n, "%s%s %s", neg ? "-" : "", num, units[u].name);
	return buf;
}

char *units_format_time(char *buf, size_t n, double unix_seconds)
{
	assert(buf && n > 0);
	struct tm tm;
	/* Floor, not round: a time shown belongs to the second it is in. */
	double f = floor(unix_seconds);
	if (!isfinite(f) || f < -62135596800.0 || f > 253402300799.0) {
		snprintf(buf, n, "n/a");  /* outside years 1..9999 */
		return buf;
	}
	time_t t = (time_t)f;
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, n, "n/a");
		return buf;
	}
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return buf;
}
