// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/report/profile.c: peak detection on the vectors of
 * analyze/METHODS.md section 5, and the comparison methods of section 6 on
 * hand-computed cases.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "profile.h"
#include "rdb.h"
#include "unit-run.h"

static const struct peak_params defaults = PEAK_PARAMS_DEFAULT;
/* the other rule, log-count prominence 2 (--prominence 2) */
static const struct peak_params prom = {PEAK_PROMINENCE, 2.0, 1};

/* A resolution-1 profile from bucket 0 of the @n counts given. */
static struct profile prof(uint64_t *count, int n)
{
	return (struct profile){.resolution = 1, .lo = 0, .n = n, .count = count};
}

/* The peaks of @count by the prominence rule (--prominence 2). */
static int peaks(uint64_t *count, int n, struct peak **pk)
{
	struct profile p = prof(count, n);
	return profile_peaks(&p, &prom, pk);
}

/* The DARC dissertation's vfs_readdir profile: two peaks, 17-21 and 23-24. */
START_TEST(test_darc_vector)
{
	uint64_t c[33] = {[17] = 43, [18] = 11981, [19] = 266, [20] = 106, [21] = 5,
			  [23] = 3,  [24] = 22};
	struct peak *pk;

	ck_assert_int_eq(peaks(c, 33, &pk), 2);
	ck_assert_int_eq(pk[0].lo, 17);
	ck_assert_int_eq(pk[0].hi, 21);
	ck_assert_int_eq(pk[0].calls, 12401);
	ck_assert_int_eq(pk[1].lo, 23);
	ck_assert_int_eq(pk[1].hi, 24);
	ck_assert_int_eq(pk[1].calls, 25);
	ck_assert(fabs(pk[0].share_calls + pk[1].share_calls - 1) < 1e-12);
	ck_assert(fabs(pk[1].share_calls - 25.0 / 12426) < 1e-12);
	free(pk);
}
END_TEST

/* An OSprof readdir-like profile with four humps: 6-7, 9-14, 16-17, 18-23. */
START_TEST(test_four_humps)
{
	uint64_t c[30] = {[6] = 30,   [7] = 12,	 [9] = 5,    [10] = 60,	 [11] = 300,
			  [12] = 800, [13] = 200, [14] = 40, [16] = 150, [17] = 90,
			  [18] = 9,   [19] = 40,  [20] = 160, [21] = 120, [22] = 30, [23] = 4};
	static const int want[4][2] = {{6, 7}, {9, 14}, {16, 17}, {18, 23}};
	struct peak *pk;

	ck_assert_int_eq(peaks(c, 30, &pk), 4);
	for (int k = 0; k < 4; k++) {
		ck_assert_int_eq(pk[k].lo, want[k][0]);
		ck_assert_int_eq(pk[k].hi, want[k][1]);
	}
	free(pk);
}
END_TEST

/* One hump with a shallow dip and a stray call beside it: one peak. */
START_TEST(test_unimodal)
{
	uint64_t c[20] = {[10] = 5, [11] = 50, [12] = 200, [13] = 150, [14] = 170, [15] = 20,
			  [17] = 1};
	struct peak *pk;

	ck_assert_int_eq(peaks(c, 20, &pk), 1);
	ck_assert_int_eq(pk[0].lo, 10);
	ck_assert_int_eq(pk[0].hi, 17);
	ck_assert_int_eq(pk[0].calls, 596);
	free(pk);
}
END_TEST

START_TEST(test_empty)
{
	uint64_t c[8] = {0};
	struct peak *pk = (struct peak *)1;

	ck_assert_int_eq(peaks(c, 8, &pk), 0);
	ck_assert_ptr_null(pk);
	ck_assert_int_eq(peaks(c, 0, &pk), 0);
}
END_TEST

