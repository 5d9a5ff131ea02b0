/* SPDX-License-Identifier: MIT */
/*
 * For the abi suite: gpushim's opaque handle types and structs made the very
 * ones cuda.h declares, so that prototypes can be compared; then cuda_abi.h.
 * Include after cuda.h.
 */
#ifndef GPUSHIM_TESTS_ABI_HANDLES_H
#define GPUSHIM_TESTS_ABI_HANDLES_H

#define cuabi_ctx_st CUctx_st
#define cuabi_mod_st CUmod_st
#define cuabi_func_st CUfunc_st
#define cuabi_stream_st CUstream_st
#define cuabi_green_ctx_st CUgreenCtx_st
#define cuabi_event_st CUevent_st
#define cuabi_graph_st CUgraph_st
#define cuabi_graph_exec_st CUgraphExec_st
#define cuabi_graph_node_st CUgraphNode_st
#define cuabi_user_object_st CUuserObject_st
#define cuabi_mem_pool_st CUmemPoolHandle_st
#define cuabi_ipc_mem_handle_st CUipcMemHandle_st
#define cuabi_ipc_event_handle_st CUipcEventHandle_st
#define cuabi_graph_exec_update_result_info_st CUgraphExecUpdateResultInfo_st
#define cuabi_exec_affinity_param_st CUexecAffinityParam_st
#define cuabi_ctx_cig_param_st CUctxCigParam_st
#define cuabi_link_state_st CUlinkState_st
#define cuabi_lib_st CUlib_st
#define cuabi_kern_st CUkern_st
#define cuabi_array_st CUarray_st
#define cuabi_mipmapped_array_st CUmipmappedArray_st
#include "cuda_abi.h"

#endif
