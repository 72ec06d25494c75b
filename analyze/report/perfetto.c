// SPDX-License-Identifier: MIT
#include "export.h"
int export_perfetto(FILE *out, struct rdb *db, const struct ropt *o, bool owner,
		    struct fmt_err *err)
{
	return fmt_errf(err, NULL, "todo");
}
