/* SPDX-License-Identifier: MIT */
/* A helper defined in a header: every file that includes it gets a copy. */
static int helper(int x)
{
	return x * 3 + 1;
}
