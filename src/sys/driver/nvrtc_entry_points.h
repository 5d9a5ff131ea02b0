/* SPDX-License-Identifier: MIT */
/*
 * The NVRTC entry points gpushim uses: the only place an NVRTC function is
 * named. The table, the resolver, the load report, the fake libnvrtc's checks
 * and the ABI check all expand from this list.
 *
 *   GPU__NVRTC_ENTRY(need, ret, name, params)
 *
 * need    REQUIRED: without it the library is not a usable NVRTC
 *         (GPU_ERR_NO_COMPILER). OPTIONAL: without it only what needs it
 *         fails (a cubin target: GPU_ERR_NOT_SUPPORTED; the architecture list
 *         stays empty).
 * ret     the return type.
 * name    the exported symbol (NVRTC does not version its symbols) and the
 *         table field.
 * params  the prototype's parameters.
 *
 * No include guard, on purpose.
 */

GPU__NVRTC_ENTRY(REQUIRED, const char *, nvrtcGetErrorString, (nvrtcabi_result result))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcVersion, (int *major, int *minor))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcCreateProgram,
                 (nvrtcabi_program *prog, const char *src, const char *name, int num_headers,
                  const char *const *headers, const char *const *include_names))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcDestroyProgram, (nvrtcabi_program *prog))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcCompileProgram,
                 (nvrtcabi_program prog, int num_options, const char *const *options))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcGetPTXSize, (nvrtcabi_program prog, size_t *size))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcGetPTX, (nvrtcabi_program prog, char *ptx))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcGetProgramLogSize, (nvrtcabi_program prog, size_t *size))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcGetProgramLog, (nvrtcabi_program prog, char *log))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcAddNameExpression,
                 (nvrtcabi_program prog, const char *const name_expression))
GPU__NVRTC_ENTRY(REQUIRED, nvrtcabi_result, nvrtcGetLoweredName,
                 (nvrtcabi_program prog, const char *const name_expression, const char **lowered_name))
/* Since CUDA 11.1. */
GPU__NVRTC_ENTRY(OPTIONAL, nvrtcabi_result, nvrtcGetCUBINSize, (nvrtcabi_program prog, size_t *size))
GPU__NVRTC_ENTRY(OPTIONAL, nvrtcabi_result, nvrtcGetCUBIN, (nvrtcabi_program prog, char *cubin))
/* Since CUDA 11.2. */
GPU__NVRTC_ENTRY(OPTIONAL, nvrtcabi_result, nvrtcGetNumSupportedArchs, (int *count))
GPU__NVRTC_ENTRY(OPTIONAL, nvrtcabi_result, nvrtcGetSupportedArchs, (int *archs))
