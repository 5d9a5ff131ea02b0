/* SPDX-License-Identifier: MIT */
/* Stands in for the abi suite where no cuda.h was found: reported as skipped. */
#include <stdio.h>

int main(void)
{
    puts("no cuda.h at configure time (option abi_cuda_include_dir): ABI check skipped");
    return 77;
}
