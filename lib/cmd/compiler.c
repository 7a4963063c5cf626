/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/compiler.h"

/* Enough for any .comment (a line per compiler and version). */
#define PV_COMMENT_MAX (64 * 1024)
#define PV_SECTIONS_MAX 4096

static int read_at(int fd, void *buf, size_t size, uint64_t offset)
{
	return pread(fd, buf, size, (off_t)offset) == (ssize_t)size ? 0 : -1;
}

/* The .comment section's bytes (malloc'd, *size of them), or NULL. Only
 * 64-bit files in this machine's byte order: those profviz profiles. */
static char *read_comment(int fd, size_t *size)
{
	Elf64_Ehdr eh;
	if (read_at(fd, &eh, sizeof(eh), 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB) ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum || eh.e_shnum > PV_SECTIONS_MAX ||
	    eh.e_shstrndx >= eh.e_shnum)
		return NULL;
	Elf64_Shdr *sh = malloc(eh.e_shnum * sizeof(*sh));
	char *names = NULL, *text = NULL;
	if (!sh || read_at(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) < 0)
		goto out;
	const Elf64_Shdr *strtab = &sh[eh.e_shstrndx];
	if (strtab->sh_size > PV_COMMENT_MAX * 4 || !(names = malloc(strtab->sh_size + 1)) ||
	    read_at(fd, names, strtab->sh_size, strtab->sh_offset) < 0)
		goto out;
	names[strtab->sh_size] = '\0';
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_type != SHT_PROGBITS || sh[i].sh_name >= strtab->sh_size ||
		    strcmp(names + sh[i].sh_name, ".comment") || sh[i].sh_size > PV_COMMENT_MAX)
			continue;
		text = malloc(sh[i].sh_size + 1);
		if (text && read_at(fd, text, sh[i].sh_size, sh[i].sh_offset) < 0) {
			free(text);
			text = NULL;
		}
		*size = sh[i].sh_size;
		break;
	}
out:
	free(sh);
	free(names);
	return text;
}

enum pv_compiler pv_module_compiler(const char *path)
{
	int fd = path && *path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return PV_BUILT_UNKNOWN;
	size_t size = 0;
	char *text = read_comment(fd, &size);
	close(fd);
	if (!text)
		return PV_BUILT_UNKNOWN;
	enum pv_compiler built = PV_BUILT_UNKNOWN;
	text[size] = '\0';
	/* NUL-separated signatures */
	for (size_t at = 0; at < size; at += strlen(text + at) + 1) {
		if (strstr(text + at, "clang version"))
			built = PV_BUILT_CLANG;
		else if (!strncmp(text + at, "GCC: ", 5) && built == PV_BUILT_UNKNOWN)
			built = PV_BUILT_GCC;
	}
	free(text);
	return built;
}
