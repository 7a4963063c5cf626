/* SPDX-License-Identifier: MIT */
/*
 * variables.h — the PROFVIZ_* variables the runtime reads (config.c), as a
 * user reads of them: what each accepts and its default. `profviz help
 * variables` prints them, and so the man page has them; test_config holds
 * the list to what pv_config_load asks for.
 */
#ifndef PV_VARIABLES_H
#define PV_VARIABLES_H

struct pv_variable {
	const char *name;
	const char *accepted; /* its values, and what each does */
	const char *fallback; /* its default */
};

extern const struct pv_variable pv_variables[];
extern const unsigned pv_n_variables;

/* The one the command reads (profviz run), which the runtime must know so
 * as not to call it a mistake. */
extern const struct pv_variable pv_command_variable;

#endif /* PV_VARIABLES_H */
