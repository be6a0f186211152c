/*
 * The text console's grid (include/textgrid.h): expected grids follow from
 * the rules written there (VT100-style pending wrap, tab stops every 8
 * columns, scrolling by `jump` rows), worked out by hand below.
 */
#include "ktest.h"
#include "textgrid.h"
#include "kstring.h"

#define COLS 10
#define ROWS 4

static unsigned char cells[COLS * ROWS];

/* Does row read text (padded with spaces to COLS)? */
static bool row_is(const struct textgrid *g, unsigned row, const char *text)
{
	size_t n = strlen(text);

	for (unsigned c = 0; c < COLS; c++)
		if (textgrid_cell(g, c, row) != (c < n ? (unsigned char)text[c] : ' '))
			return false;
	return true;
}

static void put_str(struct textgrid *g, const char *s)
{
	textgrid_write(g, s, strlen(s));
}

/* A fresh grid scrolling by jump after input: its rows must read want. */
static void grid_after(struct ktest *t, struct textgrid *g, unsigned jump, const char *input,
		       const char *const want[ROWS])
{
	textgrid_init(g, cells, COLS, ROWS, jump);
	put_str(g, input);
	for (unsigned r = 0; r < ROWS; r++)
		EXPECT_TRUE(t, row_is(g, r, want[r]));
}

/* '\r' returns to column 0 only. */
static void test_newline_and_cr(struct ktest *t)
{
	static const char *const want[ROWS] = { "ok 1", "Ayz", "", "" };
	struct textgrid g;

	grid_after(t, &g, 2, "ok 1\nxyz\rA", want);
	EXPECT_EQ(t, g.cx, 1);
	EXPECT_EQ(t, g.cy, 1);
}

/* A line of exactly COLS bytes fills one row; one more byte wraps to the next. */
static void test_wrap(struct ktest *t)
{
	static const char *const want[ROWS] = { "0123456789", "abcdefghij", "KL", "" };
	struct textgrid g;

	grid_after(t, &g, 1, "0123456789\nabcdefghijKL", want);
	EXPECT_EQ(t, g.cy, 2);
}

/* Tab stops at columns 8, 16, ... of the row; a tab at column 8 of 10 ends at the row's end. */
static void test_tab(struct ktest *t)
{
	static const char *const want[ROWS] = { "a       b", "        c ", "", "" };
	struct textgrid g;

	grid_after(t, &g, 1, "a\tb\n\tc\t", want);
	EXPECT_EQ(t, g.cx, COLS);                       /* pending wrap */
	put_str(&g, "d");
	EXPECT_TRUE(t, row_is(&g, 2, "d"));
}

/* The fifth row on a 4-row grid with jump 2: rows 2..3 move to 0..1, the cursor to row 2. */
static void test_jump_scroll(struct ktest *t)
{
	struct textgrid g;
	unsigned lo, hi;

	textgrid_init(&g, cells, COLS, ROWS, 2);
	put_str(&g, "r0\nr1\nr2\nr3");
	textgrid_take_dirty(&g, &lo, &hi);
	EXPECT_EQ(t, lo, 0);
	EXPECT_EQ(t, hi, ROWS);
	put_str(&g, "X");
	textgrid_take_dirty(&g, &lo, &hi);
	EXPECT_EQ(t, lo, 3);                            /* only the cursor's row changed */
	EXPECT_EQ(t, hi, 4);
	put_str(&g, "\nr4");
	EXPECT_TRUE(t, row_is(&g, 0, "r2"));
	EXPECT_TRUE(t, row_is(&g, 1, "r3X"));
	EXPECT_TRUE(t, row_is(&g, 2, "r4"));
	EXPECT_TRUE(t, row_is(&g, 3, ""));
	EXPECT_EQ(t, g.cy, 2);
	textgrid_take_dirty(&g, &lo, &hi);
	EXPECT_EQ(t, lo, 0);
	EXPECT_EQ(t, hi, ROWS);
	textgrid_take_dirty(&g, &lo, &hi);
	EXPECT_EQ(t, lo, hi);                           /* nothing since */
}

/* Bytes that are not printable ASCII stay in their cells; a jump of 0 means 1. */
static void test_other_bytes(struct ktest *t)
{
	struct textgrid g;

	textgrid_init(&g, cells, COLS, ROWS, 0);
	EXPECT_EQ(t, g.jump, 1);
	textgrid_write(&g, "\x01\xc2\xb5", 3);
	EXPECT_EQ(t, textgrid_cell(&g, 0, 0), 0x01);
	EXPECT_EQ(t, textgrid_cell(&g, 1, 0), 0xc2);
	EXPECT_EQ(t, textgrid_cell(&g, 2, 0), 0xb5);
	put_str(&g, "\n\n\n\nz");       /* the fourth new row is past the bottom: up by one row */
	EXPECT_TRUE(t, row_is(&g, 0, ""));      /* the row of those bytes is gone */
	EXPECT_TRUE(t, row_is(&g, 3, "z"));
	EXPECT_EQ(t, g.cy, 3);
}

static const struct ktest_case textgrid_cases[] = {
	KTEST_CASE(test_newline_and_cr),
	KTEST_CASE(test_wrap),
	KTEST_CASE(test_tab),
	KTEST_CASE(test_jump_scroll),
	KTEST_CASE(test_other_bytes),
	{ 0 },
};
KTEST_SUITE(textgrid, textgrid_cases);
