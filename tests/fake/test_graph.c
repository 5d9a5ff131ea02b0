/* SPDX-License-Identifier: MIT */
/*
 * The fake's explicit graphs (fake/fake_graph*.c) as a CUDA program builds
 * them: every kind of node by hand, its edges, launches checked by their
 * results, executable graphs' parameters, clones, updates, a capture's nodes,
 * user objects, and the errors of bad arguments.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

#define CU_IS(call, want) assert_int_equal((call), (want))

enum { N = 64 };

/* p[i] += add for each thread i of the block. */
static const char add_ptx[] =
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    ".visible .entry add(.param .u64 p, .param .u32 add)\n"
    "{\n"
    "\t.reg .b32 %r<5>;\n"
    "\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [p];\n"
    "\tld.param.u32 %r1, [add];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r2, %tid.x;\n"
    "\tmul.wide.u32 %rd3, %r2, 4;\n"
    "\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tld.global.u32 %r3, [%rd4];\n"
    "\tadd.s32 %r4, %r3, %r1;\n"
    "\tst.global.u32 [%rd4], %r4;\n"
    "\tret;\n"
    "}\n";

static int host_calls, other_calls;

static void count_call(void *user_data)
{
    (*(int *)user_data)++;
}

static cuabi_memcpy3d copy_1d(unsigned dst_type, void *dst_host, cuabi_deviceptr dst, unsigned src_type,
                              const void *src_host, cuabi_deviceptr src, size_t bytes)
{
    cuabi_memcpy3d c;

    memset(&c, 0, sizeof(c));
    c.dst_type = dst_type;
    c.dst_host = dst_host;
    c.dst_device = dst;
    c.src_type = src_type;
    c.src_host = src_host;
    c.src_device = src;
    c.width = bytes;
    c.height = 1;
    c.depth = 1;
    return c;
}

static cuabi_kernel_node_params add_params(cuabi_function f, void **args)
{
    cuabi_kernel_node_params k;

    memset(&k, 0, sizeof(k));
    k.func = f;
    k.grid_x = k.grid_y = k.grid_z = 1;
    k.block_x = N;
    k.block_y = k.block_z = 1;
    k.params = args;
    return k;
}

struct built {
    cuabi_graph g, child;
    cuabi_graph_node h2d, set, kern, d2d, rec, wait, sub, empty, d2h, host;
};

static uint32_t h_in[N], h_out[N];

/*
 * h2d: a <- h_in; set: b <- 0 (roots); kern: a += 5 after h2d; d2d: b <- a after kern and set;
 * record and wait of an event; a child graph adding 100 to b; empty; d2h: h_out <- b; host: count.
 */
