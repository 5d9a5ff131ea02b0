/* SPDX-License-Identifier: MIT */
/*
 * The fake driver's own entry points (fake/core/fake_entry_points.h) against
 * the toolkit's cuda.h (and cudaProfiler.h): each prototype is the one cuda.h declares for that
 * very symbol. cuda.h declares the older revisions and the per-thread
 * variants only for the driver's own build (__CUDA_API_VERSION_INTERNAL),
 * which this file plays, so that every exported name has its declaration.
 *
 * Built only where cuda.h is found; the library never needs it.
 */
#define __CUDA_API_VERSION_INTERNAL 1
#include <stddef.h>
#include <stdio.h>

#include <cuda.h>
#include <cudaProfiler.h>

#include "abi_handles.h"

#define SAME_VALUE(a, b) _Static_assert((long long)(a) == (long long)(b), #a " == " #b)
#define SAME_TYPE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " is " #b)
#define SAME_FIELD(ours, theirs, a, b) \
    _Static_assert(offsetof(ours, a) == offsetof(theirs, b), #ours "." #a " is at " #theirs "." #b); \
    SAME_TYPE(__typeof__(((ours *)0)->a), __typeof__(((theirs *)0)->b))

SAME_VALUE(CUABI_CTX_SCHED_MASK, CU_CTX_SCHED_MASK);
SAME_VALUE(CUABI_CTX_FLAGS_MASK, CU_CTX_FLAGS_MASK);
SAME_TYPE(cuabi_exec_affinity_param, CUexecAffinityParam);
_Static_assert(sizeof(cuabi_ctx_create_params) == sizeof(CUctxCreateParams), "CUctxCreateParams's size");
SAME_FIELD(cuabi_ctx_create_params, CUctxCreateParams, exec_affinity, execAffinityParams);
SAME_FIELD(cuabi_ctx_create_params, CUctxCreateParams, exec_affinity_count, numExecAffinityParams);
SAME_FIELD(cuabi_ctx_create_params, CUctxCreateParams, cig, cigParams);

_Static_assert(sizeof(cuabi_mem_location) == sizeof(CUmemLocation), "CUmemLocation's size");
SAME_FIELD(cuabi_mem_location, CUmemLocation, type, type);
SAME_FIELD(cuabi_mem_location, CUmemLocation, id, id);
_Static_assert(sizeof(cuabi_mem_allocation_prop) == sizeof(CUmemAllocationProp), "CUmemAllocationProp's size");
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, type, type);
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, handle_types, requestedHandleTypes);
_Static_assert(offsetof(cuabi_mem_allocation_prop, location) == offsetof(CUmemAllocationProp, location), "location");
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, win32_metadata, win32HandleMetaData);
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, alloc_flags.compression, allocFlags.compressionType);
SAME_FIELD(cuabi_mem_allocation_prop, CUmemAllocationProp, alloc_flags.usage, allocFlags.usage);
_Static_assert(sizeof(cuabi_mem_access_desc) == sizeof(CUmemAccessDesc), "CUmemAccessDesc's size");
_Static_assert(offsetof(cuabi_mem_access_desc, location) == offsetof(CUmemAccessDesc, location), "location");
SAME_FIELD(cuabi_mem_access_desc, CUmemAccessDesc, flags, flags);
_Static_assert(sizeof(cuabi_mem_pool_props) == sizeof(CUmemPoolProps), "CUmemPoolProps's size");
SAME_FIELD(cuabi_mem_pool_props, CUmemPoolProps, type, allocType);
SAME_FIELD(cuabi_mem_pool_props, CUmemPoolProps, handle_types, handleTypes);
_Static_assert(offsetof(cuabi_mem_pool_props, location) == offsetof(CUmemPoolProps, location), "location");
SAME_FIELD(cuabi_mem_pool_props, CUmemPoolProps, win32_security_attributes, win32SecurityAttributes);
SAME_FIELD(cuabi_mem_pool_props, CUmemPoolProps, max_size, maxSize);
SAME_FIELD(cuabi_mem_pool_props, CUmemPoolProps, usage, usage);
SAME_VALUE(CUABI_MEM_ATTACH_HOST, CU_MEM_ATTACH_HOST);
SAME_VALUE(CUABI_MEM_ATTACH_SINGLE, CU_MEM_ATTACH_SINGLE);
SAME_TYPE(cuabi_mem_handle, CUmemGenericAllocationHandle);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_WIN32, CU_MEM_HANDLE_TYPE_WIN32);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_WIN32_KMT, CU_MEM_HANDLE_TYPE_WIN32_KMT);
SAME_VALUE(CUABI_MEM_HANDLE_TYPE_FABRIC, CU_MEM_HANDLE_TYPE_FABRIC);
SAME_VALUE(CUABI_MEM_ACCESS_FLAGS_PROT_NONE, CU_MEM_ACCESS_FLAGS_PROT_NONE);
SAME_VALUE(CUABI_MEM_ACCESS_FLAGS_PROT_READ, CU_MEM_ACCESS_FLAGS_PROT_READ);
SAME_VALUE(CUABI_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
SAME_VALUE(CUABI_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_DEVICE);
SAME_VALUE(CUABI_MEM_LOCATION_TYPE_HOST, CU_MEM_LOCATION_TYPE_HOST);
SAME_VALUE(CUABI_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_ALLOCATION_TYPE_PINNED);
SAME_VALUE(CUABI_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
SAME_VALUE(CUABI_MEM_ALLOC_GRANULARITY_RECOMMENDED, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);

/* 2D and 3D copies, arrays, textures and surfaces. */
#define SAME_SIZE(ours, theirs) _Static_assert(sizeof(ours) == sizeof(theirs), #theirs "'s size")
SAME_SIZE(cuabi_graph_edge_data, CUgraphEdgeData);
SAME_FIELD(cuabi_graph_edge_data, CUgraphEdgeData, from_port, from_port);
SAME_FIELD(cuabi_graph_edge_data, CUgraphEdgeData, to_port, to_port);
SAME_FIELD(cuabi_graph_edge_data, CUgraphEdgeData, type, type);
SAME_SIZE(cuabi_memcpy2d, CUDA_MEMCPY2D);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, src_x, srcXInBytes);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, src_y, srcY);
_Static_assert(offsetof(cuabi_memcpy2d, src_type) == offsetof(CUDA_MEMCPY2D, srcMemoryType), "srcMemoryType");
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, src_host, srcHost);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, src_device, srcDevice);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, src_array, srcArray);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, src_pitch, srcPitch);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, dst_x, dstXInBytes);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, dst_y, dstY);
_Static_assert(offsetof(cuabi_memcpy2d, dst_type) == offsetof(CUDA_MEMCPY2D, dstMemoryType), "dstMemoryType");
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, dst_host, dstHost);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, dst_device, dstDevice);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, dst_array, dstArray);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, dst_pitch, dstPitch);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, width, WidthInBytes);
SAME_FIELD(cuabi_memcpy2d, CUDA_MEMCPY2D, height, Height);
SAME_SIZE(cuabi_memcpy3d, CUDA_MEMCPY3D);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_x, srcXInBytes);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_z, srcZ);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_lod, srcLOD);
_Static_assert(offsetof(cuabi_memcpy3d, src_type) == offsetof(CUDA_MEMCPY3D, srcMemoryType), "srcMemoryType");
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_host, srcHost);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_device, srcDevice);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_array, srcArray);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, reserved0, reserved0);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_pitch, srcPitch);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, src_height, srcHeight);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_x, dstXInBytes);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_z, dstZ);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_lod, dstLOD);
_Static_assert(offsetof(cuabi_memcpy3d, dst_type) == offsetof(CUDA_MEMCPY3D, dstMemoryType), "dstMemoryType");
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_host, dstHost);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_device, dstDevice);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_array, dstArray);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, reserved1, reserved1);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_pitch, dstPitch);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, dst_height, dstHeight);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, width, WidthInBytes);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, height, Height);
SAME_FIELD(cuabi_memcpy3d, CUDA_MEMCPY3D, depth, Depth);
SAME_SIZE(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER);
SAME_TYPE(cuabi_launch_attribute_id, CUstreamAttrID);
SAME_VALUE(CUABI_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW);
SAME_VALUE(CUABI_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY);
SAME_VALUE(CUABI_ACCESS_PROPERTY_PERSISTING, CU_ACCESS_PROPERTY_PERSISTING);
SAME_VALUE(CUABI_SYNC_POLICY_AUTO, CU_SYNC_POLICY_AUTO);
SAME_VALUE(CUABI_SYNC_POLICY_BLOCKING_SYNC, CU_SYNC_POLICY_BLOCKING_SYNC);
SAME_SIZE(cuabi_access_policy_window, CUaccessPolicyWindow);
SAME_FIELD(cuabi_access_policy_window, CUaccessPolicyWindow, base_ptr, base_ptr);
SAME_FIELD(cuabi_access_policy_window, CUaccessPolicyWindow, num_bytes, num_bytes);
SAME_FIELD(cuabi_access_policy_window, CUaccessPolicyWindow, hit_ratio, hitRatio);
_Static_assert(offsetof(cuabi_access_policy_window, hit_prop) == offsetof(CUaccessPolicyWindow, hitProp), "hitProp");
_Static_assert(offsetof(cuabi_access_policy_window, miss_prop) == offsetof(CUaccessPolicyWindow, missProp), "missProp");
SAME_SIZE(cuabi_launch_attribute_value, CUstreamAttrValue);
_Static_assert(offsetof(cuabi_launch_attribute_value, access_policy_window) ==
                   offsetof(CUlaunchAttributeValue, accessPolicyWindow), "accessPolicyWindow");
