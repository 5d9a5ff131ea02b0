/* SPDX-License-Identifier: MIT */
/*
 * What each CUresult of cuda_abi.h's CUABI_RESULT_LIST means, in a sentence:
 * the driver's own words for it where they are known, else cuda.h's
 * documentation of the code, shortened. CUABI_RESULT_TEXT_<name> for
 * CUABI_<name>; a code of the list without one does not compile where a
 * table of every code is made from it (the fake's cuGetErrorString).
 */
#ifndef GPUSHIM_CUDA_RESULT_TEXT_H
#define GPUSHIM_CUDA_RESULT_TEXT_H

#define CUABI_RESULT_TEXT_SUCCESS "no error"
#define CUABI_RESULT_TEXT_ERROR_INVALID_VALUE "invalid argument"
#define CUABI_RESULT_TEXT_ERROR_OUT_OF_MEMORY "out of memory"
#define CUABI_RESULT_TEXT_ERROR_NOT_INITIALIZED "initialization error"
#define CUABI_RESULT_TEXT_ERROR_DEINITIALIZED "driver shutting down"
#define CUABI_RESULT_TEXT_ERROR_PROFILER_DISABLED "profiler disabled while using separate tool"
#define CUABI_RESULT_TEXT_ERROR_PROFILER_NOT_INITIALIZED "profiler not initialized"
#define CUABI_RESULT_TEXT_ERROR_PROFILER_ALREADY_STARTED "profiler already started"
#define CUABI_RESULT_TEXT_ERROR_PROFILER_ALREADY_STOPPED "profiler already stopped"
#define CUABI_RESULT_TEXT_ERROR_STUB_LIBRARY "CUDA driver is a stub library"
#define CUABI_RESULT_TEXT_ERROR_CALL_REQUIRES_NEWER_DRIVER "API call is not supported in the installed CUDA driver"
#define CUABI_RESULT_TEXT_ERROR_DEVICE_UNAVAILABLE "CUDA-capable device(s) is/are busy or unavailable"
#define CUABI_RESULT_TEXT_ERROR_NO_DEVICE "no CUDA-capable device is detected"
#define CUABI_RESULT_TEXT_ERROR_INVALID_DEVICE "invalid device ordinal"
#define CUABI_RESULT_TEXT_ERROR_DEVICE_NOT_LICENSED "device doesn't have valid Grid license"
#define CUABI_RESULT_TEXT_ERROR_INVALID_IMAGE "device kernel image is invalid"
#define CUABI_RESULT_TEXT_ERROR_INVALID_CONTEXT "invalid device context"
#define CUABI_RESULT_TEXT_ERROR_CONTEXT_ALREADY_CURRENT "context already current"
#define CUABI_RESULT_TEXT_ERROR_MAP_FAILED "mapping of buffer object failed"
#define CUABI_RESULT_TEXT_ERROR_UNMAP_FAILED "unmapping of buffer object failed"
#define CUABI_RESULT_TEXT_ERROR_ARRAY_IS_MAPPED "array is mapped"
#define CUABI_RESULT_TEXT_ERROR_ALREADY_MAPPED "resource already mapped"
#define CUABI_RESULT_TEXT_ERROR_NO_BINARY_FOR_GPU "no kernel image is available for execution on the device"
#define CUABI_RESULT_TEXT_ERROR_ALREADY_ACQUIRED "resource already acquired"
#define CUABI_RESULT_TEXT_ERROR_NOT_MAPPED "resource not mapped"
#define CUABI_RESULT_TEXT_ERROR_NOT_MAPPED_AS_ARRAY "resource not mapped as array"
#define CUABI_RESULT_TEXT_ERROR_NOT_MAPPED_AS_POINTER "resource not mapped as pointer"
#define CUABI_RESULT_TEXT_ERROR_ECC_UNCORRECTABLE "uncorrectable ECC error encountered"
#define CUABI_RESULT_TEXT_ERROR_UNSUPPORTED_LIMIT "limit is not supported on this architecture"
#define CUABI_RESULT_TEXT_ERROR_CONTEXT_ALREADY_IN_USE "exclusive-thread device already in use by a different thread"
#define CUABI_RESULT_TEXT_ERROR_PEER_ACCESS_UNSUPPORTED "peer access is not supported between these two devices"
#define CUABI_RESULT_TEXT_ERROR_INVALID_PTX "a PTX JIT compilation failed"
#define CUABI_RESULT_TEXT_ERROR_INVALID_GRAPHICS_CONTEXT "invalid OpenGL or DirectX context"
#define CUABI_RESULT_TEXT_ERROR_NVLINK_UNCORRECTABLE "uncorrectable NVLink error detected during the execution"
#define CUABI_RESULT_TEXT_ERROR_JIT_COMPILER_NOT_FOUND "PTX JIT compiler library not found"
#define CUABI_RESULT_TEXT_ERROR_UNSUPPORTED_PTX_VERSION "the provided PTX was compiled with an unsupported toolchain."
#define CUABI_RESULT_TEXT_ERROR_JIT_COMPILATION_DISABLED "PTX JIT compilation was disabled"
#define CUABI_RESULT_TEXT_ERROR_UNSUPPORTED_EXEC_AFFINITY "the provided execution affinity is not supported"
#define CUABI_RESULT_TEXT_ERROR_UNSUPPORTED_DEVSIDE_SYNC \
    "the provided PTX contains unsupported call to cudaDeviceSynchronize"
