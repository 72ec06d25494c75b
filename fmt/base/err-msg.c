// SPDX-License-Identifier: MIT
/* The one error type of darc (struct err_msg, err-msg.h): "FILE: what is wrong". */
#include "err-msg.h"

#include <stdarg.h>
#include <stdio.h>

int err_setf(struct err_msg *err, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!err)
		return -1;
	if (path)
		n = snprintf(err->msg, sizeof(err->msg), "'%s': ", path);
	if (n < 0 || (size_t)n >= sizeof(err->msg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
	/* one line: fold anything a file smuggled into the message */
	for (char *c = err->msg; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	return -1;
}
