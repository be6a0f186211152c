/*
 * The framebuffer console (drivers/video/fbcon.c): the kernel log drawn as
 * text on the linear framebuffer the loader handed over (multiboot2
 * framebuffer tag, multiboot1 framebuffer fields), beside the serial port,
 * which stays the log's first home. docs/baremetal.md tells how to see it.
 */
#ifndef FBCON_H
#define FBCON_H

#include "types.h"

/* A direct-colour linear framebuffer as the loader describes it. */
struct fb_desc {
	phys_addr_t addr;                       /* 0: none was handed over */
	uint32_t pitch, width, height;          /* bytes per scan line, pixels */
	uint8_t bpp;                            /* 16, 24 or 32 are drawn */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

/* The fbcon= option: on (the default: used when there is a framebuffer), off, or hold. */
enum fbcon_mode { FBCON_ON, FBCON_OFF, FBCON_HOLD };

/*
 * fbcon_init: map fb (uncached) and from then on mirror the console's
 * output on it, starting with a line that names the mode and the text grid.
 * Needs the kernel page tables. Returns 0, or -EINVAL for a framebuffer it
 * cannot draw on (its pixel format; said on the log), -ENOMEM when the
 * mapping fails.
 */
int fbcon_init(const struct fb_desc *fb);

/* fbcon_active: fbcon_init succeeded. */
bool fbcon_active(void);

/*
 * fbcon_write: draw len bytes of console output (include/textgrid.h says
 * how each byte moves the cursor); the screen is up to date on return.
 * Callable with interrupts off; a no-op before fbcon_init. The caller
 * serializes calls (arch_console_write's lock).
 */
void fbcon_write(const char *s, size_t len);

#endif
