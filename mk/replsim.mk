# The page-replacement benchmark (tools/bench/replsim.c; docs/replacement-bench.md):
#
#   make bench-replace [REPLSIM_ARGS="--frames 1024 --ratio 1.5 --refs 200000 --seed 1"]
#                       faults of FIFO, the clock, the kernel's LRU approximation
#                       (mm/lru_policy.c as compiled here), exact LRU and OPT on
#                       the same traces; writes the table into
#                       docs/replacement-bench.md (between its replsim markers)
#   make replsim        just the program (build/bench/replsim)
REPLSIM_SRCS := tools/bench/replsim.c tests/unit/repl_model.c tests/unit/repl_trace.c mm/lru_policy.c
REPLSIM_ARGS ?=

$(BUILD)/bench/replsim: $(REPLSIM_SRCS) tests/unit/repl_model.h tests/unit/repl_trace.h include/lru_policy.h
	@mkdir -p $(dir $@)
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) -std=gnu11 -O2 $(WARNINGS) -Iinclude -I. -DHOSTED $(REPLSIM_SRCS) -o $@

.PHONY: replsim bench-replace
replsim: $(BUILD)/bench/replsim
bench-replace: $(BUILD)/bench/replsim
	@$(BUILD)/bench/replsim $(REPLSIM_ARGS) > $(BUILD)/bench/replsim.md
	@cat $(BUILD)/bench/replsim.md
	@awk -v table=$(BUILD)/bench/replsim.md \
		'/<!-- replsim begin/ { print; print "    make bench-replace$(if $(REPLSIM_ARGS), REPLSIM_ARGS=\"$(REPLSIM_ARGS)\")"; print ""; \
		  while ((getline l < table) > 0) print l; skip = 1; next } \
		 /<!-- replsim end/ { skip = 0 } !skip' docs/replacement-bench.md > $(BUILD)/bench/replacement-bench.md
	@mv $(BUILD)/bench/replacement-bench.md docs/replacement-bench.md
	@echo "bench-replace: the table is in docs/replacement-bench.md"
