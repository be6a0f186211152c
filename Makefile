# Top-level build. `make` builds the kernel and the GRUB ISO; `make run` boots
# it in QEMU; `make test` runs the host tests, then the kernel suite in QEMU.
# Parts: mk/common.mk (toolchains, source lists), mk/host.mk (host build of
# mm/ and the tests under ASan/UBSan), mk/kernel.mk (kernel, ISO, QEMU), and
# any further mk/*.mk (benchmarks, fuzzing).

BUILD ?= build

.PHONY: all
all: kernel iso

include mk/common.mk
include mk/host.mk
include mk/kernel.mk
include $(filter-out mk/common.mk mk/quiet.mk mk/host.mk mk/kernel.mk,$(sort $(wildcard mk/*.mk)))

.PHONY: test
test: deps-check
	@tools/run-tests

.PHONY: deps deps-check
deps:
	@tools/deps install

deps-check:
	@tools/deps check || tools/deps install

.PHONY: clean
clean:
	$(call say,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)

.PHONY: FORCE
FORCE:

# make help: the targets and variables, one line each (README.md has the details).
define HELP_TEXT
Build and run
  make [all]                 build/kernel.elf, build/kernel32.elf, build/kernel.iso
  make run [KTEST=suites]    boot the GRUB ISO in QEMU, run the ktest suites (default: default)
  make run UEFI=1            the same image (hybrid BIOS/UEFI) with OVMF on QEMU's q35 machine
  make kernel | iso | user   only the kernel / the ISO / the user programs
  make run-user PROG=elf [ARGS="..."]   a static program as the first process (tools/run)
  tools/run [--release] ELF [ARGS]  a program on the kernel (--release: the LOCKDEP=0 build, to measure)
  make qemu-gdb [KTEST=..]   QEMU stopped at the first instruction, gdb stub on :1234
  make gdb                   gdb connected to it, with the kit's commands (vmas, ptwalk, pte, frames)
  tools/run-gdb ELF [ARGS]   a program under gdb, stopped at its first instruction, symbols loaded
Tests
  make test                  every stage below; a summary with durations, logs in build/test-logs/
  make test-host [KTEST=..]  the shared unit tests on the host (ASan+UBSan); LIST=1 lists them
  make test-kernel [KTEST=..]  the ktest tests in the kernel (-kernel boot); LIST=1 lists them
  make test-cpus             the default suite on -cpu qemu64, max, Skylake-Server, EPYC
                             SWAP=64M: with a virtio disk of that size as swap (also test-user, run-user)
  make test-user [UTESTS="a b*"]  the user-mode tests (or the named ones) in QEMU; LIST=1
  make test-user-linux [UTESTS=..]  the same binary on the host Linux
  make test-swap-big                the swap round trip at 1 GiB in a 512 MiB machine with 2 GiB of swap
  make test-run              tools/run end to end (tools/run-check)
  make test-linux            the mmscript corpus on the host Linux
  make test-mmscript-kernel  the mmscript corpus on the kernel   [PERSONALITY=auto|base|...]
  make test-mmscript-host    the mmscript corpus on mm/ on the host [PERSONALITY=...]
  make fuzz [SEEDS=a,b SECONDS=N SMP=n OPS=n ICOUNT=0]  the syscall fuzzer on the kernel (docs/fuzz.md)
  make fuzz-mmscript-kernel [SEEDS=n START=s FILES=1]  random scripts, Linux against the kernel
                                      (FILES=1: file scripts, memfds and their mappings)
  make fuzz-mmscript-host [SEEDS=n START=s FILES=1]    random scripts, Linux against mm/ on the host
  make fuzz-mmscript [SEEDS=n START=s FILES=1]         random scripts twice on Linux (determinism)
  make soak-vma [SEED= OPS= BACKEND=]          random index operations against a model
  make fuzz-vma [FUZZ_TIME=60]                 libFuzzer over the index operations (clang)
Course labs (docs/labs/)
  make lab LAB=x [BRANCH=b | OUT=dir]  the skeleton of lab x, as a directory or a git branch
  make grade LAB=x [SUBMISSION=dir|ref]  grade lab x (with SUBMISSION: its lab regions in a clean HEAD)
  make autograder LAB=x      a Gradescope bundle, build/autograder/x.zip (tools/grade-batch: many)
  make check-labs [LABS=..]  each skeleton: no solution text, fails its graded tests, solved scores full (CI)
Benchmarks
  make bench [BENCH_ARGS=..] the VMA index benchmark (docs/vma-bench.md; tools/bench/)
  make bench-boot [RUNS=n]   boot timings of the boot paths (docs/boot-bench.md)
  make bench-linux [BENCH_LINUX_ARGS=..]  user/mmbench on Linux and on this kernel (docs/bench-linux.md)
  make bench-replace [REPLSIM_ARGS=..]  page faults of FIFO, clock, the kernel's LRU, LRU, OPT (docs/replacement-bench.md)
  make profile [PROFILE_QUICK=1]  the 1998, 2001 and 2007 results measured on the kernel (docs/results/; tools/profile/)
  make profile-check         the profiling suite's self-test (a make test stage)
  make profile-traces        record the compiler traces the suite replays (strace)
Other
  make deps                  install the missing Debian packages
  make clean                 remove build/
  make help                  this text
Variables
  V=1                        print the full commands instead of "  CC      file"
  DEBUG=1                    kernel and user programs for stepping (-Og -g3, KDEBUG assertions)
  CROSS_COMPILE=x86_64-elf-  build the kernel with a cross toolchain
  QEMU_SMP=n                 guest CPUs in every boot (default 4; tools/run and tools/qemu-run read it too)
  LOCKDEP=0                  build without the lock-order checker (tools/run --release boots such a build)
  RUN_KERNEL=file|release    the kernel tools/run boots (default build/kernel32.elf)
Source tree (docs/guide.md): lib/ mm/ fs/ (fs/tmpfs/, fs/proc/) kernel/ (sched/ task/ signal/ time/ profile/)
  arch/ include/ (kernel_hooks.h: arch's calls into the kernel) tests/ user/ labs/ tools/ (labs/ profile/ bench/)
endef
export HELP_TEXT

.PHONY: help
help:
	@echo "$$HELP_TEXT"
