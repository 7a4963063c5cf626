/* SPDX-License-Identifier: MIT */
/*
 * compiler.h — which compiler built a module, as far as its file tells:
 * the exclusion advice differs (gcc leaves functions out by name, clang has
 * no such flag and instruments after inlining on request).
 */
#ifndef PV_CMD_COMPILER_H
#define PV_CMD_COMPILER_H

enum pv_compiler {
	PV_BUILT_UNKNOWN, /* the file cannot be read here, or signs neither */
	PV_BUILT_GCC,
	PV_BUILT_CLANG,
};

/* From the .comment section of the ELF file at path, where each compiler
 * of its objects signs ("GCC: (...) 12.2.0", "clang version 14.0.6").
 * gcc's signature is in every program gcc's C runtime objects went into,
 * clang's too: a module clang signs is taken as clang's, though objects
 * gcc built may be in it as well, which nothing here tells apart. A file
 * changed since the run answers for what it is now. */
enum pv_compiler pv_module_compiler(const char *path);

#endif /* PV_CMD_COMPILER_H */
