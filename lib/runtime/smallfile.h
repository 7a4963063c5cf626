/* SPDX-License-Identifier: MIT */
/*
 * smallfile.h — reading a /proc or /sys entry without stdio.
 *
 * Start-up runs before the program's constructors: a program that brings its
 * own malloc may not have it ready yet, and fopen would call it. These reads
 * call nothing of the program's.
 */
#ifndef PV_SMALLFILE_H
#define PV_SMALLFILE_H

#include <stddef.h>
#include <sys/types.h>

/* Up to size - 1 bytes from the start of path into buf, NUL-terminated.
 * The number of bytes read, or -1 (buf then empty). */
ssize_t pv_read_small_file(const char *path, char *buf, size_t size);

#endif /* PV_SMALLFILE_H */
