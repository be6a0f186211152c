# User programs: the tiny libc (user/lib), its headers (user/include) and the
# programs built on it (user/mmscript). Static, freestanding x86-64 ELFs that
# run on the host Linux and on our kernel, unchanged.
#
#   make user                         build/user/libulib.a, build/user/mmscript, ...
#   make test-linux                   run tests/mmscript/*.mms on the host Linux and
#                                     compare with the stored .out files
#   make fuzz-mmscript [SEEDS=n] [START=s]
#                                     random scripts, determinism check on Linux
#   make test-mmscript-kernel         the corpus on our kernel vs the stored outputs
#   make fuzz-mmscript-kernel [SEEDS=n] [START=s] [FILES=1]
#                                     random scripts, host Linux vs our kernel
#                                     (FILES=1: file scripts, tools/mmscript-fuzz --files)
#
# Works on its own too (tools/mmscript uses `make -f mk/user.mk user`), so it
# does not depend on the other mk/*.mk files.

BUILD ?= build
include mk/quiet.mk
USER_BUILD := $(BUILD)/user
USER_CC ?= gcc
USER_AR ?= ar

# -nostdinc + gcc's own include dir: only the freestanding headers (stdint.h,
# stddef.h, stdarg.h, stdbool.h) and ours, never the host libc's.
# -mgeneral-regs-only: no SSE in user code, so a kernel without FPU state
# handling can still run these programs.
# DEBUG=1 (as for the kernel, mk/kernel.mk): -Og and full debug information,
# for stepping through a program under gdb (tools/run-gdb). A stamp file
# remembers the flags, so switching rebuilds the programs.
USER_OPT := $(if $(filter 1,$(DEBUG)),-Og -g3,-O2 -g)
USER_CFLAGS := -std=gnu11 $(USER_OPT) -Wall -Wextra -Werror \
	-ffreestanding -fno-stack-protector -fno-pie -fno-builtin \
	-fno-tree-loop-distribute-patterns -mgeneral-regs-only \
	-nostdinc -isystem $(shell $(USER_CC) -print-file-name=include) -Iuser/include -Iinclude/uapi
USER_LDFLAGS := -static -nostdlib -no-pie -Wl,--build-id=none -Wl,-u,_start

USER_LIB_SRCS := $(sort $(wildcard user/lib/*.c) $(wildcard user/lib/*.S))
USER_LIB_OBJS := $(patsubst %,$(USER_BUILD)/%.o,$(basename $(USER_LIB_SRCS)))
USER_LIB := $(USER_BUILD)/libulib.a

# Every directory user/<prog>/ (except lib/ and include/) is one program made
# of all its .c files; every user/<prog>.c is a one-file program.
USER_PROG_DIRS := $(filter-out lib include,$(notdir $(patsubst %/,%,$(wildcard user/*/))))
USER_PROG_FILES := $(basename $(notdir $(wildcard user/*.c)))
USER_PROGS := $(addprefix $(USER_BUILD)/,$(USER_PROG_DIRS) $(USER_PROG_FILES))

USER_FLAGS_STAMP := $(USER_BUILD)/cflags
.PHONY: FORCE
FORCE:
$(USER_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(USER_CFLAGS)' | cmp -s - $@ || echo '$(USER_CFLAGS)' > $@

$(USER_BUILD)/%.o: %.c $(USER_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CC [U],$<)
	$(Q)$(USER_CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(USER_BUILD)/%.o: %.S $(USER_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,AS [U],$<)
	$(Q)$(USER_CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(USER_LIB): $(USER_LIB_OBJS)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)$(USER_AR) rcs $@ $^

define USER_PROG_DIR_RULE
$(USER_BUILD)/$(1): $(patsubst %.c,$(USER_BUILD)/%.o,$(sort $(wildcard user/$(1)/*.c))) $(USER_LIB)
	$$(call say,LD [U],$$@)
	$$(Q)$(USER_CC) $(USER_LDFLAGS) -o $$@ $$^ -lgcc
endef
$(foreach p,$(USER_PROG_DIRS),$(eval $(call USER_PROG_DIR_RULE,$(p))))

define USER_PROG_FILE_RULE
$(USER_BUILD)/$(1): $(USER_BUILD)/user/$(1).o $(USER_LIB)
	$$(call say,LD [U],$$@)
	$$(Q)$(USER_CC) $(USER_LDFLAGS) -o $$@ $$^ -lgcc
endef
$(foreach p,$(USER_PROG_FILES),$(eval $(call USER_PROG_FILE_RULE,$(p))))

.PHONY: user
user: $(USER_LIB) $(USER_PROGS)

# The corpus on the host Linux. Linux before 6.16 merges differently in rare
# anon_vma cases, so there differences are reported but do not fail.
MMSCRIPT_CORPUS := $(sort $(wildcard tests/mmscript/*.mms))
# Which Linux personality the kernel and host targets follow and the
# expected outputs assume (tools/mmscript --personality): auto probes the
# host Linux; base, or a comma list of exec_only and zero_page.
PERSONALITY ?= auto

.PHONY: test-linux
test-linux: user
	@tools/mmscript --target linux --out $(BUILD)/mmscript/linux \
		--expect tests/mmscript --report-only-below 6.16 $(MMSCRIPT_CORPUS)

# The corpus on our kernel (one QEMU boot), compared with the stored Linux outputs.
.PHONY: test-mmscript-kernel
test-mmscript-kernel: user
	@tools/mmscript --target kernel --out $(BUILD)/mmscript/kernel \
		--personality $(PERSONALITY) --expect tests/mmscript $(MMSCRIPT_CORPUS)

SEEDS ?= 200
START ?= 1
# Random scripts, the host Linux against our kernel (one boot per 500 scripts).
.PHONY: fuzz-mmscript-kernel
fuzz-mmscript-kernel: user
	@MMSCRIPT_PERSONALITY=$(PERSONALITY) tools/mmscript-fuzz --target kernel --seeds $(SEEDS) --start $(START) $(if $(FILES),--files)

.PHONY: fuzz-mmscript
fuzz-mmscript: user
	@tools/mmscript-fuzz --target linux --seeds $(SEEDS) --start $(START) $(if $(FILES),--files)

-include $(USER_LIB_OBJS:.o=.d) $(patsubst %.c,$(USER_BUILD)/%.d,$(wildcard user/*/*.c user/*.c))
