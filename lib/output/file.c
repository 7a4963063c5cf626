/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "output/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/sysraw.h"
#include "base/log.h"
#include "base/paths.h"

int pv_output_path(const struct pv_output *o, int pid, struct pv_output_tag tag, char *out,
		   unsigned size)
{
	if (pv_expand_path(o->path, pid, out, size) < 0)
		return -1;
	char suffix[48] = "";
	if (tag.child_pid && !strstr(o->path, "%p"))
		snprintf(suffix, sizeof(suffix), ".%d", tag.child_pid);
	if (tag.exec_n)
		snprintf(suffix + strlen(suffix), sizeof(suffix) - strlen(suffix), ".exec%d",
			 tag.exec_n);
	if (tag.window_n)
		snprintf(suffix + strlen(suffix), sizeof(suffix) - strlen(suffix), ".w%d",
			 tag.window_n);
	size_t n = strlen(suffix), len = strlen(out);
	if (!n)
		return 0;
	/* Before the format's extension, all of it: prof.1234.pb.gz; after a
	 * name that has none (callgrind.out.1234), as callgrind's own. */
	size_t ext = o->format ? strlen(o->format->extension) : 0;
	char *at = ext && ext <= len && !strcmp(out + len - ext, o->format->extension)
			   ? out + len - ext
		   : o->format ? out + len
			       : strrchr(out, '.');
	if (!at || len + n >= size)
		return -1;
	memmove(at + n, at, strlen(at) + 1);
	memcpy(at, suffix, n);
	return 0;
}

/* The directory part of path, opened for the *at calls; *base is set to the
 * rest. Working relative to it, a temporary beside a file whose path is
 * just short of PATH_MAX still has a name that fits. */
static int open_directory_of(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	*base = slash ? slash + 1 : path;
	return open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* A new file beside base in dir, named base.XXXXXX (or .profviz.XXXXXX when
 * that would be too long a name), created with mode 0666 less the umask, as
 * the final file would be. */
static int create_temporary(int dir, const char *base, char *name, size_t size)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t v = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40;
	for (int attempt = 0; attempt < 100; attempt++) {
		char suffix[7];
		v = v * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t bits = v >> 16;
		for (int i = 0; i < 6; i++, bits /= 62)
			suffix[i] = letters[bits % 62];
		suffix[6] = '\0';
		if (strlen(base) + 7 <= NAME_MAX)
			snprintf(name, size, "%s.%s", base, suffix);
		else
			snprintf(name, size, ".profviz.%s", suffix);
		int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int write_in(int dir, const char *base, const char *path, pv_writer_fn *writer,
		    const struct pv_report *r)
{
	struct stat st;
	if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			pv_log("%s is a symbolic link; not writing through it", path);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			pv_log("%s exists and is not a regular file; not replacing it", path);
			return -1;
		}
		if (!(st.st_mode & S_IWUSR)) {
			pv_log("%s is read-only; not replacing it", path);
			return -1;
		}
	}

	char tmp[NAME_MAX + 1];
	int fd = create_temporary(dir, base, tmp, sizeof(tmp));
	if (fd < 0) {
		pv_log("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	FILE *out = fdopen(fd, "w");
	if (!out) {
		pv_log("cannot write %s: %s", path, strerror(errno));
		pv_sys_close(fd);
		unlinkat(dir, tmp, 0);
		return -1;
	}
	int failed = writer(out, r) < 0;
	failed |= fflush(out) != 0;
	int saved = errno;
	failed |= fclose(out) != 0;
	if (!failed && renameat(dir, tmp, dir, base) == 0)
		return 0;
	pv_log("cannot write %s: %s", path, strerror(failed ? (saved ? saved : errno) : errno));
	unlinkat(dir, tmp, 0);
	return -1;
}

int pv_output_write_file(const char *path, pv_writer_fn *writer, const struct pv_report *r)
{
	const char *base;
	int dir = open_directory_of(path, &base);
	if (dir < 0) {
		pv_log("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	int status = write_in(dir, base, path, writer, r);
	pv_sys_close(dir);
	return status;
}

int pv_output_write_all(const struct pv_output *outputs, unsigned n, const struct pv_report *r,
			int pid, struct pv_output_tag tag)
{
	int status = 0;
	for (unsigned i = 0; i < n; i++) {
		char path[PATH_MAX];
		if (pv_output_path(&outputs[i], pid, tag, path, sizeof(path)) < 0) {
			pv_log("PROFVIZ_OUTPUT: '%s' expands to a path that is too long",
			       outputs[i].path);
			status = -1;
			continue;
		}
		if (pv_output_write_file(path, outputs[i].format->write, r) < 0)
			status = -1;
	}
	return status;
}

void pv_output_remove_all(const struct pv_output *outputs, unsigned n, int pid,
			  struct pv_output_tag tag)
{
	for (unsigned i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct stat st;
		if (pv_output_path(&outputs[i], pid, tag, path, sizeof(path)) == 0 &&
		    lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IWUSR))
			unlink(path);
	}
}

int pv_expand_path(const char *template, int pid, char *out, unsigned size)
{
	unsigned n = 0;
	for (const char *s = template; *s; s++) {
		char piece[256];
		const char *add = piece;
		if (*s == '%' && s[1] == 'p') {
			snprintf(piece, sizeof(piece), "%d", pid);
			s++;
		} else if (*s == '%' && s[1] == 'h') {
			if (gethostname(piece, sizeof(piece)) < 0)
				strcpy(piece, "localhost");
			piece[sizeof(piece) - 1] = '\0';
			s++;
		} else if (*s == '%' && s[1] == '%') {
			add = "%";
			s++;
		} else {
			piece[0] = *s;
			piece[1] = '\0';
		}
		size_t len = strlen(add);
		if (n + len >= size)
			return -1;
		memcpy(out + n, add, len);
		n += (unsigned)len;
	}
	out[n] = '\0';
	return 0;
}
