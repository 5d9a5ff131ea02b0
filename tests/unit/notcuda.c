/* SPDX-License-Identifier: MIT */
/* A shared library that is not a CUDA driver: it exports no cu* symbol. */
int gpushim_test_not_cuda(void);

int gpushim_test_not_cuda(void)
{
    return 42;
}
