#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

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
	size_t n = strlen(suffix), len = strlen(out);
	char *dot = strrchr(out, '.');
	if (!n)
		return 0;
	if (!dot || len + n >= size)
		return -1;
	memmove(dot + n, dot, strlen(dot) + 1);
	memcpy(dot, suffix, n);
	return 0;
}

static pv_writer_fn *writer_for(enum pv_format f)
{
	switch (f) {
	case PV_FORMAT_JSON: return pv_write_json;
	case PV_FORMAT_FOLDED: return pv_write_folded;
	default: return pv_write_dot;
	}
}

static int write_atomically(const char *path, pv_writer_fn *writer, const struct pv_report *r)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
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

	char tmp[PATH_MAX + 16];
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp)) {
		pv_log("%s: path too long", path);
		return -1;
	}
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		pv_log("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	FILE *out = fdopen(fd, "w");
	if (!out) {
		pv_log("cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	int failed = writer(out, r) < 0;
	failed |= fflush(out) != 0;
	int saved = errno;
	failed |= fclose(out) != 0;
	if (!failed && rename(tmp, path) == 0)
		return 0;
	pv_log("cannot write %s: %s", path, strerror(failed ? (saved ? saved : errno) : errno));
	unlink(tmp);
	return -1;
}

int pv_output_write_all(const struct pv_config *c, const struct pv_report *r, int pid,
			struct pv_output_tag tag)
{
	int status = 0;
	for (unsigned i = 0; i < c->n_outputs; i++) {
		char path[PATH_MAX];
		if (pv_output_path(&c->outputs[i], pid, tag, path, sizeof(path)) < 0) {
			pv_log("PROFVIZ_OUTPUT: '%s' expands to a path that is too long",
			       c->outputs[i].path);
			status = -1;
			continue;
		}
		if (write_atomically(path, writer_for(c->outputs[i].format), r) < 0)
			status = -1;
	}
	return status;
}
