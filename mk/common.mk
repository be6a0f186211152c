# Toolchains and the source lists shared by the host and kernel builds.

include mk/quiet.mk

CROSS_COMPILE ?=
HOSTCC  ?= gcc
CC      := $(CROSS_COMPILE)gcc
LD      := $(CROSS_COMPILE)ld
OBJCOPY := $(CROSS_COMPILE)objcopy
NM      := $(CROSS_COMPILE)nm
NASM    ?= nasm

WARNINGS := -Wall -Wextra -Werror -Wno-unused-parameter

# The lock-order checker (include/lockdep.h) is built into the kernel and the
# host tests unless LOCKDEP=0.
LOCKDEP ?= 1
LOCKDEP_FLAGS := $(if $(filter 1,$(LOCKDEP)),-DLOCKDEP)

# The layers, bottom up (docs/guide.md): lib/ (portable support), mm/ and
# mm/vma_index/ (the VM, arch-independent), fs/ (the file system over mm/'s
# page cache), then kernel/ and arch/.
# lib/string.c is the kernel's own memcpy & co.; on the host the C library's
# are used, so it is the one lib/ file that is kernel-only.
LIB_KERNEL_ONLY := lib/string.c
LIB_SRCS := $(filter-out $(LIB_KERNEL_ONLY),$(sort $(wildcard lib/*.c)))
MM_SRCS  := $(sort $(wildcard mm/*.c) $(wildcard mm/vma_index/*.c))
FS_SRCS  := $(sort $(wildcard fs/*.c))
# drivers/: the block layer and the RAM disk are portable (the host tests'
# swap area sits on a RAM disk); the hardware drivers (virtio) are kernel-only.
DRV_PORTABLE_SRCS := drivers/block/blockdev.c drivers/block/ramdisk.c
DRV_KERNEL_SRCS := $(filter-out $(DRV_PORTABLE_SRCS),$(sort $(wildcard drivers/*/*.c)))
# Code that builds both in the kernel and on the host: lib/, mm/, fs/, the
# portable drivers and
# the shared unit tests. This is the one list of portable sources.
PORTABLE_SRCS := $(LIB_SRCS) $(MM_SRCS) $(FS_SRCS) $(DRV_PORTABLE_SRCS) $(sort $(wildcard tests/unit/*.c))

# Include paths by layer. lib/, mm/ and fs/ see only include/: they are
# compiled without arch/x86_64/include, so they cannot see a PTE bit or an MSR. The
# unit tests and tools may include mm/'s private headers as "mm/...".
# Everything else (kernel/, arch/, boot, kernel tests) also sees the x86
# headers.
INCLUDES := -Iinclude
layer_includes = $(if $(filter lib/% mm/% fs/% $(DRV_PORTABLE_SRCS),$(1)),-Iinclude,$(if $(filter tests/unit/% tests/fuzz/% tools/%,$(1)),-Iinclude -I.,-Iinclude -Iarch/x86_64/include -I.))

# The guest's CPUs in every QEMU boot: tools/qemu-run reads QEMU_SMP (default
# 4); tools/run takes its QEMU options from RUN_QEMU_ARGS, so the same -smp
# goes first there (a -smp the caller puts in RUN_QEMU_ARGS comes later and wins).
QEMU_SMP ?= 4
export QEMU_SMP
export RUN_QEMU_ARGS := -smp $(QEMU_SMP) $(RUN_QEMU_ARGS)

# SWAP=SIZE (QEMU size syntax, 64M, 2G): the QEMU boots of the test targets get
# a virtio disk of that size, a sparse file removed afterwards, as swap
# (kernel option swap=vda): make test-kernel through tools/qemu-run --swap,
# the targets that use tools/run (test-user, run-user, ...) through RUN_SWAP.
ifneq ($(SWAP),)
ifneq ($(shell printf '%s' '$(SWAP)' | grep -Ex '[0-9]+[KMGT]?'),$(SWAP))
$(error SWAP='$(SWAP)': a size in QEMU syntax, e.g. 64M or 2G)
endif
export RUN_SWAP := $(SWAP)
endif