_Static_assert(offsetof(cuabi_launch_attribute_value, sync_policy) == offsetof(CUlaunchAttributeValue, syncPolicy),
               "syncPolicy");
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_x, srcXInBytes);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_lod, srcLOD);
_Static_assert(offsetof(cuabi_memcpy3d_peer, src_type) == offsetof(CUDA_MEMCPY3D_PEER, srcMemoryType), "srcMemoryType");
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_host, srcHost);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_device, srcDevice);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_array, srcArray);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_context, srcContext);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_pitch, srcPitch);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, src_height, srcHeight);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_x, dstXInBytes);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_lod, dstLOD);
_Static_assert(offsetof(cuabi_memcpy3d_peer, dst_type) == offsetof(CUDA_MEMCPY3D_PEER, dstMemoryType), "dstMemoryType");
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_host, dstHost);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_device, dstDevice);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_array, dstArray);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_context, dstContext);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_pitch, dstPitch);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, dst_height, dstHeight);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, width, WidthInBytes);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, height, Height);
SAME_FIELD(cuabi_memcpy3d_peer, CUDA_MEMCPY3D_PEER, depth, Depth);
SAME_SIZE(cuabi_array_descriptor, CUDA_ARRAY_DESCRIPTOR);
SAME_FIELD(cuabi_array_descriptor, CUDA_ARRAY_DESCRIPTOR, width, Width);
SAME_FIELD(cuabi_array_descriptor, CUDA_ARRAY_DESCRIPTOR, height, Height);
_Static_assert(offsetof(cuabi_array_descriptor, format) == offsetof(CUDA_ARRAY_DESCRIPTOR, Format), "Format");
SAME_FIELD(cuabi_array_descriptor, CUDA_ARRAY_DESCRIPTOR, channels, NumChannels);
SAME_SIZE(cuabi_array3d_descriptor, CUDA_ARRAY3D_DESCRIPTOR);
SAME_FIELD(cuabi_array3d_descriptor, CUDA_ARRAY3D_DESCRIPTOR, depth, Depth);
_Static_assert(offsetof(cuabi_array3d_descriptor, format) == offsetof(CUDA_ARRAY3D_DESCRIPTOR, Format), "Format");
SAME_FIELD(cuabi_array3d_descriptor, CUDA_ARRAY3D_DESCRIPTOR, channels, NumChannels);
SAME_FIELD(cuabi_array3d_descriptor, CUDA_ARRAY3D_DESCRIPTOR, flags, Flags);
SAME_SIZE(cuabi_resource_desc, CUDA_RESOURCE_DESC);
_Static_assert(offsetof(cuabi_resource_desc, type) == offsetof(CUDA_RESOURCE_DESC, resType), "resType");
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.array.array, res.array.hArray);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.mipmap.mipmap, res.mipmap.hMipmappedArray);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.linear.ptr, res.linear.devPtr);
_Static_assert(offsetof(cuabi_resource_desc, res.linear.format) == offsetof(CUDA_RESOURCE_DESC, res.linear.format),
               "res.linear.format");
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.linear.channels, res.linear.numChannels);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.linear.bytes, res.linear.sizeInBytes);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.pitch2d.ptr, res.pitch2D.devPtr);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.pitch2d.channels, res.pitch2D.numChannels);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.pitch2d.width, res.pitch2D.width);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.pitch2d.height, res.pitch2D.height);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, res.pitch2d.pitch, res.pitch2D.pitchInBytes);
SAME_FIELD(cuabi_resource_desc, CUDA_RESOURCE_DESC, flags, flags);
SAME_SIZE(cuabi_texture_desc, CUDA_TEXTURE_DESC);
_Static_assert(offsetof(cuabi_texture_desc, address_mode) == offsetof(CUDA_TEXTURE_DESC, addressMode), "addressMode");
_Static_assert(offsetof(cuabi_texture_desc, filter_mode) == offsetof(CUDA_TEXTURE_DESC, filterMode), "filterMode");
SAME_FIELD(cuabi_texture_desc, CUDA_TEXTURE_DESC, flags, flags);
SAME_FIELD(cuabi_texture_desc, CUDA_TEXTURE_DESC, max_anisotropy, maxAnisotropy);
_Static_assert(offsetof(cuabi_texture_desc, mipmap_filter_mode) == offsetof(CUDA_TEXTURE_DESC, mipmapFilterMode),
               "mipmapFilterMode");
