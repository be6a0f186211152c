# Host build: mm/ and the shared tests against arch/hosted, under ASan+UBSan.

HOST_BUILD  := $(BUILD)/host
HOST_CFLAGS := -std=gnu11 -g -O1 $(WARNINGS) -Iarch/hosted -DHOSTED -DKDEBUG -DSLAB_DEBUG $(LOCKDEP_FLAGS) \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
HOST_LDFLAGS := -fsanitize=address,undefined -lpthread

HOST_TEST_SRCS := $(PORTABLE_SRCS) $(sort $(wildcard arch/hosted/*.c) $(wildcard tests/host/*.c))
HOST_TEST_OBJS := $(patsubst %.c,$(HOST_BUILD)/%.o,$(HOST_TEST_SRCS))

$(HOST_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(call layer_includes,$<) -MMD -MP -c $< -o $@

$(HOST_BUILD)/ktest-host: $(HOST_TEST_OBJS)
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $^ $(HOST_LDFLAGS) -o $@

.PHONY: test-host
test-host: $(HOST_BUILD)/ktest-host
	$(Q)$(HOST_BUILD)/ktest-host $(if $(filter 1 yes on,$(LIST)),--list) '$(KTEST)'

-include $(HOST_TEST_OBJS:.o=.d)
