# The kernel: build/kernel.elf (x86-64, higher half), build/kernel32.elf (an
# elf32-i386 copy that QEMU's -kernel multiboot loader accepts), the GRUB ISO,
# and the QEMU targets. Included by the top Makefile after mk/common.mk.
#
#   make kernel        build/kernel.elf + build/kernel32.elf
#   make iso           build/kernel.iso (GRUB, timeout 0: test suite, profile suite):
#                      a hybrid image that boots from the BIOS and from UEFI, as a CD
#                      or written raw to a USB stick (docs/baremetal.md)
#   make run           boot the ISO in QEMU, suites ktest=$(KTEST) (default: default),
#                      exit with its status
#   make run UEFI=1    the same with OVMF (UEFI firmware) on the q35 machine
#   make test-kernel   fast -kernel boot with ktest=$(KTEST) (default: default);
#                      LIST=1 lists the selected tests instead
#   make test-kernel SWAP=64M   the same with a virtio disk of that size (sparse,
#                      removed afterwards) and swap=vda (tools/qemu-run --swap)
#   make test-cpus     ktest=$(KTEST) (default: default) on QEMU's CPU models qemu64, max,
#                      Skylake-Server, EPYC (tools/test-cpus, QEMU >= 8.1 for x2APIC;
#                      make test's cpus stage)
#   make qemu-gdb      QEMU stopped at the first instruction, gdb stub on :1234
#   make gdb           gdb connected to it, with tools/gdb/vmkernel.gdb (kernel symbols,
#                      the vmas/ptwalk/pte/frames commands)
#   make DEBUG=1 ...   the kernel built for stepping (-Og -g3, KDEBUG assertions)
#   make bench-boot    boot timings of the boot paths -> docs/boot-bench.md
#
# QEMU exit statuses are mapped to messages by tools/qemu-run.

KBUILD     := $(BUILD)/kernel
KERNEL_ELF := $(BUILD)/kernel.elf
KERNEL32   := $(BUILD)/kernel32.elf
KERNEL_ISO := $(BUILD)/kernel.iso

# DEBUG=1: a kernel for stepping in gdb: -Og (every variable where the source
# says, no reordering across lines), full debug information with macros, and
# the assertions of debug builds (KDEBUG). The flags are remembered in a stamp
# file, so switching DEBUG on or off rebuilds every object.
ifeq ($(DEBUG),1)
KERNEL_OPT := -Og -g3 -DKDEBUG
else
KERNEL_OPT := -O2 -g
endif
# KASAN=1: the kernel address sanitizer (include/kasan.h): gcc instruments
# every load and store to call kernel/mm/kasan.c first (outline mode: no
# fixed shadow offset, so only the direct map is checked), except in the
# files that keep the shadow or run the allocators underneath it
# (KASAN_NOINSTR). make kasan builds it in $(BUILD)/kasan (make test's
# kernel-kasan stage boots it); -DKASAN is in KERNEL_CFLAGS, so the flags
# stamp rebuilds everything when KASAN changes.
ifeq ($(KASAN),1)
KASAN_DEFS := -DKASAN
KASAN_CFLAGS := -fsanitize=kernel-address --param asan-instrumentation-with-call-threshold=0 \
	--param asan-stack=0 --param asan-globals=0
KASAN_NOINSTR := kernel/mm/kasan.c kernel/mm/kasan_quarantine.c mm/slab.c mm/pmm.c lib/string.c
endif
KERNEL_CFLAGS := -std=gnu11 -ffreestanding -fno-stack-protector -mno-red-zone \
	-mcmodel=kernel -fno-pic -fno-pie -mno-sse -mno-mmx -mno-sse2 \
	-fno-omit-frame-pointer $(KERNEL_OPT) -fno-asynchronous-unwind-tables \
	-fno-tree-loop-distribute-patterns -fno-delete-null-pointer-checks -DKERNEL -DSLAB_DEBUG \
	$(LOCKDEP_FLAGS) $(KASAN_DEFS) \
	$(WARNINGS)
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack -T linker.ld
NASMFLAGS := -f elf64 -g -F dwarf -w+all

