/* SPDX-License-Identifier: MIT */
/*
 * A program's CUDA runtime from its ELF file (program_kind.h). Every offset,
 * size and string is checked against the file before it is read.
 *
 * NVIDIA's static runtime shows in two ways. With a symbol table: the
 * program defines the functions the runtime's documented API and nvcc's
 * generated registration code name (cudaRuntimeGetVersion,
 * __cudaRegisterFatBinary), which a program on a shared runtime only
 * imports. Stripped: it holds the text of cudaGetErrorName() for
 * cudaErrorInsufficientDriver and the driver's file name, libcuda.so.1,
 * which the runtime opens; a program on a shared runtime holds the first
 * only in its runtime library.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "program_kind.h"

struct file {
    const unsigned char *data;
    size_t size;
};

/* Whether [offset, offset + count * size) lies inside the file. */
static bool inside(const struct file *f, uint64_t offset, uint64_t count, uint64_t size)
{
    return offset <= f->size && (size == 0 || count <= (f->size - offset) / size);
}

/* The NUL-terminated string at `offset` of a string table section, or NULL. */
static const char *string_at(const struct file *f, const Elf64_Shdr *table, uint64_t offset)
{
    const char *s;

    if (table->sh_type != SHT_STRTAB || !inside(f, table->sh_offset, 1, table->sh_size) || offset >= table->sh_size)
        return NULL;
    s = (const char *)f->data + table->sh_offset + offset;
    return memchr(s, '\0', table->sh_size - offset) ? s : NULL;
}

/* GCC's and Clang's sanitizer runtimes, which must be the first library loaded into the process. */
static bool sanitizer_runtime(const char *name)
{
    static const char *const prefixes[] = {"libasan.so", "libtsan.so", "libubsan.so", "liblsan.so", "libhwasan.so",
                                           "libclang_rt."};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0 && !strchr(name, ' ') && !strchr(name, ':'))
            return true;
    return false;
}

static void read_dynamic(const struct file *f, const Elf64_Shdr *dyn, const Elf64_Shdr *strtab, struct program_kind *k)
{
    bool rpath = false, runpath = false;

    if (dyn->sh_entsize != sizeof(Elf64_Dyn) || !inside(f, dyn->sh_offset, dyn->sh_size / sizeof(Elf64_Dyn),
                                                         sizeof(Elf64_Dyn)))
        return;
    for (uint64_t i = 0; i < dyn->sh_size / sizeof(Elf64_Dyn); i++) {
        Elf64_Dyn d;
        const char *name;

        memcpy(&d, f->data + dyn->sh_offset + i * sizeof(Elf64_Dyn), sizeof(d));
        if (d.d_tag == DT_NULL)
            break;
        rpath |= d.d_tag == DT_RPATH;
        runpath |= d.d_tag == DT_RUNPATH;
        if (d.d_tag != DT_NEEDED || !(name = string_at(f, strtab, d.d_un.d_val)))
            continue;
        if (strncmp(name, "libcudart.so", 12) == 0 && strlen(name) < sizeof(k->cudart))
            strcpy(k->cudart, name);
        else if (sanitizer_runtime(name) && strlen(k->sanitizers) + strlen(name) + 2 <= sizeof(k->sanitizers))
            strcat(strcat(k->sanitizers, k->sanitizers[0] ? " " : ""), name);
    }
    k->rpath_first = rpath && !runpath;
}

/* Whether a symbol table defines one of the static runtime's own functions. */
static bool defines_runtime(const struct file *f, const Elf64_Shdr *symtab, const Elf64_Shdr *strtab)
{
    if (symtab->sh_entsize != sizeof(Elf64_Sym) ||
        !inside(f, symtab->sh_offset, symtab->sh_size / sizeof(Elf64_Sym), sizeof(Elf64_Sym)))
        return false;
    for (uint64_t i = 0; i < symtab->sh_size / sizeof(Elf64_Sym); i++) {
        Elf64_Sym s;
        const char *name;

        memcpy(&s, f->data + symtab->sh_offset + i * sizeof(Elf64_Sym), sizeof(s));
        if (s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_FUNC)
            continue;
        if ((name = string_at(f, strtab, s.st_name)) &&
            (strcmp(name, "cudaRuntimeGetVersion") == 0 || strcmp(name, "__cudaRegisterFatBinary") == 0))
            return true;
    }
    return false;
}

static bool holds(const struct file *f, const char *text)
{
    return memmem(f->data, f->size, text, strlen(text) + 1) != NULL;
}

static void read_elf(const struct file *f, struct program_kind *k)
{
    Elf64_Ehdr h;
    bool symbols = false, defined = false;

    if (f->size < sizeof(h))
        return;
    memcpy(&h, f->data, sizeof(h));
    if (memcmp(h.e_ident, ELFMAG, SELFMAG) != 0 || h.e_ident[EI_CLASS] != ELFCLASS64 ||
        h.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB))
        return;
    k->elf = true;
    if (h.e_shnum && h.e_shentsize == sizeof(Elf64_Shdr) && inside(f, h.e_shoff, h.e_shnum, sizeof(Elf64_Shdr))) {
        const Elf64_Shdr *sections = malloc((size_t)h.e_shnum * sizeof(Elf64_Shdr));

        if (sections) {
            memcpy((void *)sections, f->data + h.e_shoff, (size_t)h.e_shnum * sizeof(Elf64_Shdr));
            for (unsigned i = 0; i < h.e_shnum; i++) {
                const Elf64_Shdr *s = &sections[i];

                if (s->sh_link >= h.e_shnum)
                    continue;
                if (s->sh_type == SHT_DYNAMIC)
                    read_dynamic(f, s, &sections[s->sh_link], k);
                else if (s->sh_type == SHT_SYMTAB || s->sh_type == SHT_DYNSYM) {
                    symbols |= s->sh_type == SHT_SYMTAB;
                    defined |= defines_runtime(f, s, &sections[s->sh_link]);
                }
            }
            free((void *)sections);
        }
    }
    if (k->cudart[0])
        return;
    k->static_cudart = defined || (!symbols && holds(f, "cudaErrorInsufficientDriver") && holds(f, "libcuda.so.1"));
}

bool program_kind_read(const char *path, struct program_kind *k)
{
    struct stat st;
    struct file f = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    void *map;

    *k = (struct program_kind){0};
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return false;
    }
    if (!S_ISREG(st.st_mode) || st.st_size == 0) {
        close(fd);
        return true;
    }
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return false;
    f.data = map;
    f.size = (size_t)st.st_size;
    k->script = f.size >= 2 && f.data[0] == '#' && f.data[1] == '!';
    if (!k->script)
        read_elf(&f, k);
    munmap(map, f.size);
    return true;
}

static bool runnable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool program_kind_find(const char *name, char *out, unsigned long size)
{
    const char *path = getenv("PATH");

    if (strchr(name, '/'))
        return (size_t)snprintf(out, size, "%s", name) < size && runnable(out);
    if (!*name)
        return false;
    if (!path)
        path = "/bin:/usr/bin"; /* glibc's execvp without PATH */
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        int w = n ? snprintf(out, size, "%.*s/%s", (int)n, p, name) : snprintf(out, size, "%s", name);

        if (w >= 0 && (size_t)w < size && runnable(out))
            return true;
        if (!colon)
            return false;
        p = colon;
    }
}
