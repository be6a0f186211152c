/* The console font (drivers/video/font.c): 8x16 pixel cells, printable ASCII and a replacement glyph. */
#ifndef DRIVERS_VIDEO_FONT_H
#define DRIVERS_VIDEO_FONT_H

#include "types.h"

#define FONT_WIDTH  8
#define FONT_HEIGHT 16

/*
 * font_glyph: the 16 rows of c's glyph, top first, bit 7 the leftmost
 * pixel. Bytes outside 0x20..0x7e get the replacement glyph (a box).
 */
const uint8_t *font_glyph(unsigned char c);

#endif
