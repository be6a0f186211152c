# mmscript on the host against our mm/ code (tools/mmscript_host.c): the
# parser and formatter of the user-mode runner (user/mmscript/script.c,
# sb.c) with ops that call vm_mmap & co. on a hosted address space.
#
#   make mmscript-host          build/host/mmscript-host (ASan+UBSan)
#   make test-mmscript-host     the corpus tests/mmscript/*.mms on it, compared
#                               with the stored Linux outputs ("N passed, N failed")
#   make fuzz-mmscript-host [SEEDS=n] [START=s] [FILES=1]
#                               random scripts, Linux vs host (tools/mmscript-fuzz)
#
# mm/ and the arch/hosted objects are the ones of build/host (mk/host.mk),
# the mmscript core is built here with -DMMS_HOST.

MMSH_CORE := user/mmscript/script.c user/mmscript/sb.c
MMSH_LIB_SRCS := $(MM_SRCS) $(FS_SRCS) $(DRV_PORTABLE_SRCS) $(LIB_SRCS) $(sort $(wildcard arch/hosted/*.c))
MMSH_OBJS := $(patsubst %.c,$(HOST_BUILD)/mmsh/%.o,$(MMSH_CORE) tools/mmscript_host.c) \
	$(patsubst %.c,$(HOST_BUILD)/%.o,$(MMSH_LIB_SRCS))

$(HOST_BUILD)/mmsh/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,HOSTCC,$<)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(call layer_includes,$<) -DMMS_HOST -Iuser/mmscript -MMD -MP -c $< -o $@

$(HOST_BUILD)/mmscript-host: $(MMSH_OBJS)
	$(call say,HOSTLD,$@)
	$(Q)$(HOSTCC) $^ $(HOST_LDFLAGS) -o $@

.PHONY: mmscript-host test-mmscript-host fuzz-mmscript-host
mmscript-host: $(HOST_BUILD)/mmscript-host

test-mmscript-host: $(HOST_BUILD)/mmscript-host
	@tools/mmscript --target host --out $(BUILD)/mmscript/host \
		--personality $(or $(PERSONALITY),auto) --expect tests/mmscript $(sort $(wildcard tests/mmscript/*.mms))

fuzz-mmscript-host: $(HOST_BUILD)/mmscript-host
	@MMSCRIPT_PERSONALITY=$(or $(PERSONALITY),auto) tools/mmscript-fuzz --target host --seeds $(or $(SEEDS),200) --start $(or $(START),1) $(if $(FILES),--files)

-include $(patsubst %.o,%.d,$(filter $(HOST_BUILD)/mmsh/%,$(MMSH_OBJS)))