SAME_FIELD(cuabi_texture_desc, CUDA_TEXTURE_DESC, mipmap_level_bias, mipmapLevelBias);
SAME_FIELD(cuabi_texture_desc, CUDA_TEXTURE_DESC, min_mipmap_level_clamp, minMipmapLevelClamp);
SAME_FIELD(cuabi_texture_desc, CUDA_TEXTURE_DESC, max_mipmap_level_clamp, maxMipmapLevelClamp);
SAME_FIELD(cuabi_texture_desc, CUDA_TEXTURE_DESC, border_color, borderColor);
SAME_SIZE(cuabi_resource_view_desc, CUDA_RESOURCE_VIEW_DESC);
_Static_assert(offsetof(cuabi_resource_view_desc, format) == offsetof(CUDA_RESOURCE_VIEW_DESC, format), "format");
SAME_FIELD(cuabi_resource_view_desc, CUDA_RESOURCE_VIEW_DESC, width, width);
SAME_FIELD(cuabi_resource_view_desc, CUDA_RESOURCE_VIEW_DESC, depth, depth);
SAME_FIELD(cuabi_resource_view_desc, CUDA_RESOURCE_VIEW_DESC, first_mipmap_level, firstMipmapLevel);
SAME_FIELD(cuabi_resource_view_desc, CUDA_RESOURCE_VIEW_DESC, last_layer, lastLayer);
SAME_TYPE(cuabi_tex_object, CUtexObject);
SAME_TYPE(cuabi_surf_object, CUsurfObject);
SAME_VALUE(CUABI_ARRAY3D_LAYERED, CUDA_ARRAY3D_LAYERED);
SAME_VALUE(CUABI_ARRAY3D_CUBEMAP, CUDA_ARRAY3D_CUBEMAP);
SAME_VALUE(CUABI_ARRAY3D_VIDEO_ENCODE_DECODE, CUDA_ARRAY3D_VIDEO_ENCODE_DECODE);
SAME_VALUE(CUABI_AD_FORMAT_HALF, CU_AD_FORMAT_HALF);
SAME_VALUE(CUABI_AD_FORMAT_FLOAT, CU_AD_FORMAT_FLOAT);
SAME_VALUE(CUABI_AD_FORMAT_SIGNED_INT32, CU_AD_FORMAT_SIGNED_INT32);
SAME_VALUE(CUABI_RESOURCE_TYPE_PITCH2D, CU_RESOURCE_TYPE_PITCH2D);
SAME_VALUE(CUABI_TR_ADDRESS_MODE_BORDER, CU_TR_ADDRESS_MODE_BORDER);
SAME_VALUE(CUABI_TR_FILTER_MODE_LINEAR, CU_TR_FILTER_MODE_LINEAR);
SAME_VALUE(CUABI_TRSF_NORMALIZED_COORDINATES, CU_TRSF_NORMALIZED_COORDINATES);
SAME_VALUE(CUABI_TRSF_SEAMLESS_CUBEMAP, CU_TRSF_SEAMLESS_CUBEMAP);
SAME_VALUE(CUABI_MEMHOSTALLOC_WRITECOMBINED, CU_MEMHOSTALLOC_WRITECOMBINED);
SAME_VALUE(CUABI_MEMHOSTREGISTER_READ_ONLY, CU_MEMHOSTREGISTER_READ_ONLY);

