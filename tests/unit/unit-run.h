/* SPDX-License-Identifier: MIT */
/*
 * unit-run: what every unit test's main() does with its check suite, once:
 * run it to the end and turn the failures into the exit status.
 */
#ifndef DARC_UNIT_RUN_H
#define DARC_UNIT_RUN_H

#include <check.h>
#include <stdlib.h>

/* A suite named @name of the one test case @tc. */
static inline Suite *unit_suite(const char *name, TCase *tc)
{
	Suite *s = suite_create(name);

	suite_add_tcase(s, tc);
	return s;
}

/* Run every test of @s: EXIT_SUCCESS when all passed, else EXIT_FAILURE. */
static inline int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