#define CUABI_RESULT_TEXT_ERROR_CONTAINED \
    "an exception occurred on the device that is now contained by the GPU's error containment capability"
#define CUABI_RESULT_TEXT_ERROR_INVALID_SOURCE "the device kernel source is invalid"
#define CUABI_RESULT_TEXT_ERROR_FILE_NOT_FOUND "file not found"
#define CUABI_RESULT_TEXT_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND "shared object symbol not found"
#define CUABI_RESULT_TEXT_ERROR_SHARED_OBJECT_INIT_FAILED "shared object initialization failed"
#define CUABI_RESULT_TEXT_ERROR_OPERATING_SYSTEM "OS call failed or operation not supported on this OS"
#define CUABI_RESULT_TEXT_ERROR_INVALID_HANDLE "invalid resource handle"
#define CUABI_RESULT_TEXT_ERROR_ILLEGAL_STATE "the operation cannot be performed in the present state"
#define CUABI_RESULT_TEXT_ERROR_LOSSY_QUERY "attempted introspection would be semantically lossy"
#define CUABI_RESULT_TEXT_ERROR_NOT_FOUND "named symbol not found"
#define CUABI_RESULT_TEXT_ERROR_NOT_READY "device not ready"
#define CUABI_RESULT_TEXT_ERROR_ILLEGAL_ADDRESS "an illegal memory access was encountered"
#define CUABI_RESULT_TEXT_ERROR_LAUNCH_OUT_OF_RESOURCES "too many resources requested for launch"
#define CUABI_RESULT_TEXT_ERROR_LAUNCH_TIMEOUT "the launch timed out and was terminated"
#define CUABI_RESULT_TEXT_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING "launch uses incompatible texturing mode"
#define CUABI_RESULT_TEXT_ERROR_PEER_ACCESS_ALREADY_ENABLED "peer access is already enabled"
#define CUABI_RESULT_TEXT_ERROR_PEER_ACCESS_NOT_ENABLED "peer access has not been enabled"
#define CUABI_RESULT_TEXT_ERROR_PRIMARY_CONTEXT_ACTIVE "cannot set while device is active in this process"
#define CUABI_RESULT_TEXT_ERROR_CONTEXT_IS_DESTROYED "context is destroyed"
#define CUABI_RESULT_TEXT_ERROR_ASSERT "device-side assert triggered"
#define CUABI_RESULT_TEXT_ERROR_TOO_MANY_PEERS "peer mapping resources exhausted"
#define CUABI_RESULT_TEXT_ERROR_HOST_MEMORY_ALREADY_REGISTERED "part or all of the requested memory range is already mapped"
#define CUABI_RESULT_TEXT_ERROR_HOST_MEMORY_NOT_REGISTERED "pointer does not correspond to a registered memory region"
#define CUABI_RESULT_TEXT_ERROR_HARDWARE_STACK_ERROR "hardware stack error"
#define CUABI_RESULT_TEXT_ERROR_ILLEGAL_INSTRUCTION "an illegal instruction was encountered"
#define CUABI_RESULT_TEXT_ERROR_MISALIGNED_ADDRESS "misaligned address"
#define CUABI_RESULT_TEXT_ERROR_INVALID_ADDRESS_SPACE "operation not supported on global/shared address space"
#define CUABI_RESULT_TEXT_ERROR_INVALID_PC "invalid program counter"
#define CUABI_RESULT_TEXT_ERROR_LAUNCH_FAILED "unspecified launch failure"
#define CUABI_RESULT_TEXT_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE "too many blocks in cooperative launch"
#define CUABI_RESULT_TEXT_ERROR_TENSOR_MEMORY_LEAK "tensor memory not completely freed"
#define CUABI_RESULT_TEXT_ERROR_NOT_PERMITTED "operation not permitted"
#define CUABI_RESULT_TEXT_ERROR_NOT_SUPPORTED "operation not supported"
#define CUABI_RESULT_TEXT_ERROR_SYSTEM_NOT_READY "system not yet initialized"
#define CUABI_RESULT_TEXT_ERROR_SYSTEM_DRIVER_MISMATCH "system has unsupported display driver / cuda driver combination"
#define CUABI_RESULT_TEXT_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE "forward compatibility was attempted on non supported HW"
#define CUABI_RESULT_TEXT_ERROR_MPS_CONNECTION_FAILED \
    "MPS client failed to connect to the MPS control daemon or the MPS server"