KERNEL_C_SRCS := $(PORTABLE_SRCS) $(LIB_KERNEL_ONLY) $(DRV_KERNEL_SRCS) $(sort $(wildcard arch/x86_64/*.c)) \
	$(FS_KERNEL_SRCS) $(KERNEL_DIR_SRCS) $(sort $(wildcard tests/kernel/*.c))
KERNEL_ASM_SRCS := $(sort $(wildcard boot/*.asm) $(wildcard arch/x86_64/*.asm))
KERNEL_OBJS := $(patsubst %.c,$(KBUILD)/%.o,$(KERNEL_C_SRCS)) \
	$(patsubst %.asm,$(KBUILD)/%.asm.o,$(KERNEL_ASM_SRCS))

QEMU_RUN := tools/qemu-run
KTEST_KERNEL = $(if $(KTEST),$(KTEST),default)
ifneq ($(shell printf '%s' '$(KTEST_KERNEL)' | tr -d 'a-zA-Z0-9_,.*?/+-'),)
$(error KTEST='$(KTEST)': patterns SUITE[.CASE][/PARAM] of letters, digits, '_', '+', '-' and the globs '*' '?', separated by commas)
endif
# SWAP=SIZE (QEMU size syntax: 64M, 2G): boot with a virtio disk of that size
# as swap (tools/qemu-run --swap: a sparse file in a temporary directory).
SWAP_OPT = $(if $(SWAP),--swap $(SWAP))
# LIST=1: list the tests KTEST selects instead of running them (make test-kernel, make test-host).
KTEST_LIST_OPT = $(if $(filter 1 yes on,$(LIST)), ktest_list=on)

.PHONY: kernel iso run test-kernel test-cpus qemu-gdb gdb bench-boot kasan

# The sanitizer build (KASAN=1 above) in its own directory, beside the normal one.
kasan:
	@$(MAKE) -s --no-print-directory BUILD=$(BUILD)/kasan KASAN=1 $(BUILD)/kasan/kernel32.elf

kernel: $(KERNEL_ELF) $(KERNEL32)

KERNEL_FLAGS_STAMP := $(KBUILD)/cflags
$(KERNEL_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(KERNEL_CFLAGS)' | cmp -s - $@ || echo '$(KERNEL_CFLAGS)' > $@

$(KBUILD)/%.o: %.c $(KERNEL_FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(KERNEL_CFLAGS) $(if $(filter $<,$(KASAN_NOINSTR)),,$(KASAN_CFLAGS)) \
		$(call layer_includes,$<) -MMD -MP -c $< -o $@

$(KBUILD)/%.asm.o: %.asm
	@mkdir -p $(dir $@)
	$(call say,AS,$<)
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP -o $@ $<

# Two-pass link: pass 1 with an empty symbol table, pass 2 with the table
# generated from pass 1. Text comes first in linker.ld, so the table (in
# rodata) cannot move any function; the recipe checks that.
$(KBUILD)/gen/ksyms0.c: tools/gensyms
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)NM=$(NM) tools/gensyms > $@

$(KBUILD)/gen/%.o: $(KBUILD)/gen/%.c
	$(call say,CC,$<)
	$(Q)$(CC) $(KERNEL_CFLAGS) -Iinclude -c $< -o $@

$(KBUILD)/pass1.elf: $(KERNEL_OBJS) $(KBUILD)/gen/ksyms0.o linker.ld
	$(call say,LD,$@)
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(KBUILD)/gen/ksyms0.o

$(KBUILD)/gen/ksyms.c: $(KBUILD)/pass1.elf tools/gensyms
	$(call say,GEN,$@)
	$(Q)NM=$(NM) tools/gensyms $< > $@.tmp && mv $@.tmp $@

$(KERNEL_ELF): $(KERNEL_OBJS) $(KBUILD)/gen/ksyms.o linker.ld
	$(call say,LD,$@)
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@.tmp $(KERNEL_OBJS) $(KBUILD)/gen/ksyms.o
	@NM=$(NM) tools/gensyms $@.tmp | cmp -s - $(KBUILD)/gen/ksyms.c || \
		{ echo "kernel.mk: text symbols moved between link passes" >&2; rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@

$(KERNEL32): $(KERNEL_ELF)
	$(call say,OBJCOPY,$@)
	$(Q)$(OBJCOPY) -O elf32-i386 --strip-debug $< $@

iso: $(KERNEL_ISO)

# The suites the ISO's first menu entry runs: boot/grub.cfg's ktest=default
# becomes ktest=$(KTEST) when KTEST is given (make run KTEST=pmm). The value
# is kept in a stamp file that changes only when KTEST does, so the ISO is
# rebuilt exactly then.
ISO_KTEST_STAMP := $(KBUILD)/iso-ktest
$(ISO_KTEST_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(KTEST_KERNEL)' | cmp -s - $@ || echo '$(KTEST_KERNEL)' > $@

# make_iso: the recipe of a GRUB image $@ of the kernel with the grub.cfg
# that the shell command $(1) writes to stdout, built in $(KBUILD)/$(2).
define make_iso
	@command -v grub-mkrescue >/dev/null || { echo "grub-mkrescue not found: run 'make deps'" >&2; exit 1; }
	@rm -rf $(KBUILD)/$(2) && mkdir -p $(KBUILD)/$(2)/boot/grub
	$(call say,ISO,$@)
	$(Q)$(OBJCOPY) --strip-debug $(KERNEL_ELF) $(KBUILD)/$(2)/boot/kernel.elf
	$(Q)$(1) > $(KBUILD)/$(2)/boot/grub/grub.cfg
	@grub-mkrescue -o $@ $(KBUILD)/$(2) >$(KBUILD)/$(2).log 2>&1 || \
		{ cat $(KBUILD)/$(2).log >&2; echo "grub-mkrescue failed (missing grub-pc-bin, xorriso or mtools? run 'make deps')" >&2; exit 1; }
	@tools/check-image $@ || { rm -f $@; exit 1; }
endef

$(KERNEL_ISO): $(KERNEL_ELF) boot/grub.cfg $(ISO_KTEST_STAMP)
	$(call make_iso,sed 's|ktest=default|ktest=$(KTEST_KERNEL)|g' boot/grub.cfg,iso)

# The framebuffer console's test image (tools/test-fbcon): a graphics mode,
# a short suite, and fbcon=hold.
FBCON_ISO := $(BUILD)/fbcon-test.iso
$(FBCON_ISO): $(KERNEL_ELF) boot/grub-fbcon-test.cfg
	$(call make_iso,cat boot/grub-fbcon-test.cfg,fbcon-iso)

run: deps-check
	@$(MAKE) -s --no-print-directory iso
	@$(QEMU_RUN) --iso $(KERNEL_ISO) $(if $(filter 1 yes on,$(UEFI)),--uefi)

test-kernel: $(KERNEL32)
	@$(QEMU_RUN) --kernel $(KERNEL32) --append "ktest=$(KTEST_KERNEL)$(KTEST_LIST_OPT)" $(SWAP_OPT)

test-cpus: $(KERNEL32)
	@KTEST=$(KTEST_KERNEL) tools/test-cpus

qemu-gdb: $(KERNEL_ELF) $(KERNEL32)
	@echo "QEMU waits for gdb on localhost:1234; in another terminal: make gdb"
	@$(QEMU_RUN) --kernel $(KERNEL32) --append "ktest=$(KTEST_KERNEL)" --gdb $(SWAP_OPT)

# gdb with the kernel's symbols and tools/gdb/vmkernel.py's commands, connected
# to make qemu-gdb's stub; loaded with -x, so no auto-load safe-path question.
GDB_PORT ?= 1234
gdb: $(KERNEL_ELF)
	@gdb -q -iex 'set auto-load local-gdbinit off' -x tools/gdb/vmkernel.gdb \
		-ex 'target remote localhost:$(GDB_PORT)'

bench-boot: $(KERNEL32) $(KERNEL_ISO)
	@tools/bench/bench-boot $(KERNEL_ISO) $(KERNEL32) docs/boot-bench.md

-include $(KERNEL_OBJS:.o=.d)
