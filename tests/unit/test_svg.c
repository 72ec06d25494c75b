// SPDX-License-Identifier: MIT
/*
 * Unit tests of analyze/report/svg.c: the elements a plot must have, counted
 * in the text it writes (tests/golden/svg.sh parses real ones as XML and
 * renders them in a browser).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "unit-run.h"

static char *buf;
static size_t len;

static FILE *mem(void)
{
	free(buf);
	buf = NULL;
	return open_memstream(&buf, &len);
}

static int count(const char *needle)
{
	int n = 0;

	for (const char *p = buf; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

START_TEST(test_hist)
{
	uint64_t c[33] = {[17] = 43, [18] = 11981, [19] = 266, [20] = 106, [21] = 5,
			  [23] = 3,  [24] = 22};
	struct profile p = {1, 0, 33, c, NULL, NULL};
	struct peak pk[2] = {{.lo = 17, .hi = 21}, {.lo = 23, .hi = 24}};
	FILE *f = mem();

	ck_assert_int_eq(svg_hist(f, &p, NULL, pk, 2, "vfs_readdir <grep> & co", "sub", "ns"), 0);
	fclose(f);
	ck_assert_int_eq(count("class=\"bar\""), 7);
	ck_assert_int_eq(count("class=\"peak\""), 2);
	ck_assert(strstr(buf, "data-bucket=\"18\" data-count=\"11981\""));
	ck_assert(strstr(buf, "data-peak=\"2\" data-lo=\"23\" data-hi=\"24\""));
	ck_assert(strstr(buf, "vfs_readdir &lt;grep&gt; &amp; co"));
	ck_assert(!strstr(buf, "<grep>"));
	ck_assert(strstr(buf, ">131us<") || strstr(buf, ">131.1us<")); /* bucket 17's edge */
	ck_assert(strncmp(buf, "<svg ", 5) == 0);
	ck_assert(strstr(buf, "</svg>\n"));
}
END_TEST

START_TEST(test_two_sides)
{
	uint64_t a[8] = {[3] = 10, [4] = 5}, b[8] = {[4] = 7, [6] = 1};
	struct profile pa = {1, 0, 8, a, NULL, NULL}, pb = {1, 0, 8, b, NULL, NULL};
	FILE *f = mem();

	ck_assert_int_eq(svg_hist(f, &pa, &pb, NULL, 0, "t", "s", "ns"), 0);
	fclose(f);
	ck_assert_int_eq(count("data-side=\"0\""), 2);
	ck_assert_int_eq(count("data-side=\"1\""), 2);
	ck_assert_int_eq(count("class=\"peak\""), 0);
}
END_TEST

START_TEST(test_heatmap)
{
	uint64_t r0[3] = {1, 0, 4}, r1[3] = {0, 9, 2};
	struct profile rows[2] = {{1, 10, 3, r0, NULL, NULL}, {1, 10, 3, r1, NULL, NULL}};
	FILE *f = mem();

	ck_assert_int_eq(svg_heatmap(f, rows, 2, 500000000, 100000000, "heat", "ns"), 0);
	fclose(f);
	ck_assert_int_eq(count("class=\"cell\""), 6);
	ck_assert(strstr(buf, "data-row=\"1\" data-bucket=\"11\" data-count=\"9\""));
	ck_assert(strstr(buf, "fill=\"rgb(255,255,255)\"")); /* an empty cell is white */
	ck_assert(strstr(buf, ">0.600 s<"));
}
END_TEST

int main(void)
{
	TCase *tc = tcase_create("plots");
	int rc;

	tcase_add_test(tc, test_hist);
	tcase_add_test(tc, test_two_sides);
	tcase_add_test(tc, test_heatmap);
	rc = unit_run(unit_suite("svg", tc));
	free(buf);
	return rc;
}
