/*
 * Modules, function lookup, launch configuration and kernel launches.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private.h"

/* What the driver may write of a rejected image's JIT log into the error message. */
#define JIT_LOG_MAX 2048

gpu_launch_config gpu_launch_config_1d(unsigned blocks, unsigned threads)
{
    gpu_launch_config c = {{blocks, 1, 1}, {threads, 1, 1}, 0};

    return c;
}

gpu_status gpu_launch_config_check(const gpu_launch_config *c)
{
    static const unsigned block_max[3] = {1024, 1024, 64};
    static const unsigned grid_max[3] = {2147483647u, 65535, 65535};
    static const char axis[3] = {'x', 'y', 'z'};
    unsigned long long threads = 1;

    if (!c)
        return GPU__INVALID("gpu_launch_config", "config is NULL");
    for (int i = 0; i < 3; i++) {
        if (c->grid[i] == 0 || c->block[i] == 0)
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_launch_config: %s %c is 0",
                             c->grid[i] == 0 ? "grid" : "block", axis[i]);
        if (c->grid[i] > grid_max[i])
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_launch_config: grid %c is %u, more than %u", axis[i],
                             c->grid[i], grid_max[i]);
        if (c->block[i] > block_max[i])
            return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_launch_config: block %c is %u, more than %u", axis[i],
                             c->block[i], block_max[i]);
        threads *= c->block[i];
    }
    if (threads > 1024)
        return gpu__fail(GPU_ERR_INVALID_ARG, 0, "gpu_launch_config: %llu threads a block, more than 1024", threads);
    return GPU_OK;
}

/* cubin (ELF) and fatbin images are binary; anything else is PTX text. */
static bool is_binary_image(const unsigned char *p, size_t size)
{
    static const unsigned char elf[4] = {0x7f, 'E', 'L', 'F'};
    static const unsigned char fatbin[4] = {0x50, 0xed, 0x55, 0xba};

    return size >= 4 && (memcmp(p, elf, 4) == 0 || memcmp(p, fatbin, 4) == 0);
}

