# VMA index programs outside the ktest binary: soak run, libFuzzer target, benchmarks.
#
#   make soak-vma [SEED=n] [OPS=n] [BACKEND=name]
#                       millions of random ops per backend against the model
#                       (ASan+UBSan, -O2); the seed is printed and replays
#   make fuzz-vma [FUZZ_TIME=60]
#                       libFuzzer over the operation stream (clang), corpus in
#                       build/fuzz/corpus, crashes in build/fuzz/
#   make bench          generate the traces (build/bench/traces/), replay
#                       them with build/bench/vmabench (checked against the
#                       model), count instructions per op with callgrind for
#                       n <= 4096, write build/bench/table.md (docs/vma-bench.md
#                       is a copy of it plus discussion); BENCH_ARGS passes
#                       options to tools/vmabench-run (--sizes 16,256,
#                       --no-callgrind)
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
$(eval $(call vma_prog_flavor,$(BENCH_BUILD),$(HOSTCC),$(BENCH_CFLAGS),tools/vmabench.c))

$(BENCH_BUILD)/vmabench: $(patsubst %.c,$(BENCH_BUILD)/%.o,$(VMA_PROG_CORE) tools/vmabench.c) \
		$(BENCH_BUILD)/libvmahost.a
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $^ -lpthread -o $@

.PHONY: vmabench bench
vmabench: $(BENCH_BUILD)/vmabench

bench: $(BENCH_BUILD)/vmabench
	$(Q)tools/vmabench-run $(BENCH_BUILD) $(BENCH_ARGS)
