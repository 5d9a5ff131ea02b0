/* SPDX-License-Identifier: MIT */
/*
 * Modules and the functions looked up in them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "object.h"

/* What the driver may write of a rejected image's JIT log into the error message. */
#define JIT_LOG_MAX 2048

static GPU__RELEASE(module_release, gpu_module, cuModuleUnload, cu)

static void module_finalize(struct gpu__object *obj)
{
    gpu_module *module = (gpu_module *)obj;
    struct gpu_function *f, *next;

    for (f = module->functions; f; f = next) {
        next = f->next;
        free(f);
    }
    pthread_mutex_destroy(&module->lock);
}

static const struct gpu__kind module_kind =
    GPU__KIND(cuModuleLoadDataEx, cuModuleUnload, module_release, module_finalize);

/* cubin (ELF) and fatbin images are binary; anything else is PTX text. */
static bool is_binary_image(const unsigned char *p, size_t size)
{
    static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
    static const unsigned char fatbin[4] = {0x50, 0xed, 0x55, 0xba};

    return size >= 4 && (memcmp(p, elf, 4) == 0 || memcmp(p, fatbin, 4) == 0);
}

static uint64_t read_le(const unsigned char *p, unsigned bytes)
{
    uint64_t v = 0;

    while (bytes--)
        v = v << 8 | p[bytes];
    return v;
}

/*
 * Whether a table of `count` entries of `entry_size` bytes at `offset` lies
 * inside `size` bytes. Offsets come from the image, so nothing may wrap: an
 * offset near 2^64 plus the table's size must not come out small.
 */
static bool table_inside(uint64_t offset, uint64_t entry_size, uint64_t count, size_t size)
{
    /* entry_size and count are 16-bit fields: their product fits 32 bits. */
    return offset <= size && entry_size * count <= size - offset;
}

/*
 * The driver takes a binary image without its size and reads as far as the
 * image's own headers say: a fatbin's (16 bytes, then the bytes of its
 * entries) or an ELF64 cubin's (its program and section header tables). So
 * the image must hold that much: NULL where it does, else why not. Beyond
 * that the driver checks the image itself.
 */
static const char *binary_image_short(const unsigned char *p, size_t size)
{
    if (p[0] == 0x50) { /* a fatbin */
        if (size < 16)
            return "a fatbin shorter than its 16-byte header";
        return read_le(p + 8, 8) > size - 16 ? "a fatbin shorter than its header says" : NULL;
    }
    if (size < 64 || p[4] != 2 /* ELFCLASS64 */)
        return "an ELF image without a whole ELF64 header";
    if (!table_inside(read_le(p + 32, 8), read_le(p + 54, 2), read_le(p + 56, 2), size) ||
        !table_inside(read_le(p + 40, 8), read_le(p + 58, 2), read_le(p + 60, 2), size))
        return "an ELF image shorter than its header tables say";
    return NULL;
}

gpu_status gpu_module_load_data(gpu_context *ctx, const void *image, size_t size, gpu_module **out)
{
    cuabi_jit_option options[2] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    char log[JIT_LOG_MAX];
    void *values[2] = {log, (void *)(uintptr_t)sizeof(log)};
    char *text = NULL;
    const void *data = image;
    const char *why;
    struct gpu__call c;
    gpu_module *m;
    gpu_status st;

    GPU__NOT_NULL(out);
    if (!image || size == 0)
        return GPU__INVALID("the image is empty");
    if (is_binary_image(image, size) && (why = binary_image_short(image, size)))
        return GPU__FAIL(GPU_ERR_INVALID_ARG, "%s (%zu bytes)", why, size);
    if (size >= 4 && memcmp(image, "\xb1\x43\x62\x46", 4) == 0)
        return GPU__INVALID("a fatbin wrapper (__fatBinC_Wrapper_t) holds a pointer, not an image: pass the "
                            "fatbin it points at, with its size");
    m = gpu__object_new(&c, ctx, &module_kind, sizeof(*m), __func__);
    if (!m)
        return c.st;
    pthread_mutex_init(&m->lock, NULL);
    /* The driver reads PTX up to a NUL; give it one that ends where the caller's image does. */
    if (!is_binary_image(image, size) && memchr(image, '\0', size) == NULL) {
        text = malloc(size + 1);
        if (!text)
            return gpu__object_finish(&c, &m->obj, GPU__FAIL(GPU_ERR_OUT_OF_MEMORY, "%s", "out of host memory"),
                                      (void **)out);
        memcpy(text, image, size);
        text[size] = '\0';
        data = text;
    }
    log[0] = '\0';
    st = GPU__INVOKE_RAW(&c, cuModuleLoadDataEx, &m->cu, data, 2, options, values);
    free(text);
    log[sizeof(log) - 1] = '\0';
    if (st == GPU_OK)
        st = gpu__check_detail(c.rc, GPU_ERR_MODULE_LOAD, "cuModuleLoadDataEx", log);
    return gpu__object_finish(&c, &m->obj, st, (void **)out);
}