/* The parameters: an even window is refused; a lower prominence splits more. */
START_TEST(test_params)
{
	uint64_t c[20] = {[10] = 5, [11] = 50, [12] = 200, [13] = 150, [14] = 170, [15] = 20};
	struct profile p = prof(c, 20);
	struct peak_params even = {PEAK_PROMINENCE, 1.0, 2}, low = {PEAK_PROMINENCE, 0.1, 1};
	struct peak_params smooth = {PEAK_PROMINENCE, 0.1, 3}, none = {7, 2.0, 1};
	struct peak *pk;

	ck_assert_int_eq(profile_peaks(&p, &even, &pk), -1);
	ck_assert_int_eq(profile_peaks(&p, &none, &pk), -1); /* no such rule */
	ck_assert_int_eq(profile_peaks(&p, &low, &pk), 2);
	ck_assert_int_eq(pk[0].hi, 12);
	ck_assert_int_eq(pk[1].lo, 13);
	free(pk);
	ck_assert_int_eq(profile_peaks(&p, &smooth, &pk), 1);
	free(pk);
}
END_TEST

/* ---- the peaks a person sees (profile_peaks_seen) ---- */

/* @count from bucket @from: its peaks must be the @n ranges in @want (lo, hi pairs). */
static void seen(const uint64_t *count, int ncount, int from, int n, const int (*want)[2])
{
	uint64_t c[64] = {0};
	struct profile p;
	struct peak *pk;
	int got;

	for (int i = 0; i < ncount; i++)
		c[from + i] = count[i];
	p = prof(c, 64);
	got = profile_peaks_seen(&p, &pk);
	ck_assert_int_eq(got, n);
	for (int k = 0; k < n; k++) {
		ck_assert_int_eq(pk[k].lo, want[k][0]);
		ck_assert_int_eq(pk[k].hi, want[k][1]);
	}
	free(pk);
}

START_TEST(test_seen_dissertation)
{
	static const uint64_t c[] = {43, 11981, 266, 106, 5, 0, 3, 22};
	static const int want[][2] = {{17, 21}, {23, 24}};

	seen(c, 8, 17, 2, want);
}
END_TEST

START_TEST(test_seen_readdir)
{
	static const uint64_t c[] = {30, 12, 0, 5, 60, 300, 800, 200, 40, 0, 150, 90, 9, 40, 160,
				     120, 30, 4};
	static const int want[][2] = {{6, 7}, {9, 14}, {16, 17}, {18, 23}};

	seen(c, 18, 6, 4, want);
}
END_TEST

/* One hump with a shallow dip, and a stray call past an empty bucket: folded in. */
START_TEST(test_seen_unimodal)
{
	static const uint64_t c[] = {5, 50, 200, 150, 170, 20, 0, 1};
	static const int want[][2] = {{10, 17}};

	seen(c, 8, 10, 1, want);
}
END_TEST

START_TEST(test_seen_empty)
{
	uint64_t c[8] = {0};
	struct profile p = prof(c, 8);
	struct peak *pk = (struct peak *)1;

	ck_assert_int_eq(profile_peaks_seen(&p, &pk), 0);
	ck_assert_ptr_null(pk);
}
END_TEST

/* Zero-byte reads with a timer-interrupt hump at 17: the body, and the hump. */
START_TEST(test_seen_zeroread)
{
	static const uint64_t c[] = {19448, 244, 65, 183, 61, 1};
	static const int want[][2] = {{14, 15}, {16, 19}};

	seen(c, 6, 14, 2, want);
}
END_TEST

/* getrandom beside a CPU hog: a stray fast call (folded), the body, one 1.3 s call apart. */
START_TEST(test_seen_outlier)
{
	static const uint64_t c[] = {1, 0, 0, 0, 0, 0, 125, 73, 40, 42, 18, 1, 0, 0, 0, 0, 0, 1};
	static const int want[][2] = {{13, 24}, {30, 30}};

	seen(c, 18, 13, 2, want);
}
END_TEST

