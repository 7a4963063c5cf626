/* SPDX-License-Identifier: MIT */
/* Built twice, as plug_a.so and plug_b.so (-DPLUG=a or b): two objects of
 * one layout, so that the second, loaded where the first was, has its
 * functions at the first one's addresses. */
#define CAT2(x, y) x##y
#define CAT(x, y) CAT2(x, y)
#define NAME(suffix) CAT(CAT(plug_, PLUG), suffix)

static volatile int plug_sink;

void NAME(1)(int i)
{
	plug_sink += i;
}

/* Calls plug_X1 n times. */
void NAME(_entry)(int n)
{
	for (int i = 0; i < n; i++)
		NAME(1)(i);
}
