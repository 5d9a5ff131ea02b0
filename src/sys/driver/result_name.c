/* SPDX-License-Identifier: MIT */
/*
 * gpushim's own names for CUresults, from the list in cuda_abi.h: what the
 * loader and result.c fall back on when the driver cannot name a result.
 * It needs nothing else, so both can use it without needing each other.
 */
#include "driver.h"

const char *gpu__result_name_own(cuabi_result result)
{
    switch (result) {
#define CUABI_RESULT_NAME(name, value) \
    case value: \
        return "CUDA_" #name;
        CUABI_RESULT_LIST(CUABI_RESULT_NAME)
#undef CUABI_RESULT_NAME
    }
    return NULL;
}