static void build(struct built *b, cuabi_function f, cuabi_deviceptr da, cuabi_deviceptr db, cuabi_event e)
{
    cuabi_deviceptr pa = da, pb = db;
    uint32_t five = 5, hundred = 100;
    void *args_a[] = {&pa, &five}, *args_b[] = {&pb, &hundred};
    cuabi_kernel_node_params ka = add_params(f, args_a), kb = add_params(f, args_b);
    cuabi_memcpy3d h2d = copy_1d(CUABI_MEMORYTYPE_DEVICE, NULL, da, CUABI_MEMORYTYPE_HOST, h_in, 0, sizeof(h_in));
    cuabi_memcpy3d d2d = copy_1d(CUABI_MEMORYTYPE_DEVICE, NULL, db, CUABI_MEMORYTYPE_DEVICE, NULL, da, sizeof(h_in));
    cuabi_memcpy3d d2h = copy_1d(CUABI_MEMORYTYPE_HOST, h_out, 0, CUABI_MEMORYTYPE_DEVICE, NULL, db, sizeof(h_out));
    cuabi_memset_node_params ms = {db, 0, 0xdeadbeef, 4, N, 1};
    cuabi_host_node_params hp = {count_call, &host_calls};
    cuabi_graph_node child_kern = NULL, two[2];

    CU_OK(cuGraphCreate(&b->g, 0));
    CU_OK(cuGraphAddMemcpyNode(&b->h2d, b->g, NULL, 0, &h2d, NULL));
    CU_OK(cuGraphAddMemsetNode(&b->set, b->g, NULL, 0, &ms, NULL));
    CU_OK(cuGraphAddKernelNode_v2(&b->kern, b->g, &b->h2d, 1, &ka));
    two[0] = b->kern;
    two[1] = b->set;
    CU_OK(cuGraphAddMemcpyNode(&b->d2d, b->g, two, 2, &d2d, NULL));
    CU_OK(cuGraphAddEventRecordNode(&b->rec, b->g, &b->d2d, 1, e));
    CU_OK(cuGraphAddEventWaitNode(&b->wait, b->g, &b->rec, 1, e));
    CU_OK(cuGraphCreate(&b->child, 0));
    CU_OK(cuGraphAddKernelNode_v2(&child_kern, b->child, NULL, 0, &kb));
    CU_OK(cuGraphAddChildGraphNode(&b->sub, b->g, &b->wait, 1, b->child));
    CU_OK(cuGraphAddEmptyNode(&b->empty, b->g, &b->sub, 1));
    CU_OK(cuGraphAddMemcpyNode(&b->d2h, b->g, &b->empty, 1, &d2h, NULL));
    CU_OK(cuGraphAddHostNode(&b->host, b->g, &b->d2h, 1, &hp));
    /* The parameters were copied when the nodes were added: these locals may change now. */
    five = 1000;
    hundred = 1000;
}

static void launch_check(cuabi_graph_exec x, cuabi_stream s, uint32_t seed, uint32_t added, int calls)
{
    for (unsigned i = 0; i < N; i++) {
        h_in[i] = seed + i;
        h_out[i] = 0;
    }
    CU_OK(cuGraphLaunch(x, s));
    CU_OK(cuStreamSynchronize(s));
    for (unsigned i = 0; i < N; i++)
        if (h_out[i] != seed + i + added)
            fail_msg("h_out[%u] = %u, not %u", i, h_out[i], seed + i + added);
    assert_int_equal(host_calls, calls);
}

static cuabi_function load_add(cuabi_module *m)
{
    cuabi_function f = NULL;

    CU_OK(cuModuleLoadData(m, add_ptx));
    CU_OK(cuModuleGetFunction(&f, *m, "add"));
    return f;
}

