/* SPDX-License-Identifier: MIT */
/* A small helper defined in a header, as C and C++ code has many. */
static inline int qs_twice(int x)
{
	return 2 * x;
}
