# The syscall fuzzer (user/fuzz, tools/fuzz, docs/fuzz.md) on the kernel in QEMU.
#
#   make fuzz [SEEDS=a,b,..] [SECONDS=N] [SMP=n] [OPS=n] [THREADS=n] [ICOUNT=0]
#
# SEEDS: the seeds to run (default 1); SECONDS: then further seeds until N
# seconds have passed (without SEEDS, default 60); OPS: operations per seed
# (default 20000); THREADS: threads each seed starts (default 4); FDS=private:
# threads do not share the fd table (docs/fuzz.md, "Bugs found"); SMP:
# guest CPUs (default 4); ICOUNT=0: real-time multi-threaded TCG instead of
# QEMU's -icount (tools/fuzz says why -icount is the default). A failed
# seed is named with the command that replays it: make fuzz SEEDS=<seed>
# (as many CPUs, ops and threads).
# SEEDS and OPS have defaults elsewhere (mk/user.mk, soak-vma): only values
# given on the command line or in the environment count here.

FUZZ_SEEDS = $(if $(filter command line environment,$(origin SEEDS)),$(SEEDS),1)
FUZZ_SECONDS = $(if $(SECONDS),$(SECONDS),$(if $(filter command line environment,$(origin SEEDS)),,60))
fuzz_given = $(filter command line environment,$(origin $(1)))
FUZZ_ARGS = --seeds $(FUZZ_SEEDS) $(if $(FUZZ_SECONDS),--seconds $(FUZZ_SECONDS)) \
	$(if $(call fuzz_given,OPS),--ops $(OPS)) $(if $(call fuzz_given,THREADS),--threads $(THREADS)) \
	$(if $(filter private,$(FDS)),--private-fds)

.PHONY: fuzz
fuzz: $(BUILD)/user/fuzz $(KERNEL32)
	@QEMU_SMP=$(if $(SMP),$(SMP),$${QEMU_SMP:-4}) $(if $(call fuzz_given,ICOUNT),FUZZ_ICOUNT=$(ICOUNT)) RUN_TIMEOUT=$${RUN_TIMEOUT:-$(if $(FUZZ_SECONDS),$$(($(FUZZ_SECONDS) + 600)),900)} \
		tools/fuzz $(FUZZ_ARGS)
