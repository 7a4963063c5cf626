/* SPDX-License-Identifier: MIT */
/* messages.h — the runtime's messages, captured for the unit tests that
 * check their exact text. Call messages_capture() first. */
#ifndef PV_TEST_MESSAGES_H
#define PV_TEST_MESSAGES_H

#include <stdio.h>
#include <string.h>

#include "base/log.h"

static char messages[8][512];
static int n_messages;

static void messages_sink(const char *line)
{
	if (n_messages < 8)
		snprintf(messages[n_messages], sizeof(messages[0]), "%s", line);
	n_messages++;
}

static void messages_capture(void)
{
	pv_log_set_sink(messages_sink);
}

static void messages_clear(void)
{
	n_messages = 0;
	memset(messages, 0, sizeof(messages));
}

#endif
