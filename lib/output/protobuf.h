/* SPDX-License-Identifier: MIT */
/*
 * protobuf.h — the protocol buffers wire format, encode only, into a
 * growable buffer. Enough for pprof's profile.proto: varints, length-
 * delimited strings and nested messages, packed repeated varints. The
 * runtime writes it from inside the profiled process, so no library.
 */
#ifndef PV_PROTOBUF_H
#define PV_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct pv_pb {
	uint8_t *data;
	size_t len, cap;
	int failed; /* memory ran out: every later write is dropped */
};

/* Where a nested message (or packed field) began, for pv_pb_end. */
typedef size_t pv_pb_mark;

void pv_pb_init(struct pv_pb *b);
void pv_pb_free(struct pv_pb *b);

/* A varint field (int64, uint64, bool) written even when 0. */
void pv_pb_uint(struct pv_pb *b, unsigned field, uint64_t v);
/* A varint field, left out when 0, as proto3 leaves defaults out. */
void pv_pb_uint_opt(struct pv_pb *b, unsigned field, uint64_t v);
void pv_pb_string(struct pv_pb *b, unsigned field, const char *s);

/* A length-delimited field whose contents are written between the two:
 * a nested message, or packed varints (pv_pb_raw_varint). */
pv_pb_mark pv_pb_begin(struct pv_pb *b, unsigned field);
void pv_pb_end(struct pv_pb *b, pv_pb_mark m);
void pv_pb_raw_varint(struct pv_pb *b, uint64_t v);

#endif /* PV_PROTOBUF_H */
