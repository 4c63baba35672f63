/*
 * synth.c - a synthetic recording for the report benchmarks: one target,
 * one incarnation, N samples one second apart, written through the store
 * (src/store.h) exactly as the recorder writes them.
 *
 *   bench_synth -n N [-o FILE.db] [--csv FILE.csv] [--csv-plain FILE.csv]
 *               [--seed S] [--slope BYTES_PER_HOUR] [--noise BYTES]
 *
 * Series: t_i = 1.7e9 + i (Unix seconds);
 *   footprint_i = 1 GiB + slope * i / 3600 + e_i, rounded to 4 KiB,
 *   e_i = phi * e_{i-1} + sqrt(1 - phi^2) * noise * z_i  (AR(1), phi 0.9,
 *   z_i standard normal from a seeded xoshiro256** + Box-Muller), so the
 *   noise has standard deviation `noise` (default 4 MiB) and the samples
 *   are autocorrelated as real ones are. Default slope: 10 MiB/h.
 * -o writes the recording (replacing FILE, FILE-wal, FILE-shm): rss =
 *   footprint + 48 MiB of file pages, anon = footprint, shmem = swap = 0,
 *   pagetables 2 MiB; committed every 100,000 rows.
 * --csv writes "time,footprint" with a header (memtrend report's CSV);
 * --csv-plain writes the same rows without a header ("seconds,bytes", as
 *   shared/peers/scipy_trend.py reads them).
 * Prints one line: synth n=N seconds=S rows_per_s=R
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "store.h"

#define COMMIT_ROWS 100000
#define T0 1.7e9
#define GIB 1073741824.0
#define MIB 1048576.0
#define PAGE 4096.0
#define PHI 0.9

static uint64_t rng_s[4];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t next_u64(void)
{
	uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
	rng_s[2] ^= rng_s[0];
	rng_s[3] ^= rng_s[1];
	rng_s[1] ^= rng_s[2];
	rng_s[0] ^= rng_s[3];
	rng_s[2] ^= t;
	rng_s[3] = rotl(rng_s[3], 45);
	return r;
}

/* Uniform in (0, 1]. */
static double next_unit(void)
{
	return ((double)(next_u64() >> 11) + 1.0) * 0x1.0p-53;
}

static double next_normal(void)
{
	static int have;
	static double spare;
	if (have) {
		have = 0;
		return spare;
	}
	double r = sqrt(-2.0 * log(next_unit()));
	double a = 2.0 * M_PI * next_unit();
	spare = r * sin(a);
	have = 1;
	return r * cos(a);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_synth -n N [-o FILE.db] [--csv FILE.csv] "
		"[--csv-plain FILE.csv]\n"
		"                   [--seed S] [--slope BYTES_PER_HOUR] "
		"[--noise BYTES]\n");
	exit(2);
}

static FILE *open_csv(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "bench_synth: %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
	static char bufs[2][1 << 20];
	static int used;
	setvbuf(f, bufs[used++ & 1], _IOFBF, sizeof(bufs[0]));
	return f;
}

/* "1700000123,1073741824\n" without printf: both are integers. */
static size_t fmt_row(char *out, long long t, long long v)
{
	char tmp[48];
	size_t n = 0, k = 0;
	long long parts[2] = {t, v};
	for (int p = 0; p < 2; p++) {
		long long x = parts[p];
		if (x < 0) {
			out[n++] = '-';
			x = -x;
		}
		k = 0;
		do
			tmp[k++] = (char)('0' + x % 10);
		while ((x /= 10) > 0);
		while (k)
			out[n++] = tmp[--k];
		out[n++] = p == 0 ? ',' : '\n';
	}
	return n;
}

int main(int argc, char **argv)
{
	long long n = -1;
	const char *db = NULL, *csv = NULL, *plain = NULL;
	uint64_t seed = 42;
	double slope = 10 * MIB, noise = 4 * MIB;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			usage();
		if (strcmp(a, "-n") == 0)
			n = (long long)strtod(v, NULL);
		else if (strcmp(a, "-o") == 0)
			db = v;
		else if (strcmp(a, "--csv") == 0)
			csv = v;
		else if (strcmp(a, "--csv-plain") == 0)
			plain = v;
		else if (strcmp(a, "--seed") == 0)
			seed = strtoull(v, NULL, 10);
		else if (strcmp(a, "--slope") == 0)
			slope = strtod(v, NULL);
		else if (strcmp(a, "--noise") == 0)
			noise = strtod(v, NULL);
		else
			usage();
		i++;
	}
	if (n < 2 || (!db && !csv && !plain))
		usage();
	for (int i = 0; i < 4; i++)
		rng_s[i] = splitmix(&seed);

	double w0 = now_s();
	struct store *st = NULL;
	int64_t inc = 0;
	if (db) {
		store_remove(db);
		st = store_create(db, false);
		if (!st)
			return 1;
		char pid_s[] = "4242";
		char cmdline[] = "bench_synth";
		store_meta_set(st, "interval_s", "1");
		store_meta_set(st, "page_size", "4096");
		store_meta_set(st, "invocation", "bench_synth (synthetic)");
		store_meta_set(st, "footprint_definition",
			       "anon + swap + shmem (RssAnon + VmSwap + "
			       "RssShmem)");
		int64_t target = store_target_add(st, "pid", pid_s, "synth",
						  0);
		struct proc_identity id = {
			.pid = 4242, .ppid = 1, .start_ticks = 1,
			.start_time = T0 - 10, .comm = "synth",
			.cmdline = cmdline,
		};
		inc = target < 0 ? -1 :
		      store_incarnation_add(st, target, &id, 0, T0);
		if (inc < 0 || store_commit(st)) {
			store_close(st);
			return 1;
		}
	}
	FILE *fc = csv ? open_csv(csv) : NULL;
	FILE *fp = plain ? open_csv(plain) : NULL;
	if (fc)
		fputs("time,footprint\n", fc);

	double e = noise * next_normal();
	const double innov = noise * sqrt(1 - PHI * PHI);
	char row[64];
	for (long long i = 0; i < n; i++) {
		double t = T0 + (double)i;
		if (i)
			e = PHI * e + innov * next_normal();
		double f = GIB + slope * (double)i / 3600.0 + e;
		f = floor(f / PAGE + 0.5) * PAGE;
		if (st) {
			struct store_sample s = {
				.incarnation_id = inc, .t = t,
				.mem = {
					.rss = f + 48 * MIB, .anon = f,
					.file = 48 * MIB, .shmem = 0,
					.swap = 0, .pagetables = 2 * MIB,
					.footprint = f,
				},
				.smaps = NULL,
			};
			if (store_sample_add(st, &s))
				return 1;
			if ((i + 1) % COMMIT_ROWS == 0 && store_commit(st))
				return 1;
		}
		if (fc || fp) {
			size_t len = fmt_row(row, (long long)t, (long long)f);
			if (fc)
				fwrite(row, 1, len, fc);
			if (fp)
				fwrite(row, 1, len, fp);
		}
	}
	int rc = 0;
	if (st && store_close(st))
		rc = 1;
	if (fc && fclose(fc))
		rc = 1;
	if (fp && fclose(fp))
		rc = 1;
	if (rc) {
		fprintf(stderr, "bench_synth: write failed\n");
		return 1;
	}
	double secs = now_s() - w0;
	printf("synth n=%lld seconds=%.3f rows_per_s=%.0f\n", n, secs,
	       (double)n / secs);
	return 0;
}
