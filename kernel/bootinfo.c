/* Reading the Multiboot 1 / Multiboot 2 information (arch/x86_64/include/multiboot.h). */
#include "multiboot.h"
#include "arch.h"
#include "printk.h"
#include "kstring.h"
#include "kerrno.h"
#include "kernel.h"

static const char *mmap_type_name(uint32_t type)
{
	switch (type) {
	case 1: return "available";
	case 2: return "reserved";
	case 3: return "ACPI reclaimable";
	case 4: return "ACPI NVS";
	case 5: return "bad memory";
	case 7: return "persistent memory";
	case 20: return "firmware code";        /* GRUB's type for EFI runtime services code */
	default: return "unknown";
	}
}

static void add_entry(struct boot_info *bi, uint64_t addr, uint64_t len, uint32_t type)
{
	printk("  [mem 0x%016llx-0x%016llx] %s\n", (unsigned long long)addr,
	       (unsigned long long)(addr + len - 1), mmap_type_name(type));
	if (type != MB_MEMORY_AVAILABLE || len == 0)
		return;
	if (addr + len < addr)                  /* wraps: clip */
		len = -addr;
	if (bi->nram == BOOT_MAX_RAM) {
		printk("bootinfo: too many RAM ranges, ignoring [%#llx, +%#llx)\n",
		       (unsigned long long)addr, (unsigned long long)len);
		return;
	}
	bi->ram[bi->nram].start = addr;
	bi->ram[bi->nram].end = addr + len;
	bi->nram++;
}

static void set_cmdline(struct boot_info *bi, const char *s)
{
	size_t n = strnlen(s, BOOT_CMDLINE_MAX - 1);

	memcpy(bi->cmdline, s, n);
	bi->cmdline[n] = 0;
}

static void add_module(struct boot_info *bi, uint32_t start, uint32_t end, const char *str)
{
	if (bi->nmodules == BOOT_MAX_MODULES) {
		printk("bootinfo: error: more than %d boot modules; module at %#x not kept\n",
		       BOOT_MAX_MODULES, start);
		bi->modules_dropped++;
		return;
	}
	if (end > start) {
		size_t n = str ? strnlen(str, BOOT_MODSTR_MAX - 1) : 0;

		bi->modules[bi->nmodules].start = start;
		bi->modules[bi->nmodules].end = end;
		if (n)
			memcpy(bi->modstr[bi->nmodules], str, n);
		bi->modstr[bi->nmodules][n] = 0;
		bi->modstr_cut[bi->nmodules] = str && str[n] != 0;
		if (bi->modstr_cut[bi->nmodules])
			printk("bootinfo: warning: module %zu command line longer than %d bytes, cut short\n",
			       bi->nmodules, BOOT_MODSTR_MAX - 1);
		bi->nmodules++;
	}
}

static void add_extra(struct boot_info *bi, uint64_t start, uint64_t len)
{
	if (bi->nextra < ARRAY_SIZE(bi->extra) && len) {
		bi->extra[bi->nextra].start = start;
		bi->extra[bi->nextra].end = start + len;
		bi->nextra++;
	}
}

/* Offsets of the specifications (multiboot1's info: the framebuffer at byte 88). */
_Static_assert(offsetof(struct mb1_info, fb) == 88, "multiboot1 framebuffer fields");
_Static_assert(sizeof(struct mb2_tag_framebuffer) == 38, "multiboot2 framebuffer tag");

/*
 * Keep a direct-colour framebuffer's description (rgb: its colour fields,
 * NULL when the loader gave none); say why another kind is not used.
 */
static void set_fb(struct boot_info *bi, const struct mb_framebuffer *f, const struct mb_fb_rgb *rgb)
{
	if (f->type != MB_FB_TYPE_RGB || !rgb) {
		printk("bootinfo: %s framebuffer %ux%u from the loader: not a direct-colour one, not used\n",
		       f->type == MB_FB_TYPE_EGA_TEXT ? "EGA text" : "indexed-colour", f->width, f->height);
		return;
	}
	bi->fb = (struct fb_desc){
		.addr = f->addr, .pitch = f->pitch, .width = f->width, .height = f->height, .bpp = f->bpp,
		.red_pos = rgb->red_pos, .red_size = rgb->red_size, .green_pos = rgb->green_pos,
		.green_size = rgb->green_size, .blue_pos = rgb->blue_pos, .blue_size = rgb->blue_size,
	};
	printk("bootinfo: framebuffer %ux%u, %u bits per pixel, pitch %u, at %#llx\n", f->width, f->height,
	       f->bpp, f->pitch, (unsigned long long)f->addr);
}

