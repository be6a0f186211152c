/*
 * The framebuffer console (include/fbcon.h): a text grid (lib/textgrid.c)
 * drawn with the built-in 8x16 font (drivers/video/font.c), light grey on
 * black. The framebuffer is only written, never read back (reads of an
 * uncached framebuffer are slow on real hardware), and as little as
 * possible: a shadow copy of the grid says which byte each cell shows, so
 * after each write only the cells of the changed rows whose byte differs
 * are redrawn, and in them only the pixels where the old and the new glyph
 * differ. The grid scrolls by a quarter of its rows at once, which costs
 * one redraw per quarter screen instead of one per line.
 */
#include "fbcon.h"
#include "textgrid.h"
#include "drivers/video/font.h"
#include "x86_mmu.h"
#include "printk.h"
#include "kerrno.h"
#include "kstring.h"

/* Enough cells for 3840x2160 (480 x 135); a larger screen uses its top left part. */
#define MAX_COLS 480
#define MAX_ROWS 135
#define FG_RGB 0xaaaaaa                 /* light grey, as VGA's text mode */
#define BG_RGB 0x000000

static struct textgrid grid;
static unsigned char cells[MAX_COLS * MAX_ROWS];
static unsigned char shown[MAX_COLS * MAX_ROWS];  /* the byte each cell shows */
static struct fb_desc fb;
static uint8_t *fb_base;                /* the mapping */
static unsigned bytes_pp;
static uint32_t fg, bg;                 /* FG_RGB and BG_RGB in the framebuffer's format */
static bool active;

/* An 8-bit-per-channel colour in the framebuffer's pixel format. */
static uint32_t pack(uint32_t rgb)
{
	uint32_t r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

	return (r >> (8 - fb.red_size)) << fb.red_pos | (g >> (8 - fb.green_size)) << fb.green_pos |
	       (b >> (8 - fb.blue_size)) << fb.blue_pos;
}

static void put_pixel(uint8_t *p, uint32_t v)
{
	if (bytes_pp == 4) {
		*(volatile uint32_t *)p = v;
		return;
	}
	for (unsigned i = 0; i < bytes_pp; i++)
		((volatile uint8_t *)p)[i] = (uint8_t)(v >> (8 * i));
}

/* Turn the cell at (col, row) from showing byte was into showing byte c. */
static void draw_cell(unsigned col, unsigned row, unsigned char was, unsigned char c)
{
	const uint8_t *old = font_glyph(was), *glyph = font_glyph(c);
	uint8_t *line = fb_base + (size_t)row * FONT_HEIGHT * fb.pitch + (size_t)col * FONT_WIDTH * bytes_pp;

	for (unsigned y = 0; y < FONT_HEIGHT; y++, line += fb.pitch) {
		uint8_t diff = old[y] ^ glyph[y];

		for (unsigned x = 0; diff; x++, diff <<= 1)
			if (diff & 0x80)
				put_pixel(line + x * bytes_pp, glyph[y] & (0x80 >> x) ? fg : bg);
	}
}

/* Redraw the cells of the changed rows whose byte is not the one on the screen. */
static void render(void)
{
	unsigned lo, hi;

	textgrid_take_dirty(&grid, &lo, &hi);
	for (unsigned row = lo; row < hi; row++)
		for (unsigned col = 0; col < grid.cols; col++) {
			size_t i = (size_t)row * grid.cols + col;

			if (shown[i] != cells[i]) {
				draw_cell(col, row, shown[i], cells[i]);
				shown[i] = cells[i];
			}
		}
}

/* Paint the whole screen black: then every cell shows a space (the grid's start). */
static void clear_screen(void)
{
	for (unsigned y = 0; y < fb.height; y++)
		for (unsigned x = 0; x < fb.width; x++)
			put_pixel(fb_base + (size_t)y * fb.pitch + (size_t)x * bytes_pp, bg);
	memset(shown, ' ', sizeof(shown));
}

/* Can we draw on it? 16, 24 or 32 bits per pixel, channels of 1..8 bits inside the pixel. */
static bool drawable(const struct fb_desc *d)
{
	const uint8_t size[3] = { d->red_size, d->green_size, d->blue_size };
	const uint8_t pos[3] = { d->red_pos, d->green_pos, d->blue_pos };

	if (d->bpp != 16 && d->bpp != 24 && d->bpp != 32)
		return false;
	if (d->width < FONT_WIDTH || d->height < FONT_HEIGHT || d->pitch < d->width * (d->bpp / 8))
		return false;
	for (int i = 0; i < 3; i++)
		if (size[i] == 0 || size[i] > 8 || pos[i] + size[i] > d->bpp)
			return false;
	return true;
}

int fbcon_init(const struct fb_desc *d)
{
	unsigned cols, rows;

	if (!drawable(d)) {
		printk("fbcon: %ux%u framebuffer with %u bits per pixel: a format the console cannot draw; not used\n",
		       d->width, d->height, d->bpp);
		return -EINVAL;
	}
	fb = *d;
	fb_base = kpgtable_map_mmio(fb.addr, (size_t)fb.pitch * fb.height);
	if (!fb_base) {
		printk("fbcon: no memory to map the framebuffer; not used\n");
		return -ENOMEM;
	}
	bytes_pp = fb.bpp / 8;
	fg = pack(FG_RGB);
	bg = pack(BG_RGB);
	cols = MIN(fb.width / FONT_WIDTH, (uint32_t)MAX_COLS);
	rows = MIN(fb.height / FONT_HEIGHT, (uint32_t)MAX_ROWS);
	textgrid_init(&grid, cells, cols, rows, rows / 4);
	clear_screen();
	active = true;
	printk("fbcon: %ux%u framebuffer, %u bits per pixel, at %#llx: %ux%u text, scrolls %u rows at a time\n",
	       fb.width, fb.height, fb.bpp, (unsigned long long)fb.addr, cols, rows, grid.jump);
	return 0;
}

bool fbcon_active(void)
{
	return active;
}

void fbcon_write(const char *s, size_t len)
{
	if (!active)
		return;
	textgrid_write(&grid, s, len);
	render();
}
