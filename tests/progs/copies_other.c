/* SPDX-License-Identifier: MIT */
#include "copies.h"

static int step(int x)
{
	return helper(helper(x));
}

int other_file(int x)
{
	return step(x);
}