gpu_status gpu_module_load_data(gpu_context *ctx, const void *image, size_t size, gpu_module **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    cuabi_jit_option options[2] = {CUABI_JIT_ERROR_LOG_BUFFER, CUABI_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    char log[JIT_LOG_MAX];
    void *values[2] = {log, (void *)(uintptr_t)sizeof(log)};
    char *text = NULL;
    const void *data = image;
    cuabi_module cu = NULL;
    cuabi_result rc;
    gpu_module *m;
    gpu_status st;

    if (!out)
        return GPU__INVALID("gpu_module_load_data", "out is NULL");
    if (!image || size == 0)
        return GPU__INVALID("gpu_module_load_data", "the image is empty");
    st = gpu__context_resolve(ctx, &drv, &ctx);
    if (st != GPU_OK)
        return st;
    /* The driver reads PTX up to a NUL; give it one that ends where the caller's image does. */
    if (!is_binary_image(image, size) && memchr(image, '\0', size) == NULL) {
        text = malloc(size + 1);
        if (!text)
            return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_module_load_data: out of host memory");
        memcpy(text, image, size);
        text[size] = '\0';
        data = text;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        free(text);
        return gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_module_load_data: out of host memory");
    }
    st = gpu__context_enter(drv, ctx, &scope);
    if (st == GPU_OK) {
        log[0] = '\0';
        rc = drv->cuModuleLoadDataEx(&cu, data, 2, options, values);
        gpu__context_leave(&scope);
        log[sizeof(log) - 1] = '\0';
        st = gpu__check_detail(rc, GPU_ERR_MODULE_LOAD, "cuModuleLoadDataEx", log);
    }
    free(text);
    if (st != GPU_OK) {
        free(m);
        return st;
    }
    pthread_mutex_init(&m->lock, NULL);
    gpu__context_ref(ctx);
    m->ctx = ctx;
    m->cu = cu;
    *out = m;
    return GPU_OK;
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

    if (!out || !path)
        return GPU__INVALID("gpu_module_load_file", out ? "path is NULL" : "out is NULL");
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
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    struct gpu_function *f, *next;

    if (!module)
        return;
    if (gpu__release_enter(module->ctx, &drv, &scope)) {
        drv->cuModuleUnload(module->cu);
        gpu__context_leave(&scope);
    }
    for (f = module->functions; f; f = next) {
        next = f->next;
        free(f);
    }
    pthread_mutex_destroy(&module->lock);
    gpu__context_unref(module->ctx);
    free(module);
}

gpu_status gpu_module_get_function(gpu_module *module, const char *name, gpu_function **out)
{
    const struct gpu__driver *drv;
    struct gpu__ctx_scope scope;
    struct gpu_function *f;
    cuabi_function cu = NULL;
    size_t len;
    gpu_status st;

    if (!module || !name || !out)
        return GPU__INVALID("gpu_module_get_function", !module ? "module is NULL" : !name ? "name is NULL" : "out is NULL");
    st = gpu__driver_get(&drv);
    if (st != GPU_OK)
        return st;
    pthread_mutex_lock(&module->lock);
    for (f = module->functions; f; f = f->next)
        if (strcmp(f->name, name) == 0)
            break;
    if (f) {
        pthread_mutex_unlock(&module->lock);
        *out = f;
        return GPU_OK;
    }
    st = gpu__context_enter(drv, module->ctx, &scope);
    if (st == GPU_OK) {
        cuabi_result rc = drv->cuModuleGetFunction(&cu, module->cu, name);

        gpu__context_leave(&scope);
        if (rc == CUABI_ERROR_NOT_FOUND)
            st = gpu__fail(GPU_ERR_FUNCTION_NOT_FOUND, (int)rc, "cuModuleGetFunction: the module has no function \"%s\"",
                           name);
        else
            st = gpu__check(rc, GPU_ERR_FUNCTION_NOT_FOUND, "cuModuleGetFunction");
    }
    if (st == GPU_OK) {
        len = strlen(name);
        f = malloc(sizeof(*f) + len + 1);
        if (!f) {
            st = gpu__fail(GPU_ERR_OUT_OF_MEMORY, 0, "gpu_module_get_function: out of host memory");
        } else {
            memcpy(f->name, name, len + 1);
            f->module = module;
            f->cu = cu;
            f->next = module->functions;
            module->functions = f;
            *out = f;
        }
    }
    pthread_mutex_unlock(&module->lock);
    return st;
}

void *gpu_function_raw(const gpu_function *function)
{
    return function ? (void *)function->cu : NULL;
}

gpu_status gpu_stream_launch_function(gpu_stream *stream, gpu_function *function, const gpu_launch_config *config,
                                      void **args)
{
    struct gpu__call c;
    cuabi_result rc;
    gpu_status st;

    if (!function)
        return GPU__INVALID("gpu_stream_launch_function", "function is NULL");
    st = gpu_launch_config_check(config);
    if (st != GPU_OK)
        return st;
    st = gpu__call_stream_for(stream, function->module->ctx, "gpu_stream_launch_function", "the function", &c);
    /* The only argument error there is the devices': say which kernel, off the hot path. */
    if (st == GPU_ERR_INVALID_ARG)
        return gpu__fail(st, 0, "gpu_stream_launch_function: \"%s\" is loaded on device %d, the stream is device %d's",
                         function->name, function->module->ctx->ordinal, stream ? stream->ctx->ordinal : 0);
    if (st != GPU_OK)
        return st;
    do
        rc = c.drv->cuLaunchKernel(function->cu, config->grid[0], config->grid[1], config->grid[2], config->block[0],
                                   config->block[1], config->block[2], config->shared_mem_bytes, c.stream, args, NULL);
    while (gpu__call_retry(&c, rc, &st));
    gpu__call_end(&c);
    return st != GPU_OK ? st : gpu__check(rc, GPU_ERR_KERNEL_LAUNCH, "cuLaunchKernel");
}

gpu_status gpu_stream_launch_kernel(gpu_stream *stream, gpu_module *module, const char *name,
                                    const gpu_launch_config *config, void **args)
{
    gpu_function *f;
    gpu_status st;

    if (!module || !name)
        return GPU__INVALID("gpu_stream_launch_kernel", module ? "name is NULL" : "module is NULL");
    st = gpu_launch_config_check(config);
    if (st != GPU_OK)
        return st;
    st = gpu_module_get_function(module, name, &f);
    if (st != GPU_OK)
        return st;
    return gpu_stream_launch_function(stream, f, config, args);
}
