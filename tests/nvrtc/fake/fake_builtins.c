/* SPDX-License-Identifier: MIT */
/* A fake libnvrtc-builtins: the fake libnvrtc only needs one of its soname to load. */
__attribute__((visibility("default"))) int fake_nvrtc_builtins(void);

int fake_nvrtc_builtins(void)
{
    return 1;
}