/* Noise on one hump: 3 over 1, 2 over 1 are not peaks. */
START_TEST(test_seen_noisy)
{
	static const uint64_t c[] = {3, 1, 3, 40, 90, 41, 3, 1, 2};
	static const int want[][2] = {{10, 18}};

	seen(c, 9, 10, 1, want);
}
END_TEST

/*
 * One rule for every command: profile_peaks() with the default parameters
 * (darc hist, peaks, paths, diff's group methods) finds the peaks a person
 * sees, those explain finds; the prominence rule stays an option. The
 * issue's two: zero-byte reads with a timer hump (one peak 14-19 by
 * prominence 2, two as seen) and getrandom's 1.31 s call ten octaves past
 * the body (one peak 13-30 by prominence, a peak of its own as seen).
 */
START_TEST(test_one_rule)
{
	uint64_t zr[24] = {[14] = 19448, 244, 65, 183, 61, 1};
	uint64_t gr[32] = {[13] = 1, [19] = 125, 73, 40, 42, 18, 1, [30] = 1};
	struct profile pz = prof(zr, 24), pg = prof(gr, 32);
	struct peak *pk, *seen_pk;

	ck_assert_int_eq(profile_peaks(&pz, &defaults, &pk), 2);
	ck_assert_int_eq(profile_peaks_seen(&pz, &seen_pk), 2);
	for (int k = 0; k < 2; k++) {
		ck_assert_int_eq(pk[k].lo, seen_pk[k].lo);
		ck_assert_int_eq(pk[k].hi, seen_pk[k].hi);
	}
	ck_assert_int_eq(pk[1].lo, 16);
	free(pk);
	free(seen_pk);
	ck_assert_int_eq(profile_peaks(&pz, &prom, &pk), 1);
	ck_assert_int_eq(pk[0].hi, 19);
	free(pk);
	ck_assert_int_eq(profile_peaks(&pg, &defaults, &pk), 2);
	ck_assert_int_eq(pk[1].lo, 30);
	ck_assert_int_eq(pk[1].calls, 1);
	free(pk);
	ck_assert_int_eq(profile_peaks(&pg, &prom, &pk), 1);
	ck_assert_int_eq(pk[0].lo, 13);
	ck_assert_int_eq(pk[0].hi, 30);
	free(pk);
}
END_TEST

START_TEST(test_chi2_cdf)
{
	ck_assert(fabs(profile_chi2_cdf(3.841459, 1) - 0.95) < 1e-6);
	ck_assert(fabs(profile_chi2_cdf(18.307038, 10) - 0.95) < 1e-6);
	ck_assert(fabs(profile_chi2_cdf(2, 2) - (1 - exp(-1))) < 1e-12);
	ck_assert(fabs(profile_chi2_cdf(200, 150) - 0.996026814) <
		  1e-8); /* the continued fraction */
	ck_assert(fabs(profile_chi2_cdf(160, 150) - 0.726842195) < 1e-8);
	ck_assert(profile_chi2_cdf(0, 3) == 0);
}
END_TEST

static double cmp(uint64_t *a, uint64_t *b, int n, int method)
{
	struct profile pa = prof(a, n), pb = prof(b, n);
	return profile_compare(&pa, &pb, method, &defaults);
}

START_TEST(test_compare_identical)
{
	uint64_t a[16] = {[4] = 10, [5] = 100, [6] = 7, [12] = 40};

	for (int m = 0; m < CMP_METHODS; m++)
		ck_assert_msg(cmp(a, a, 16, m) == 0, "%s", profile_cmp_method_name(m));
}
END_TEST

