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
include $(filter-out mk/common.mk mk/host.mk mk/kernel.mk,$(sort $(wildcard mk/*.mk)))

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
	rm -rf $(BUILD)