/* Graphs' nodes' parameters. */
SAME_SIZE(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2);
SAME_SIZE(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v3);
SAME_FIELD(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2, grid_x, gridDimX);
SAME_FIELD(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2, shared_mem_bytes, sharedMemBytes);
SAME_FIELD(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2, params, kernelParams);
SAME_FIELD(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2, extra, extra);
SAME_FIELD(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2, kern, kern);
SAME_FIELD(cuabi_kernel_node_params, CUDA_KERNEL_NODE_PARAMS_v2, ctx, ctx);
SAME_SIZE(cuabi_kernel_node_params_v1, CUDA_KERNEL_NODE_PARAMS_v1);
SAME_FIELD(cuabi_kernel_node_params_v1, CUDA_KERNEL_NODE_PARAMS_v1, extra, extra);
SAME_SIZE(cuabi_memset_node_params, CUDA_MEMSET_NODE_PARAMS);
SAME_FIELD(cuabi_memset_node_params, CUDA_MEMSET_NODE_PARAMS, pitch, pitch);
SAME_FIELD(cuabi_memset_node_params, CUDA_MEMSET_NODE_PARAMS, element_size, elementSize);
SAME_FIELD(cuabi_memset_node_params, CUDA_MEMSET_NODE_PARAMS, height, height);
SAME_SIZE(cuabi_memset_node_params_v2, CUDA_MEMSET_NODE_PARAMS_v2);
_Static_assert(offsetof(cuabi_memset_node_params_v2, ctx) == offsetof(CUDA_MEMSET_NODE_PARAMS_v2, ctx), "ctx");
SAME_SIZE(cuabi_host_node_params, CUDA_HOST_NODE_PARAMS);
SAME_FIELD(cuabi_host_node_params, CUDA_HOST_NODE_PARAMS, user_data, userData);
SAME_SIZE(cuabi_memcpy_node_params, CUDA_MEMCPY_NODE_PARAMS);
_Static_assert(offsetof(cuabi_memcpy_node_params, copy) == offsetof(CUDA_MEMCPY_NODE_PARAMS, copyParams), "copy");
SAME_SIZE(cuabi_child_graph_node_params, CUDA_CHILD_GRAPH_NODE_PARAMS);
SAME_SIZE(cuabi_graph_node_params, CUgraphNodeParams);
_Static_assert(offsetof(cuabi_graph_node_params, u) == offsetof(CUgraphNodeParams, kernel), "the union");
_Static_assert(offsetof(cuabi_graph_node_params, reserved2) == offsetof(CUgraphNodeParams, reserved2), "reserved2");
SAME_SIZE(cuabi_graph_instantiate_params, CUDA_GRAPH_INSTANTIATE_PARAMS);
_Static_assert(offsetof(cuabi_graph_instantiate_params, result) ==
               offsetof(CUDA_GRAPH_INSTANTIATE_PARAMS, result_out), "result_out");