/* Every kind of node by hand, launched twice and then with an executable graph's new parameters. */
static void by_hand(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr da = 0, db = 0;
    cuabi_event e = NULL;
    cuabi_stream s = NULL;
    cuabi_graph_exec x = NULL;
    struct built b;
    cuabi_graph_node nodes[12], from[16], to[16];
    cuabi_graph_node_type type;
    cuabi_kernel_node_params kp;
    cuabi_graph child = NULL;
    size_t n;
    ft_mark mark;

    (void)state;
    ft_retain_current(0);
    ft_mark_take(&mark);
    f = load_add(&m);
    CU_OK(cuMemAlloc_v2(&da, sizeof(h_in)));
    CU_OK(cuMemAlloc_v2(&db, sizeof(h_in)));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuStreamCreate(&s, 1));
    build(&b, f, da, db, e);

    /* The shape: ten nodes, two roots, nine edges. */
    CU_OK(cuGraphGetNodes(b.g, NULL, &n));
    assert_int_equal(n, 10);
    n = 12;
    CU_OK(cuGraphGetNodes(b.g, nodes, &n));
    assert_int_equal(n, 10);
    assert_ptr_equal(nodes[0], b.h2d);
    assert_null(nodes[10]);
    CU_OK(cuGraphGetRootNodes(b.g, NULL, &n));
    assert_int_equal(n, 2);
    CU_OK(cuGraphGetEdges_v2(b.g, NULL, NULL, NULL, &n));
    assert_int_equal(n, 9);
    n = 16;
    CU_OK(cuGraphGetEdges(b.g, from, to, &n));
    assert_int_equal(n, 9);
    CU_OK(cuGraphNodeGetDependencies(b.d2d, NULL, &n));
    assert_int_equal(n, 2);
    CU_OK(cuGraphNodeGetDependentNodes(b.set, nodes, &(size_t){1}));
    assert_ptr_equal(nodes[0], b.d2d);
    CU_OK(cuGraphNodeGetType(b.sub, &type));
    assert_int_equal(type, CUABI_GRAPH_NODE_TYPE_GRAPH);
    CU_OK(cuGraphChildGraphNodeGetGraph(b.sub, &child));
    CU_OK(cuGraphGetNodes(child, NULL, &n));
    assert_int_equal(n, 1);
    /* A node's kernel parameters are its own copies, taken when it was added. */
    CU_OK(cuGraphKernelNodeGetParams_v2(b.kern, &kp));
    assert_int_equal(*(uint32_t *)kp.params[1], 5);

    CU_OK(cuGraphInstantiateWithFlags(&x, b.g, 0));
    host_calls = 0;
    launch_check(x, s, 1, 105, 1);
    launch_check(x, s, 7, 105, 2);

    /* An executable graph's node takes new parameters; the graph's keeps its own. */
    {
        cuabi_deviceptr pa = da;
        uint32_t seven = 7;
        void *args[] = {&pa, &seven};
        cuabi_kernel_node_params k7 = add_params(f, args);
        cuabi_host_node_params none = {count_call, &other_calls};
        unsigned enabled = 0;

        CU_OK(cuGraphExecKernelNodeSetParams_v2(x, b.kern, &k7));
        launch_check(x, s, 3, 107, 3);
        CU_OK(cuGraphKernelNodeGetParams_v2(b.kern, &kp));
        assert_int_equal(*(uint32_t *)kp.params[1], 5);
        /* Turned off, the kernel does not run. */
        CU_OK(cuGraphNodeSetEnabled(x, b.kern, 0));
        CU_OK(cuGraphNodeGetEnabled(x, b.kern, &enabled));
        assert_int_equal(enabled, 0);
        launch_check(x, s, 3, 100, 4);
        CU_OK(cuGraphNodeSetEnabled(x, b.kern, 1));
        CU_IS(cuGraphNodeSetEnabled(x, b.host, 0), CUABI_ERROR_INVALID_VALUE);
        /* The host node calls another counter: this one stays. */
        CU_OK(cuGraphExecHostNodeSetParams(x, b.host, &none));
        launch_check(x, s, 3, 107, 4);
    }

    /* A memset's and a copy's new parameters: b filled with 9 and copied out, the child adding 100. */
    {
        cuabi_memset_node_params ms = {db, 0, 9, 4, N, 1};
        cuabi_memcpy3d none = copy_1d(CUABI_MEMORYTYPE_DEVICE, NULL, db, CUABI_MEMORYTYPE_DEVICE, NULL, db, 0);

        CU_OK(cuGraphExecMemsetNodeSetParams(x, b.set, &ms, NULL));
        CU_OK(cuGraphExecMemcpyNodeSetParams(x, b.d2d, &none, NULL));
        for (unsigned i = 0; i < N; i++)
            h_out[i] = 0;
        CU_OK(cuGraphLaunch(x, s));
        CU_OK(cuStreamSynchronize(s));
        for (unsigned i = 0; i < N; i++)
            assert_int_equal(h_out[i], 109);
    }

    CU_OK(cuGraphExecDestroy(x));
    CU_OK(cuGraphDestroy(b.g));
    CU_OK(cuGraphDestroy(b.child));
    CU_OK(cuEventDestroy_v2(e));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(da));
    CU_OK(cuMemFree_v2(db));
    CU_OK(cuModuleUnload(m));
    FT_MARK_CHECK(&mark);
}

