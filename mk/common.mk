# Toolchains and the source lists shared by the host and kernel builds.

CROSS_COMPILE ?=
HOSTCC  ?= gcc
CC      := $(CROSS_COMPILE)gcc
LD      := $(CROSS_COMPILE)ld
OBJCOPY := $(CROSS_COMPILE)objcopy
NM      := $(CROSS_COMPILE)nm
NASM    ?= nasm

WARNINGS := -Wall -Wextra -Werror -Wno-unused-parameter

# Code that builds both in the kernel and on the host (arch-independent):
# all of mm/, the portable parts of kernel/, and the shared unit tests.
PORTABLE_SRCS := $(sort $(wildcard mm/*.c) $(wildcard tests/unit/*.c)) \
	kernel/printk.c kernel/ktest.c kernel/spinlock.c kernel/errno.c

INCLUDES := -Iinclude