/* A whole profile shifted by 1 and by 10 buckets: chi-square alike, EMD 10x apart. */
START_TEST(test_compare_shift)
{
	uint64_t a[40] = {[10] = 100}, b1[40] = {[11] = 100}, b10[40] = {[20] = 100};

	ck_assert(fabs(cmp(a, b1, 40, CMP_CHISQUARE) - cmp(a, b10, 40, CMP_CHISQUARE)) < 1e-9);
	ck_assert(cmp(a, b1, 40, CMP_CHISQUARE) > 99.9);
	ck_assert(fabs(cmp(a, b1, 40, CMP_EMD) - 100) < 1e-9);
	ck_assert(fabs(cmp(a, b10, 40, CMP_EMD) - 1000) < 1e-9);
	ck_assert(cmp(a, b1, 40, CMP_TOTOPS) == 0);
	ck_assert(fabs(cmp(a, b1, 40, CMP_TOTLAT) - 100) < 1e-9); /* twice the latency */
	ck_assert(cmp(a, b10, 40, CMP_GROUPOPS) == 100);	   /* the peak moved */
}
END_TEST

START_TEST(test_compare_counts)
{
	/* 100 calls vs 80: TOTOPS 20%; the same two peaks: GROUPOPS by peak */
	uint64_t a[30] = {[5] = 60, [20] = 40}, b[30] = {[5] = 50, [20] = 30};
	uint64_t c[30] = {[5] = 100};

	ck_assert(fabs(cmp(a, b, 30, CMP_TOTOPS) - 20) < 1e-9);
	ck_assert(fabs(cmp(a, b, 30, CMP_GROUPOPS) - 20) < 1e-9); /* (10 + 10) / 100 */
	ck_assert(cmp(a, c, 30, CMP_GROUPOPS) == 100);		  /* two peaks vs one */
	ck_assert(cmp(a, c, 30, CMP_GROUPLAT) == 100);
	/* chi-square: (60-50)^2/110 + (40-30)^2/70 = 2.3377, 1 degree of freedom */
	ck_assert(fabs(cmp(a, b, 30, CMP_CHISQUARE) -
		       100 * profile_chi2_cdf(100.0 / 110 + 100.0 / 70, 1)) < 1e-9);
	/* EMD: normalised 0.6/0.4 vs 0.625/0.375: 0.025 carried over 15 buckets */
	ck_assert(fabs(cmp(a, b, 30, CMP_EMD) - 100 * 0.025 * 15) < 1e-9);
	ck_assert(isnan(cmp((uint64_t[30]){0}, a, 30, CMP_TOTOPS)));
	ck_assert_int_eq(profile_cmp_method_of("emd"), CMP_EMD);
	ck_assert_int_eq(profile_cmp_method_of("nope"), -1);
}
END_TEST

/* The metric codes of table peak are those of the hist_metric lookup table. */
START_TEST(test_metric_codes)
{
	static const char *const names[] = {"incl", "excl", "irq", "softirq", "preempt", "blocked"};

	ck_assert_int_eq(RM_METRICS, 6);
	for (int m = 0; m < RM_METRICS; m++) {
		ck_assert_str_eq(rdb_metric_name(m), names[m]);
		ck_assert_int_eq(rdb_metric_of(names[m]), m);
	}
	ck_assert_int_eq(rdb_metric_of("wall"), -1);
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("peaks");

	tcase_add_test(tc, test_darc_vector);
	tcase_add_test(tc, test_four_humps);
	tcase_add_test(tc, test_unimodal);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_seen_dissertation);
	tcase_add_test(tc, test_seen_readdir);
	tcase_add_test(tc, test_seen_unimodal);
	tcase_add_test(tc, test_seen_empty);
	tcase_add_test(tc, test_seen_zeroread);
	tcase_add_test(tc, test_seen_outlier);
	tcase_add_test(tc, test_seen_noisy);
	tcase_add_test(tc, test_params);
	tcase_add_test(tc, test_one_rule);
	tcase_add_test(tc, test_chi2_cdf);
	tcase_add_test(tc, test_compare_identical);
	tcase_add_test(tc, test_compare_shift);
	tcase_add_test(tc, test_compare_counts);
	tcase_add_test(tc, test_metric_codes);
	return unit_run(unit_suite("profile", tc));
}
