/* SPDX-License-Identifier: MIT */
#include "output/protobuf.h"

#include <stdlib.h>
#include <string.h>

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void pv_pb_init(struct pv_pb *b)
{
	memset(b, 0, sizeof(*b));
}

void pv_pb_free(struct pv_pb *b)
{
	free(b->data);
	pv_pb_init(b);
}

/* Room for n more bytes. */
static int reserve(struct pv_pb *b, size_t n)
{
	if (b->failed)
		return -1;
	if (b->cap - b->len >= n)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	uint8_t *data = realloc(b->data, cap);
	if (!data)
		goto fail;
	b->data = data;
	b->cap = cap;
	return 0;
fail:
	b->failed = 1;
	return -1;
}

static unsigned varint_size(uint64_t v)
{
	unsigned n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

/* v at p, which has room: its size. */
static unsigned put_varint(uint8_t *p, uint64_t v)
{
	unsigned n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

void pv_pb_raw_varint(struct pv_pb *b, uint64_t v)
{
	if (reserve(b, 10) == 0)
		b->len += put_varint(b->data + b->len, v);
}

static void tag(struct pv_pb *b, unsigned field, unsigned wire)
{
	pv_pb_raw_varint(b, (uint64_t)field << 3 | wire);
}

void pv_pb_uint(struct pv_pb *b, unsigned field, uint64_t v)
{
	tag(b, field, WIRE_VARINT);
	pv_pb_raw_varint(b, v);
}

void pv_pb_uint_opt(struct pv_pb *b, unsigned field, uint64_t v)
{
	if (v)
		pv_pb_uint(b, field, v);
}

void pv_pb_string(struct pv_pb *b, unsigned field, const char *s)
{
	size_t n = strlen(s);
	tag(b, field, WIRE_LEN);
	pv_pb_raw_varint(b, n);
	if (reserve(b, n) == 0) {
		memcpy(b->data + b->len, s, n);
		b->len += n;
	}
}

pv_pb_mark pv_pb_begin(struct pv_pb *b, unsigned field)
{
	tag(b, field, WIRE_LEN);
	return b->len;
}

/* The length goes before the contents, and its size is known only now:
 * the contents move up to make room (they are one small message). */
void pv_pb_end(struct pv_pb *b, pv_pb_mark m)
{
	if (b->failed)
		return;
	size_t n = b->len - m;
	unsigned size = varint_size(n);
	if (reserve(b, size) < 0)
		return;
	memmove(b->data + m + size, b->data + m, n);
	put_varint(b->data + m, n);
	b->len += size;
}