SAME_VALUE(CUABI_GRAPH_NODE_TYPE_KERNEL, CU_GRAPH_NODE_TYPE_KERNEL);
SAME_VALUE(CUABI_GRAPH_NODE_TYPE_EVENT_RECORD, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
SAME_VALUE(CUABI_GRAPH_NODE_TYPE_WAIT_EVENT, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
SAME_VALUE(CUABI_GRAPH_NODE_TYPE_CONDITIONAL, CU_GRAPH_NODE_TYPE_CONDITIONAL);
SAME_VALUE(CUABI_USER_OBJECT_NO_DESTRUCTOR_SYNC, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
SAME_VALUE(CUABI_GRAPH_USER_OBJECT_MOVE, CU_GRAPH_USER_OBJECT_MOVE);
SAME_VALUE(CUABI_GRAPH_INSTANTIATE_FLAG_UPLOAD, CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD);
SAME_VALUE(CUABI_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY, CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY);
SAME_VALUE(CUABI_GRAPH_INSTANTIATE_INVALID_STRUCTURE, CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);

/* The layouts being the same, the prototypes read gpushim's struct names as cuda.h's. */
#define cuabi_memcpy2d CUDA_MEMCPY2D
#define cuabi_memcpy3d CUDA_MEMCPY3D
#define cuabi_memcpy3d_peer CUDA_MEMCPY3D_PEER
#define cuabi_kernel_node_params CUDA_KERNEL_NODE_PARAMS_v2
#define cuabi_kernel_node_params_v1 CUDA_KERNEL_NODE_PARAMS_v1
#define cuabi_memset_node_params CUDA_MEMSET_NODE_PARAMS
#define cuabi_host_node_params CUDA_HOST_NODE_PARAMS
#define cuabi_graph_node_params CUgraphNodeParams
#define cuabi_graph_instantiate_params CUDA_GRAPH_INSTANTIATE_PARAMS
#define cuabi_launch_attribute_value CUlaunchAttributeValue
#define cuabi_array_descriptor CUDA_ARRAY_DESCRIPTOR
#define cuabi_array3d_descriptor CUDA_ARRAY3D_DESCRIPTOR
#define cuabi_resource_desc CUDA_RESOURCE_DESC
#define cuabi_texture_desc CUDA_TEXTURE_DESC
#define cuabi_resource_view_desc CUDA_RESOURCE_VIEW_DESC
#define cuabi_uuid CUuuid
#define cuabi_ctx_create_params CUctxCreateParams
#define cuabi_mem_location CUmemLocation
#define cuabi_mem_allocation_prop CUmemAllocationProp
#define cuabi_mem_access_desc CUmemAccessDesc
#define cuabi_mem_pool_props CUmemPoolProps
#define cuabi_graph_edge_data CUgraphEdgeData

#define GPU__FAKE_ENTRY(symbol, params) SAME_TYPE(cuabi_result(*) params, __typeof__(&symbol));
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY

int main(void)
{
    unsigned n = 0;

#define GPU__FAKE_ENTRY(symbol, params) n++;
#include "fake_entry_points.h"
#undef GPU__FAKE_ENTRY
    printf("checked %u of the fake driver's own entry points against cuda.h %d\n", n, CUDA_VERSION);
    return 0;
}
