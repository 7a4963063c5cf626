/* SPDX-License-Identifier: MIT */
/*
 * paths.h — source paths as a reader expects them.
 */
#ifndef PV_PATHS_H
#define PV_PATHS_H

/* Normalise path in place, lexically: no empty or "." components, and
 * "dir/.." collapsed ("../lib/x/../common/mem.h" -> "../lib/common/mem.h").
 * Symbolic links are not followed: the path names the file the compiler
 * was given, which need not exist here. Leading ".." of a relative path
 * stay; at the root of an absolute one they go, as the kernel would. */
void pv_path_normalise(char *path);

/* The last component of path: "a/b/prog" -> "prog". */
const char *pv_path_base(const char *path);

#endif /* PV_PATHS_H */
