/* SPDX-License-Identifier: MIT */
/*
 * err-msg: the one error type of darc (err-msg.c). Every function that can
 * fail, in every folder, takes a struct err_msg and fills it with a one-line
 * message that names the file and what is wrong; the caller decides whether
 * to print it. (Not err.h: that name is the C library's.)
 */
#ifndef DARC_ERR_MSG_H
#define DARC_ERR_MSG_H

/* A one-line error message: "FILE: what is wrong". */
struct err_msg {
	char msg[512];
};

/* Fill @err with "PATH: printf-style message"; returns -1 for convenience. */
int err_setf(struct err_msg *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
