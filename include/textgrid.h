/*
 * A text console's grid of character cells, without pixels: the cursor,
 * wrapping, tabs and scrolling of drivers/video/fbcon.c, kept apart so that
 * the host tests can check them (tests/unit/test_textgrid.c).
 *
 * Bytes written: a printable byte goes into the cursor's cell and moves the
 * cursor right; a byte that reaches past the last column first starts a new
 * row (the wrap waits for the next byte, as on a VT100, so a line exactly
 * as wide as the grid takes one row). '\n' starts a new row, '\r' goes back
 * to column 0, '\t' writes spaces up to the next multiple of 8 (within the
 * row). Every other byte (controls, 0x7f and above) is kept in its cell as
 * it is: the renderer draws it as the font's replacement glyph.
 *
 * Scrolling jumps: a new row past the bottom moves the text up by `jump`
 * rows at once (the top ones are lost), so that a full redraw is needed once
 * every `jump` rows rather than on every row.
 *
 * Changed rows are collected as one range for the renderer (textgrid_take_dirty).
 */
#ifndef TEXTGRID_H
#define TEXTGRID_H

#include "types.h"

#define TEXTGRID_TAB 8

struct textgrid {
	unsigned cols, rows, jump;
	unsigned char *cells;           /* rows * cols bytes, row after row */
	unsigned cx, cy;                /* cursor; cx == cols: a wrap is pending */
	unsigned dirty_lo, dirty_hi;    /* rows [lo, hi) changed since the last take */
};

/*
 * textgrid_init: an empty grid (spaces) of cols x rows over cells (cols *
 * rows bytes, the caller's), scrolling by jump rows (1 <= jump <= rows; 0
 * is taken as 1); the cursor at the top left, every row dirty.
 */
void textgrid_init(struct textgrid *g, unsigned char *cells, unsigned cols, unsigned rows,
		   unsigned jump);

/* textgrid_write: apply len bytes as described above. */
void textgrid_write(struct textgrid *g, const char *s, size_t len);

/* textgrid_cell: the byte in a cell (a space where nothing was written). */
unsigned char textgrid_cell(const struct textgrid *g, unsigned col, unsigned row);

/*
 * textgrid_take_dirty: the rows changed since the last call, as [*lo, *hi)
 * (empty: *lo == *hi), and start collecting anew.
 */
void textgrid_take_dirty(struct textgrid *g, unsigned *lo, unsigned *hi);

#endif
