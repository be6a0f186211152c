# Build output, kbuild style. By default each step prints one line, what it
# does and to which file ("  CC      mm/fault.c", "  LD      build/kernel.elf");
# `make V=1` prints the full commands instead; `make -s` prints neither.
# Included by mk/common.mk and by mk/user.mk (which also works on its own).
#
#   $(call say,TAG,FILE)   the one-line message (a recipe line of its own)
#   $(Q)                   put before a command: hidden unless V=1

ifndef QUIET_MK
QUIET_MK := 1
V ?= 0
ifeq ($(V),1)
Q :=
say =
else
Q := @
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
say =
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)'
endif
endif
endif
