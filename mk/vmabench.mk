# VMA index programs outside the ktest binary: soak run, libFuzzer target, benchmarks.
#
#   make soak-vma [SEED=n] [OPS=n] [BACKEND=name]
#                       millions of random ops per backend against the model
#                       (ASan+UBSan, -O2); the seed is printed and replays
#   make fuzz-vma [FUZZ_TIME=60]
#                       libFuzzer over the operation stream (clang), corpus in
#                       build/fuzz/corpus, crashes in build/fuzz/
#   make bench [BENCH_QUICK=1]
#                       fetch and build Linux's maple tree as a comparison
#                       backend (tools/bench/vmabench-maple-fetch; without it the
#                       run goes on and says so), generate the traces
#                       (build/bench/traces/), replay them on every backend
#                       (checked against the model), count instructions per
#                       op with callgrind, write build/bench/table.md and the
#                       plots build/bench/vma-bench-*.{png,svg} (docs/vma-bench.md
#                       is a copy of them plus discussion). BENCH_QUICK=1: a
#                       smaller run, under a minute. BENCH_ARGS passes options
#                       to tools/bench/vmabench-run (--sizes 16,256, --no-callgrind)
#   make vmabench       just the benchmark binary (build/bench/vmabench)

# Programs outside the ktest binary link the index objects explicitly and
# take everything else they need from an archive, so that unrelated mm/
# files with dependencies of their own are never dragged in.
VMA_PROG_CORE := $(sort $(wildcard mm/vma_index/*.c)) tests/unit/vma_model.c tests/fuzz/vma_host.c
VMA_PROG_LIB := mm/pmm.c mm/slab.c $(LIB_SRCS) \
	$(wildcard arch/hosted/*.c)

VMA_HOST_COMMON := -std=gnu11 -g -Iarch/hosted -Itests/unit -Itests/fuzz -DHOSTED

# $(1): build dir, $(2): compiler, $(3): flags
define vma_prog_flavor
$(1)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$$(call say,HOSTCC,$$<)
	$$(Q)$(2) $(3) $$(call layer_includes,$$<) -MMD -MP -c $$< -o $$@
$(1)/libvmahost.a: $$(patsubst %.c,$(1)/%.o,$$(VMA_PROG_LIB))
	@rm -f $$@
	$$(call say,AR,$$@)
	$$(Q)ar rcs $$@ $$^
-include $$(patsubst %.c,$(1)/%.d,$$(VMA_PROG_CORE) $$(VMA_PROG_LIB) $(4))
endef

# ---- soak: ASan+UBSan, optimized
SOAK_BUILD  := $(BUILD)/soak
SOAK_CFLAGS := $(VMA_HOST_COMMON) -O2 $(WARNINGS) -DKDEBUG -DSLAB_DEBUG \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
$(eval $(call vma_prog_flavor,$(SOAK_BUILD),$(HOSTCC),$(SOAK_CFLAGS),tests/fuzz/vma_soak.c))

$(SOAK_BUILD)/vma-soak: $(patsubst %.c,$(SOAK_BUILD)/%.o,$(VMA_PROG_CORE) tests/fuzz/vma_soak.c) \
		$(SOAK_BUILD)/libvmahost.a
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $^ -fsanitize=address,undefined -lpthread -o $@

SEED ?= 1
OPS ?= 1000000
BACKEND ?=
.PHONY: soak-vma
soak-vma: $(SOAK_BUILD)/vma-soak
	$(Q)$(SOAK_BUILD)/vma-soak $(SEED) $(OPS) $(BACKEND)

# ---- fuzz: clang libFuzzer + ASan + UBSan (warnings not fatal: clang's set differs)
FUZZ_BUILD  := $(BUILD)/fuzz
FUZZ_CC     ?= clang
FUZZ_CFLAGS := $(VMA_HOST_COMMON) -O1 -Wall -Wextra -Wno-unused-parameter -DKDEBUG -DSLAB_DEBUG \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
$(eval $(call vma_prog_flavor,$(FUZZ_BUILD),$(FUZZ_CC),$(FUZZ_CFLAGS),tests/fuzz/vma_fuzz.c))

$(FUZZ_BUILD)/vma-fuzz: $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(VMA_PROG_CORE) tests/fuzz/vma_fuzz.c) \
		$(FUZZ_BUILD)/libvmahost.a
	$(call say,HOSTLD,$@)
	$(Q)$(FUZZ_CC) $^ -fsanitize=fuzzer,address,undefined -lpthread -o $@

FUZZ_TIME ?= 60
.PHONY: fuzz-vma
fuzz-vma: $(FUZZ_BUILD)/vma-fuzz
	@mkdir -p $(FUZZ_BUILD)/corpus
	$(Q)$(FUZZ_BUILD)/vma-fuzz -max_total_time=$(FUZZ_TIME) -max_len=4096 \
		-artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus

# ---- bench: plain -O2, no sanitizers, no debug checks
BENCH_BUILD  := $(BUILD)/bench
BENCH_CFLAGS := $(VMA_HOST_COMMON) -O2 $(WARNINGS)
$(eval $(call vma_prog_flavor,$(BENCH_BUILD),$(HOSTCC),$(BENCH_CFLAGS),tools/bench/vmabench.c))

$(BENCH_BUILD)/vmabench: $(patsubst %.c,$(BENCH_BUILD)/%.o,$(VMA_PROG_CORE) tools/bench/vmabench.c) \
		$(BENCH_BUILD)/libvmahost.a
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $^ -lpthread -o $@

# ---- the maple tree as a comparison backend: host only, never in the kernel.
# tools/bench/vmabench-maple-fetch extracts Linux's lib/maple_tree.c and its
# user-space shims from Debian's linux-source package into build/maple/;
# tools/bench/vmabench_maple.c (our adapter) #includes maple_tree.c from there.
MAPLE_DIR    := $(BUILD)/maple
MAPLE_LINUX  := $(MAPLE_DIR)/linux
MAPLE_CFLAGS := -std=gnu11 -g -O2 -D_LGPL_SOURCE -w -I$(MAPLE_LINUX)/tools/testing/shared \
	-I$(MAPLE_DIR) -I$(MAPLE_LINUX)/tools/include -I$(MAPLE_LINUX)/lib -Itools/bench

$(MAPLE_DIR)/VERSION:
	$(Q)tools/bench/vmabench-maple-fetch $(MAPLE_DIR)

$(BENCH_BUILD)/maple/vmabench_maple.o: tools/bench/vmabench_maple.c tools/bench/vmabench_maple.h $(MAPLE_DIR)/VERSION
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(MAPLE_CFLAGS) -DVBM_LINUX_VERSION="\"$$(cat $(MAPLE_DIR)/VERSION)\"" -c $< -o $@

$(BENCH_BUILD)/maple/vmabench.o: tools/bench/vmabench.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(BENCH_CFLAGS) $(call layer_includes,$<) -Itools/bench -DVMABENCH_MAPLE -MMD -MP -c $< -o $@
-include $(BENCH_BUILD)/maple/vmabench.d

$(BENCH_BUILD)/vmabench-maple: $(BENCH_BUILD)/maple/vmabench.o $(BENCH_BUILD)/maple/vmabench_maple.o \
		$(patsubst %.c,$(BENCH_BUILD)/%.o,$(VMA_PROG_CORE)) $(BENCH_BUILD)/libvmahost.a
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $^ -lurcu -lpthread -o $@

.PHONY: vmabench vmabench-maple bench
vmabench: $(BENCH_BUILD)/vmabench
vmabench-maple: $(BENCH_BUILD)/vmabench-maple

# The maple tree and gnuplot are optional: without them the run goes on
# (and says what it leaves out).
bench: $(BENCH_BUILD)/vmabench
	@if tools/bench/vmabench-maple-fetch $(MAPLE_DIR) && $(MAKE) -s $(BENCH_BUILD)/vmabench-maple; then \
		bin=$(BENCH_BUILD)/vmabench-maple; \
	else \
		echo "make bench: Linux's maple tree is not available (see above): the tables leave it out" >&2; \
		bin=$(BENCH_BUILD)/vmabench; \
	fi; \
	tools/bench/vmabench-apt "make bench" gnuplot-nox:gnuplot || echo "make bench: no gnuplot: no plots" >&2; \
	tools/bench/vmabench-run $(BENCH_BUILD) --bin $$bin $(if $(BENCH_QUICK),--quick) $(BENCH_ARGS)
