/*
 * What the fake says about itself: its identity, which gpushim's loader looks
 * up to tell it from a real driver, and the report of what is still alive.
 */
#include "fake_internal.h"

FAKE_API const char *gpu_fake_identify(void)
{
    return "gpushim-fakecuda " FAKE_VERSION;
}