/* What a file type is called in the error for anything but a regular file. */
static const char *file_type_name(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/*
 * Reads a whole regular file of at most GPU_MODULE_FILE_MAX bytes into a new
 * buffer, at its size from fstat and in one pass: no FIFO, device or
 * directory is read (opened without blocking, refused by type), nothing grows.
 */
static gpu_status read_module_file(const char *path, char **out, size_t *out_size)
{
    const char *func = "gpu_module_load_file";
    struct stat sb;
    char *image;
    size_t size, done = 0;
    int fd, err;

    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return gpu__fail(GPU_ERR_MODULE_LOAD, 0, "%s: %s: %s", func, path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        err = errno;
        close(fd);
        return gpu__fail(GPU_ERR_MODULE_LOAD, 0, "%s: %s: %s", func, path, strerror(err));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s is %s, not a regular file", func, path,
                         file_type_name(sb.st_mode));
    }
    if (sb.st_size == 0) {
        close(fd);
        return gpu__fail(GPU_ERR_MODULE_LOAD, 0, "%s: %s: the file is empty", func, path);
    }
    if (sb.st_size > GPU_MODULE_FILE_MAX) {
        close(fd);
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s is %lld bytes, more than the %lld a module file may have",
                         func, path, (long long)sb.st_size, (long long)GPU_MODULE_FILE_MAX);
    }
    size = (size_t)sb.st_size;
    image = malloc(size);
    if (!image) {
        close(fd);
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "%s: %s: no memory for %zu bytes", func, path, size);
    }
    while (done < size) {
        ssize_t n = read(fd, image + done, size - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : 0;
            close(fd);
            free(image);
            if (err)
                return gpu__fail(GPU_ERR_MODULE_LOAD, 0, "%s: %s: %s", func, path, strerror(err));
            return gpu__fail(GPU_ERR_MODULE_LOAD, 0, "%s: %s shrank while it was read (%zu of %zu bytes)", func,
                             path, done, size);
        }
        done += (size_t)n;
    }
    close(fd);
    *out = image;
    *out_size = size;
    return GPU_OK;
}

gpu_status gpu_module_load_file(gpu_context *ctx, const char *path, gpu_module **out)
{
    const struct gpu__driver *drv;
    gpu_context *resolved;
    gpu_status st;
    char *image = NULL;
    size_t size = 0;

    GPU__NOT_NULL(out, path);
    st = gpu__context_resolve(ctx, &drv, &resolved);
    if (st != GPU_OK)
        return st;
    st = read_module_file(path, &image, &size);
    if (st == GPU_OK)
        st = gpu_module_load_data(resolved, image, size, out);
    free(image);
    return st;
}

void gpu_module_destroy(gpu_module *module)
{
    gpu__object_destroy(module ? &module->obj : NULL);
}

/* The function `name` of the module if it was looked up before; the module's lock held. */
static struct gpu_function *function_find(const gpu_module *module, const char *name)
{
    struct gpu_function *f;

    for (f = module->functions; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            break;
    return f;
}

gpu_status gpu__module_function(gpu_module *module, const char *name, const char *func, gpu_function **out)
{
    struct gpu__call c;
    struct gpu_function *f;
    cuabi_function cu = NULL;
    size_t len;
    gpu_status st;

    pthread_mutex_lock(&module->lock);
    f = function_find(module, name);
    if (f) {
        pthread_mutex_unlock(&module->lock);
        *out = f;
        return GPU_OK;
    }
    if (!gpu__call_object(&c, module->obj.ctx)) {
        pthread_mutex_unlock(&module->lock);
        return c.st;
    }
    st = GPU__INVOKE_RAW(&c, cuModuleGetFunction, &cu, module->cu, name);
    if (st == GPU_OK && c.rc == CUABI_ERROR_NOT_FOUND)
        st = gpu__fail(GPU_ERR_FUNCTION_NOT_FOUND, (int)c.rc, "cuModuleGetFunction: the module has no function \"%s\"",
                       name);
    else if (st == GPU_OK)
        st = GPU__RESULT(&c, cuModuleGetFunction, GPU_ERR_FUNCTION_NOT_FOUND);
    st = gpu__call_end(&c, st);
    if (st == GPU_OK) {
        len = strlen(name);
        f = malloc(sizeof(*f) + len + 1);
        if (!f) {
            st = gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "%s: out of host memory", func);
        } else {
            memcpy(f->name, name, len + 1);
            f->module = module;
            f->ctx_cu = module->obj.ctx_cu;
            f->cu = cu;
            f->next = module->functions;
            module->functions = f;
            *out = f;
        }
    }
    pthread_mutex_unlock(&module->lock);
    return st;
}