static int parse_mb1(uint32_t info_phys, struct boot_info *bi)
{
	const struct mb1_info *mi = phys_to_virt(info_phys);

	bi->loader = "multiboot1";
	bi->info.start = info_phys;
	bi->info.end = info_phys + sizeof(*mi);
	if (mi->flags & MB1_INFO_CMDLINE)
		set_cmdline(bi, phys_to_virt(mi->cmdline));
	if (mi->flags & MB1_INFO_FRAMEBUFFER)
		set_fb(bi, &mi->fb, &mi->fb_rgb);
	if (mi->flags & MB1_INFO_MODS) {
		const struct mb1_module *m = phys_to_virt(mi->mods_addr);

		add_extra(bi, mi->mods_addr, mi->mods_count * sizeof(*m));
		for (uint32_t i = 0; i < mi->mods_count; i++)
			add_module(bi, m[i].mod_start, m[i].mod_end,
				   m[i].string ? phys_to_virt(m[i].string) : NULL);
	}
	if (!(mi->flags & MB1_INFO_MMAP)) {
		if (!(mi->flags & MB1_INFO_MEMORY))
			return -EINVAL;
		printk("bootinfo: no memory map; using mem_lower/mem_upper\n");
		add_entry(bi, 0, (uint64_t)mi->mem_lower << 10, 1);
		add_entry(bi, 0x100000, (uint64_t)mi->mem_upper << 10, 1);
		return 0;
	}
	add_extra(bi, mi->mmap_addr, mi->mmap_length);
	for (uint32_t off = 0; off + sizeof(struct mb1_mmap_entry) <= mi->mmap_length;) {
		const struct mb1_mmap_entry *e = phys_to_virt(mi->mmap_addr + off);

		add_entry(bi, e->addr, e->len, e->type);
		off += e->size + sizeof(e->size);
	}
	return 0;
}

/* Keep the RSDP of an ACPI tag; the ACPI 2.0 one wins over the 1.0 one. */
static void set_rsdp(struct boot_info *bi, const struct mb2_tag *tag)
{
	size_t n = MIN((size_t)tag->size - sizeof(*tag), sizeof(bi->rsdp));

	if (tag->type == MB2_TAG_ACPI_OLD && bi->rsdp_len && bi->rsdp[15] >= 2)
		return;
	memcpy(bi->rsdp, tag + 1, n);
	bi->rsdp_len = n;
	printk("bootinfo: ACPI RSDP revision %u from the loader (multiboot2 tag %u)\n",
	       n > 15 ? bi->rsdp[15] : 0, tag->type);
}

static int parse_mb2(uint32_t info_phys, struct boot_info *bi)
{
	const uint8_t *base = phys_to_virt(info_phys);
	uint32_t total = *(const uint32_t *)base;
	bool have_mmap = false;

	bi->loader = "multiboot2";
	bi->info.start = info_phys;
	bi->info.end = info_phys + total;
	for (uint32_t off = 8; off + sizeof(struct mb2_tag) <= total;) {
		const struct mb2_tag *tag = (const void *)(base + off);

		if (tag->type == MB2_TAG_END || tag->size < 8)
			break;
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			set_cmdline(bi, (const char *)(tag + 1));
			break;
		case MB2_TAG_MODULE: {
			const struct mb2_tag_module *m = (const void *)tag;
			add_module(bi, m->mod_start, m->mod_end, m->string);
			break;
		}
		case MB2_TAG_MMAP: {
			const struct mb2_tag_mmap *mm = (const void *)tag;

			if (mm->entry_size < sizeof(struct mb2_mmap_entry))
				break;
			for (uint32_t e = sizeof(*mm); e + mm->entry_size <= mm->size; e += mm->entry_size) {
				const struct mb2_mmap_entry *me = (const void *)((const uint8_t *)mm + e);
				add_entry(bi, me->addr, me->len, me->type);
			}
			have_mmap = true;
			break;
		}
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			set_rsdp(bi, tag);
			break;
		case MB2_TAG_FRAMEBUFFER:
			if (tag->size >= sizeof(*tag) + sizeof(struct mb_framebuffer)) {
				const struct mb2_tag_framebuffer *f = (const void *)tag;
				set_fb(bi, &f->fb, tag->size >= sizeof(*f) ? &f->rgb : NULL);
			}
			break;
		default:
			break;
		}
		off += ALIGN_UP(tag->size, 8u);
	}
	return have_mmap ? 0 : -EINVAL;
}

int bootinfo_parse(uint32_t magic, uint32_t info_phys, struct boot_info *bi)
{
	memset(bi, 0, sizeof(*bi));
	printk("bootinfo: memory map from the loader:\n");
	if (magic == MB1_BOOTLOADER_MAGIC)
		return parse_mb1(info_phys, bi);
	if (magic == MB2_BOOTLOADER_MAGIC)
		return parse_mb2(info_phys, bi);
	printk("bootinfo: unknown boot magic %#x (not a multiboot loader)\n", magic);
	return -EINVAL;
}
