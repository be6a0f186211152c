/* A text console's character grid: cursor, wrapping, tabs, jump scrolling (include/textgrid.h). */
#include "textgrid.h"
#include "kstring.h"

static void mark_dirty(struct textgrid *g, unsigned lo, unsigned hi)
{
	if (g->dirty_lo == g->dirty_hi) {
		g->dirty_lo = lo;
		g->dirty_hi = hi;
		return;
	}
	if (lo < g->dirty_lo)
		g->dirty_lo = lo;
	if (hi > g->dirty_hi)
		g->dirty_hi = hi;
}

void textgrid_init(struct textgrid *g, unsigned char *cells, unsigned cols, unsigned rows,
		   unsigned jump)
{
	g->cols = cols;
	g->rows = rows;
	g->jump = jump == 0 ? 1 : jump > rows ? rows : jump;
	g->cells = cells;
	g->cx = g->cy = 0;
	memset(cells, ' ', (size_t)cols * rows);
	g->dirty_lo = 0;
	g->dirty_hi = rows;
}

/* Move the text up by g->jump rows; the freed rows at the bottom become blank. */
static void scroll(struct textgrid *g)
{
	size_t keep = (size_t)(g->rows - g->jump) * g->cols;

	memmove(g->cells, g->cells + (size_t)g->jump * g->cols, keep);
	memset(g->cells + keep, ' ', (size_t)g->jump * g->cols);
	g->cy -= g->jump;
	mark_dirty(g, 0, g->rows);
}

static void new_row(struct textgrid *g)
{
	g->cx = 0;
	if (++g->cy == g->rows)
		scroll(g);
}

static void put(struct textgrid *g, unsigned char c)
{
	if (g->cx == g->cols)
		new_row(g);
	g->cells[(size_t)g->cy * g->cols + g->cx++] = c;
	mark_dirty(g, g->cy, g->cy + 1);
}

void textgrid_write(struct textgrid *g, const char *s, size_t len)
{
	if (g->cols == 0 || g->rows == 0)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n') {
			new_row(g);
		} else if (c == '\r') {
			g->cx = 0;
		} else if (c == '\t') {
			if (g->cx == g->cols)
				new_row(g);
			do
				put(g, ' ');
			while (g->cx % TEXTGRID_TAB && g->cx < g->cols);
		} else {
			put(g, c);
		}
	}
}

unsigned char textgrid_cell(const struct textgrid *g, unsigned col, unsigned row)
{
	return g->cells[(size_t)row * g->cols + col];
}

void textgrid_take_dirty(struct textgrid *g, unsigned *lo, unsigned *hi)
{
	*lo = g->dirty_lo;
	*hi = g->dirty_hi;
	g->dirty_lo = g->dirty_hi = 0;
}
