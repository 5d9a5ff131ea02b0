# What every example's Makefile shares: how to find an installed gpushim
# (pkg-config), its fake driver and nvcc, and the targets. Copy this file with
# an example. An example's Makefile sets, then includes this file:
#   PROGRAM   the program, built from main.c and linked with libgpushim only
#   KERNELS   the NAME of each NAME.cu (its PTX) and NAME_host.c (its host
#             implementation, libNAME_host.so); none for a program without kernels
# Targets: all (gpu and fake), gpu (what a GPU runs: the program and the PTX),
# fake (the host implementations too), clean.
#
#   PKG_CONFIG_PATH   where gpushim.pc is, when gpushim is not installed in /usr
#   NVCC              nvcc (default: the one in PATH, else /usr/local/cuda/bin/nvcc)

PKG_CONFIG ?= pkg-config
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
CFLAGS ?= -O2 -g
WARNINGS = -std=c11 -Wall -Wextra -Werror

ifneq ($(MAKECMDGOALS),clean)
ifneq ($(shell $(PKG_CONFIG) --exists gpushim && echo found),found)
$(error pkg-config finds no gpushim: install it, or set PKG_CONFIG_PATH to the folder holding gpushim.pc)
endif
GPUSHIM_CFLAGS := $(shell $(PKG_CONFIG) --cflags gpushim)
# The library's folder as the run path too: a gpushim installed under a prefix is not where the
# dynamic loader looks, and the program must start all the same.
GPUSHIM_LIBS := $(shell $(PKG_CONFIG) --libs gpushim) -Wl,-rpath,$(shell $(PKG_CONFIG) --variable=libdir gpushim)
endif
# Only the host kernels need the fake's flags, so they are looked up only when built.
FAKE_CFLAGS = $(shell $(PKG_CONFIG) --cflags gpushim-fakecuda)
FAKE_LIBS = $(shell $(PKG_CONFIG) --libs gpushim-fakecuda) -Wl,-rpath,$(shell $(PKG_CONFIG) --variable=libdir gpushim-fakecuda)

all: gpu fake
gpu: $(PROGRAM) $(KERNELS:=.ptx)
fake: gpu $(KERNELS:%=lib%_host.so)

# The program needs nothing of CUDA's to build or to start: libgpushim loads the driver.
$(PROGRAM): main.c
	$(CC) $(WARNINGS) $(CFLAGS) $(GPUSHIM_CFLAGS) $(LDFLAGS) -o $@ $^ $(GPUSHIM_LIBS)

# A kernel's PTX, for any GPU from compute capability 7.5 on (the driver compiles it for the one it runs on).
%.ptx: %.cu
	@command -v $(NVCC) >/dev/null || { echo "$(NVCC) not found: set NVCC to nvcc's path" >&2; exit 1; }
	$(NVCC) -ptx -arch=compute_75 -o $@ $<

# Host implementations of kernels, for the fake driver (GPUSHIM_FAKE_KERNELS=$PWD/lib..._host.so).
lib%_host.so: %_host.c
	@$(PKG_CONFIG) --exists gpushim-fakecuda || { echo "pkg-config finds no gpushim-fakecuda (installed with gpushim)" >&2; exit 1; }
	$(CC) $(WARNINGS) $(CFLAGS) -fPIC -shared $(FAKE_CFLAGS) $(LDFLAGS) -o $@ $< $(FAKE_LIBS)

clean:
	rm -f $(PROGRAM) $(KERNELS:=.ptx) $(KERNELS:%=lib%_host.so)

.PHONY: all gpu fake clean
