// SPDX-License-Identifier: MIT
/*
 * ELF look-ups for uprobes: a function's file offset (what uprobe_events
 * takes) from the symbol table, and a file's GNU build-id for the manifest.
 * Built on libelf; without it (HAVE_LIBDW unset) both say so.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "uprobe.h"

#ifdef HAVE_LIBDW
#include <gelf.h>
#include <libelf.h>

static Elf *open_elf(const char *path, int *fd)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	return elf_begin(*fd, ELF_C_READ_MMAP, NULL);
}

/* The address of defined function @func in a section of type @type, or 0. */
static GElf_Addr find_symbol(Elf *elf, Elf64_Word type, const char *func)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int t;

			if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			t = GELF_ST_TYPE(sym.st_info);
			if (t != STT_FUNC && t != STT_GNU_IFUNC)
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, func))
				return sym.st_value;
		}
	}
	return 0;
}

int uprobe_offset(const char *path, const char *func, uint64_t *offset, struct err_msg *err)
{
	int fd = -1, rc = -1;
	Elf *elf = open_elf(path, &fd);
	GElf_Addr addr;
	size_t nph;

	if (!elf) {
		err_setf(err, path, fd < 0 ? "cannot open: %s" : "not an ELF file%.0s",
			 strerror(errno));
		goto out;
	}
	addr = find_symbol(elf, SHT_SYMTAB, func);
	if (!addr)
		addr = find_symbol(elf, SHT_DYNSYM, func);
	if (!addr) {
		err_setf(err, path, "no function '%s' in its symbol tables", func);
		goto out;
	}
	/* the loaded segment holding it turns the address into a file offset */
	if (elf_getphdrnum(elf, &nph)) {
		err_setf(err, path, "no program headers");
		goto out;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_filesz) {
			*offset = addr - ph.p_vaddr + ph.p_offset;
			rc = 0;
			goto out;
		}
	}
	err_setf(err, path, "function '%s' at %#llx lies in no loaded segment", func,
		 (unsigned long long)addr);
out:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

int uprobe_build_id(const char *path, char *hex, size_t n)
{
	int fd = -1, rc = -1;
	Elf *elf = open_elf(path, &fd);
	Elf_Scn *scn = NULL;

	while (elf && rc && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && rc && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + name_off, "GNU", 4) ||
			    2 * nh.n_descsz + 1 > n)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				sprintf(hex + 2 * i, "%02x", id[i]);
			rc = 0;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return rc;
}

#else /* !HAVE_LIBDW */

int uprobe_offset(const char *path, const char *func, uint64_t *offset, struct err_msg *err)
{
	return err_setf(err, path, "cannot look up '%s': darc-record was built without libelf",
			func);
}

int uprobe_build_id(const char *path, char *hex, size_t n)
{
	return -1;
}

#endif
