#include "fds.h"

#include <stdint.h>

static uint64_t owned[PV_FDS_MAX / 64];

int pv_fd_claim(int fd)
{
	if (fd < 0 || fd >= PV_FDS_MAX)
		return -1;
	__atomic_or_fetch(&owned[fd / 64], 1ull << (fd % 64), __ATOMIC_SEQ_CST);
	return 0;
}

void pv_fd_release(int fd)
{
	if (fd >= 0 && fd < PV_FDS_MAX)
		__atomic_and_fetch(&owned[fd / 64], ~(1ull << (fd % 64)), __ATOMIC_SEQ_CST);
}

int pv_fd_is_ours(int fd)
{
	if (fd < 0 || fd >= PV_FDS_MAX)
		return 0;
	return (__atomic_load_n(&owned[fd / 64], __ATOMIC_SEQ_CST) >> (fd % 64)) & 1;
}