#define CUABI_RESULT_TEXT_ERROR_MPS_RPC_FAILURE "the remote procedural call between the MPS server and the MPS client failed"
#define CUABI_RESULT_TEXT_ERROR_MPS_SERVER_NOT_READY "MPS server is not ready to accept new MPS client requests"
#define CUABI_RESULT_TEXT_ERROR_MPS_MAX_CLIENTS_REACHED \
    "the hardware resources required to create MPS client have been exhausted"
#define CUABI_RESULT_TEXT_ERROR_MPS_MAX_CONNECTIONS_REACHED \
    "the hardware resources required to support device connections have been exhausted"
#define CUABI_RESULT_TEXT_ERROR_MPS_CLIENT_TERMINATED "the MPS client has been terminated by the server"
#define CUABI_RESULT_TEXT_ERROR_CDP_NOT_SUPPORTED \
    "the module is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"
#define CUABI_RESULT_TEXT_ERROR_CDP_VERSION_MISMATCH \
    "a module contains an unsupported interaction between different versions of CUDA Dynamic Parallelism"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_UNSUPPORTED "operation not permitted when stream is capturing"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_INVALIDATED "operation failed due to a previous error during capture"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_MERGE "operation would result in a merge of separate capture sequences"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_UNMATCHED "capture was not ended in the same stream as it began"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_UNJOINED "capturing stream has unjoined work"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_ISOLATION "dependency created on uncaptured work in another stream"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_IMPLICIT \
    "operation would make the legacy stream depend on a capturing blocking stream"
#define CUABI_RESULT_TEXT_ERROR_CAPTURED_EVENT "operation not permitted on an event last recorded in a capturing stream"
#define CUABI_RESULT_TEXT_ERROR_STREAM_CAPTURE_WRONG_THREAD \
    "attempt to terminate a thread-local capture sequence from another thread"
#define CUABI_RESULT_TEXT_ERROR_TIMEOUT "wait operation timed out"
#define CUABI_RESULT_TEXT_ERROR_GRAPH_EXEC_UPDATE_FAILURE \
    "the graph update was not performed because it included changes which violated constraints specific to " \
    "instantiated graph update"
#define CUABI_RESULT_TEXT_ERROR_EXTERNAL_DEVICE "an async error has occurred in a device outside of CUDA"
#define CUABI_RESULT_TEXT_ERROR_INVALID_CLUSTER_SIZE "invalid cluster size"
#define CUABI_RESULT_TEXT_ERROR_FUNCTION_NOT_LOADED "the function handle is not loaded"
#define CUABI_RESULT_TEXT_ERROR_INVALID_RESOURCE_TYPE "one or more resources passed in are not valid resource types"
#define CUABI_RESULT_TEXT_ERROR_INVALID_RESOURCE_CONFIGURATION \
    "one or more resources are insufficient or non-applicable for the operation"
#define CUABI_RESULT_TEXT_ERROR_KEY_ROTATION "an error happened during the key rotation sequence"
#define CUABI_RESULT_TEXT_ERROR_UNKNOWN "unknown error"

#endif