gpu_status gpu_module_get_function(gpu_module *module, const char *name, gpu_function **out)
{
    GPU__NOT_NULL(module, name, out);
    return gpu__module_function(module, name, __func__, out);
}

void *gpu_function_get_raw(const gpu_function *function)
{
    return function ? (void *)function->cu : NULL;
}

/* Looks up global `name` in the open call `c` (the module's context current). */
static gpu_status global_find(struct gpu__call *c, const gpu_module *module, const char *name, cuabi_deviceptr *ptr,
                              size_t *bytes)
{
    gpu_status st = GPU__INVOKE_RAW(c, cuModuleGetGlobal, ptr, bytes, module->cu, name);

    if (st == GPU_OK && c->rc == CUABI_ERROR_NOT_FOUND)
        return gpu__fail(GPU_ERR_FUNCTION_NOT_FOUND, (int)c->rc, "cuModuleGetGlobal: the module has no global \"%s\"",
                         name);
    return st == GPU_OK ? GPU__RESULT(c, cuModuleGetGlobal, GPU_ERR_DRIVER) : st;
}

gpu_status gpu_module_get_global(gpu_module *module, const char *name, uint64_t *address, size_t *bytes)
{
    struct gpu__call c;
    cuabi_deviceptr ptr = 0;
    size_t size = 0;
    gpu_status st;

    if (!module || !name || (!address && !bytes))
        return GPU__INVALID(!module ? "module is NULL" : !name ? "name is NULL" : "address and bytes are NULL");
    if (!gpu__call_object(&c, module->obj.ctx))
        return c.st;
    st = gpu__call_end(&c, global_find(&c, module, name, &ptr, &size));
    if (st == GPU_OK && address)
        *address = (uint64_t)ptr;
    if (st == GPU_OK && bytes)
        *bytes = size;
    return st;
}

/* Opens a copy to or from global `name`: looked up, `bytes` checked against its size. False: c->st says why. */
static bool global_copy_open(struct gpu__call *c, const gpu_module *module, const char *name, const void *host,
                             size_t bytes, cuabi_deviceptr *ptr, const char *func)
{
    size_t size = 0;

    if (!module || !name || (!host && bytes)) {
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %s is NULL", func,
                          !module ? "module" : !name ? "name" : "the host pointer");
        return false;
    }
    if (!gpu__call_object(c, module->obj.ctx))
        return false;
    c->st = global_find(c, module, name, ptr, &size);
    if (c->st == GPU_OK && bytes > size)
        c->st = gpu__fail(GPU_ERR_INVALID_ARG, 0, "%s: %zu bytes do not fit global \"%s\" of %zu", func, bytes, name,
                          size);
    if (c->st == GPU_OK)
        return true;
    c->st = gpu__call_end(c, c->st);
    return false;
}

/* A copy between global `name` and host memory (`to_host`: into `dst`, else from `src`): checks, open, copy, end. */
static gpu_status global_copy(gpu_module *module, const char *name, void *dst, const void *src, size_t bytes,
                              bool to_host, const char *func)
{
    struct gpu__call c;
    cuabi_deviceptr ptr = 0;

    if (!global_copy_open(&c, module, name, to_host ? (const void *)dst : src, bytes, &ptr, func))
        return c.st;
    if (bytes == 0)
        return gpu__call_end(&c, GPU_OK);
    /* Synchronous copies: legacy-stream operations. */
    if (!gpu__call_legacy(&c, func))
        return c.st;
    if (to_host)
        return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemcpyDtoH, GPU_ERR_TRANSFER, dst, ptr, bytes));
    return gpu__legacy_leave(GPU__INVOKE_END(&c, cuMemcpyHtoD, GPU_ERR_TRANSFER, ptr, src, bytes));
}

gpu_status gpu_module_copy_to_global(gpu_module *module, const char *name, const void *src, size_t bytes)
{
    return global_copy(module, name, NULL, src, bytes, false, __func__);
}

gpu_status gpu_module_copy_from_global(gpu_module *module, const char *name, void *dst, size_t bytes)
{
    return global_copy(module, name, dst, NULL, bytes, true, __func__);
}
