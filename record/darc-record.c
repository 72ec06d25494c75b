// SPDX-License-Identifier: MIT
/*
 * darc-record: the recorder. Not implemented yet (issue [3]); until then it
 * says so and exits 2, so scripts cannot mistake it for a recording.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--version"))) {
		printf("darc-record %s\n", DARC_VERSION);
		return 0;
	}
	fprintf(stderr, "darc-record: not implemented yet; record with trace-cmd and analyze the "
			"trace.dat with darc\n");
	return 2;
}