/* A clone's nodes found by the original's; an executable graph updated from a changed clone. */
static void clone_update(void **state)
{
    cuabi_module m = NULL;
    cuabi_function f;
    cuabi_deviceptr da = 0, db = 0;
    cuabi_event e = NULL;
    cuabi_stream s = NULL;
    cuabi_graph_exec x = NULL;
    cuabi_graph clone = NULL, other = NULL;
    cuabi_graph_node k = NULL, extra = NULL;
    cuabi_graph_exec_update_result_info info;
    cuabi_kernel_node_params kp;
    struct built b;
    ft_mark mark;

    (void)state;
    ft_retain_current(0);
    ft_mark_take(&mark);
    f = load_add(&m);
    CU_OK(cuMemAlloc_v2(&da, sizeof(h_in)));
    CU_OK(cuMemAlloc_v2(&db, sizeof(h_in)));
    CU_OK(cuEventCreate(&e, 0));
    CU_OK(cuStreamCreate(&s, 1));
    build(&b, f, da, db, e);
    CU_OK(cuGraphClone(&clone, b.g));
    CU_OK(cuGraphNodeFindInClone(&k, b.kern, clone));
    assert_ptr_not_equal(k, b.kern);
    CU_OK(cuGraphKernelNodeGetParams_v2(k, &kp));
    assert_int_equal(*(uint32_t *)kp.params[1], 5);
    CU_IS(cuGraphNodeFindInClone(&k, b.kern, b.child), CUABI_ERROR_INVALID_VALUE);

    CU_OK(cuGraphInstantiateWithFlags(&x, b.g, 0));
    host_calls = 0;
    launch_check(x, s, 1, 105, 1);
    {
        cuabi_deviceptr pa = da;
        uint32_t nine = 9;
        void *args[] = {&pa, &nine};
        cuabi_kernel_node_params k9 = add_params(f, args);

        CU_OK(cuGraphKernelNodeSetParams_v2(k, &k9));
    }
    CU_OK(cuGraphExecUpdate_v2(x, clone, &info));
    assert_int_equal(info.result, CUABI_GRAPH_EXEC_UPDATE_SUCCESS);
    launch_check(x, s, 2, 109, 2);
    /* Another shape: refused, the executable graph unchanged. */
    CU_OK(cuGraphAddEmptyNode(&extra, clone, NULL, 0));
    CU_IS(cuGraphExecUpdate_v2(x, clone, &info), CUABI_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    assert_int_equal(info.result, CUABI_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    launch_check(x, s, 2, 109, 3);
    /* A node of another graph as a dependency. */
    CU_OK(cuGraphCreate(&other, 0));
    CU_IS(cuGraphAddEmptyNode(&extra, other, &b.kern, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddDependencies(other, &b.kern, &b.host, 1), CUABI_ERROR_INVALID_VALUE);

    CU_OK(cuGraphExecDestroy(x));
    CU_OK(cuGraphDestroy(other));
    CU_OK(cuGraphDestroy(clone));
    CU_OK(cuGraphDestroy(b.g));
    CU_OK(cuGraphDestroy(b.child));
    CU_OK(cuEventDestroy_v2(e));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(da));
    CU_OK(cuMemFree_v2(db));
    CU_OK(cuModuleUnload(m));
    FT_MARK_CHECK(&mark);
}

/* Edges: added and removed, a duplicate and a self edge refused, a cycle refused at instantiation. */
static void edges(void **state)
{
    cuabi_graph g = NULL;
    cuabi_graph_exec x = NULL;
    cuabi_graph_node a = NULL, b = NULL, c = NULL, from[4], to[4];
    cuabi_graph_edge_data data[4];
    cuabi_graph_instantiate_params ip = {0};
    size_t n = 4;
    ft_mark mark;

    (void)state;
    ft_retain_current(0);
    ft_mark_take(&mark);
    CU_OK(cuGraphCreate(&g, 0));
    CU_OK(cuGraphAddEmptyNode(&a, g, NULL, 0));
    CU_OK(cuGraphAddEmptyNode(&b, g, &a, 1));
    CU_OK(cuGraphAddEmptyNode(&c, g, NULL, 0));
    CU_IS(cuGraphAddEmptyNode(&c, g, (cuabi_graph_node[]){a, a}, 2), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddDependencies(g, &a, &b, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddDependencies(g, &a, &a, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphRemoveDependencies(g, &a, &c, 1), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuGraphAddDependencies_v2(g, &b, &c, NULL, 1));
    CU_OK(cuGraphGetEdges_v2(g, from, to, data, &n));
    assert_int_equal(n, 2);
    assert_ptr_equal(from[1], b);
    assert_ptr_equal(to[1], c);
    CU_OK(cuGraphRemoveDependencies(g, &b, &c, 1));
    CU_OK(cuGraphGetRootNodes(g, NULL, &n));
    assert_int_equal(n, 2);
    /* c -> a closes a -> b -> c -> a. */
    CU_OK(cuGraphAddDependencies(g, &b, &c, 1));
    CU_OK(cuGraphAddDependencies(g, &c, &a, 1));
    CU_IS(cuGraphInstantiateWithParams(&x, g, &ip), CUABI_ERROR_INVALID_VALUE);
    assert_int_equal(ip.result, CUABI_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
    /* Destroying a node takes its edges. */
    CU_OK(cuGraphDestroyNode(c));
    CU_OK(cuGraphGetEdges(g, NULL, NULL, &n));
    assert_int_equal(n, 1);
    CU_OK(cuGraphInstantiateWithParams(&x, g, &ip));
    assert_int_equal(ip.result, CUABI_GRAPH_INSTANTIATE_SUCCESS);
    CU_OK(cuGraphExecDestroy(x));
    CU_OK(cuGraphDestroy(g));
    FT_MARK_CHECK(&mark);
}

/* NULL and stale arguments: the driver's invalid value, never a crash. */
static void bad_arguments(void **state)
{
    cuabi_graph g = NULL;
    cuabi_graph_node a = NULL;
    cuabi_graph_exec x = NULL;
    cuabi_graph_node_params p;
    size_t n = 0;

    (void)state;
    ft_retain_current(0);
    CU_IS(cuGraphCreate(NULL, 0), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphCreate(&g, 1), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuGraphCreate(&g, 0));
    CU_IS(cuGraphGetNodes(g, NULL, NULL), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphGetNodes(NULL, NULL, &n), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddKernelNode_v2(&a, g, NULL, 0, NULL), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddHostNode(&a, g, NULL, 0, &(cuabi_host_node_params){NULL, NULL}), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddEventRecordNode(&a, g, NULL, 0, NULL), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddEmptyNode(NULL, g, NULL, 0), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddEmptyNode(&a, g, NULL, 1), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphAddChildGraphNode(&a, g, NULL, 0, g), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphNodeGetType(NULL, &(cuabi_graph_node_type){0}), CUABI_ERROR_INVALID_VALUE);
    memset(&p, 0, sizeof(p));
    p.type = CUABI_GRAPH_NODE_TYPE_EMPTY;
    p.reserved2 = 1;
    CU_IS(cuGraphAddNode_v2(&a, g, NULL, NULL, 0, &p), CUABI_ERROR_INVALID_VALUE);
    p.reserved2 = 0;
    CU_OK(cuGraphAddNode_v2(&a, g, NULL, NULL, 0, &p));
    CU_OK(cuGraphInstantiateWithFlags(&x, g, 0));
    CU_IS(cuGraphExecHostNodeSetParams(x, a, &(cuabi_host_node_params){count_call, NULL}),
          CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuGraphDestroyNode(a));
    CU_IS(cuGraphDestroyNode(a), CUABI_ERROR_INVALID_VALUE);
    CU_IS(cuGraphNodeSetEnabled(x, a, 1), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuGraphExecDestroy(x));
    CU_OK(cuGraphDestroy(g));
    CU_IS(cuGraphDestroy(g), CUABI_ERROR_INVALID_HANDLE);
}

/* A captured graph is nodes too: a chain in capture order. */
static void captured(void **state)
{
    cuabi_stream s = NULL;
    cuabi_graph g = NULL;
    cuabi_graph_node nodes[4];
    cuabi_memset_node_params ms;
    cuabi_deviceptr p = 0;
    size_t n = 4;
    ft_mark mark;

    (void)state;
    ft_retain_current(0);
    ft_mark_take(&mark);
    CU_OK(cuMemAlloc_v2(&p, 256));
    CU_OK(cuStreamCreate(&s, 1));
    CU_OK(cuStreamBeginCapture_v2(s, CUABI_STREAM_CAPTURE_MODE_GLOBAL));
    CU_OK(cuMemsetD32Async(p, 1, 64, s));
    CU_OK(cuLaunchHostFunc(s, count_call, &host_calls));
    CU_OK(cuStreamEndCapture(s, &g));
    CU_OK(cuGraphGetNodes(g, nodes, &n));
    assert_int_equal(n, 2);
    CU_OK(cuGraphGetEdges(g, NULL, NULL, &n));
    assert_int_equal(n, 1);
    CU_OK(cuGraphMemsetNodeGetParams(nodes[0], &ms));
    assert_int_equal(ms.value, 1);
    assert_int_equal(ms.width, 64);
    CU_OK(cuGraphDestroy(g));
    CU_OK(cuStreamDestroy_v2(s));
    CU_OK(cuMemFree_v2(p));
    FT_MARK_CHECK(&mark);
}

static int destroyed;

static void destroy_object(void *ptr)
{
    (*(int *)ptr)++;
}

/* A user object lives while a graph or an executable graph holds it. */
static void user_objects(void **state)
{
    cuabi_user_object u = NULL;
    cuabi_graph g = NULL;
    cuabi_graph_exec x = NULL;
    cuabi_graph_node a = NULL;
    char path[] = "/tmp/gpushim-graph-XXXXXX";
    char text[512] = {0};
    FILE *f;
    int fd;

    (void)state;
    ft_retain_current(0);
    CU_IS(cuUserObjectCreate(&u, &destroyed, destroy_object, 1, 0), CUABI_ERROR_INVALID_VALUE);
    CU_OK(cuUserObjectCreate(&u, &destroyed, destroy_object, 1, CUABI_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    CU_OK(cuGraphCreate(&g, 0));
    CU_OK(cuGraphAddEmptyNode(&a, g, NULL, 0));
    CU_OK(cuGraphAddEmptyNode(&a, g, &a, 1));
    CU_OK(cuGraphRetainUserObject(g, u, 1, CUABI_GRAPH_USER_OBJECT_MOVE));
    CU_OK(cuGraphInstantiateWithFlags(&x, g, 0));
    CU_IS(cuGraphReleaseUserObject(g, u, 2), CUABI_ERROR_INVALID_VALUE);

    /* The DOT picture: two nodes and their edge. */
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    CU_OK(cuGraphDebugDotPrint(g, path, CUABI_GRAPH_DEBUG_DOT_FLAGS_VERBOSE));
    f = fopen(path, "r");
    assert_non_null(f);
    assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
    fclose(f);
    unlink(path);
    assert_non_null(strstr(text, "digraph"));
    assert_non_null(strstr(text, "node0 -> node1"));

    CU_OK(cuGraphDestroy(g));
    assert_int_equal(destroyed, 0);
    CU_OK(cuGraphExecDestroy(x));
    assert_int_equal(destroyed, 1);
    CU_IS(cuUserObjectRelease(u, 1), CUABI_ERROR_INVALID_VALUE);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(by_hand),      cmocka_unit_test(clone_update), cmocka_unit_test(edges),
        cmocka_unit_test(bad_arguments), cmocka_unit_test(captured),    cmocka_unit_test(user_objects),
    };

    return ft_run(argc, argv, "graph", tests, sizeof(tests) / sizeof(tests[0]), NULL, NULL, NULL, 0);
}
