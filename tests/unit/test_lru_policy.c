/*
 * The replacement policy of LRU reclaim (mm/lru_policy.c) and the
 * fault-count model that replays traces through it (tests/unit/repl_model.h,
 * used by tools/bench/replsim). The verdicts come from Linux's
 * folio_check_references for an anonymous page; the model's fault counts
 * are traced by hand below, and the classic ones (Belady's anomaly, LRU
 * and OPT on the same string) are the textbook's (Silberschatz et al.,
 * Operating System Concepts, "Page Replacement").
 */
#include "ktest.h"
#include "lru_policy.h"
#include "repl_model.h"

/*
 * Every case of the verdict: ptes (entries found referenced, their bits
 * cleared by the look) and PG_referenced before, the verdict and
 * PG_referenced after. Unreferenced: reclaimed, whatever the flag says
 * (a second chance given and not used); one entry, first time: kept, the
 * flag set (the second chance); again, or two entries at once: promoted
 * (the flag stays set: Linux folio_set_referenced before the verdict).
 */
static void test_verdict_table(struct ktest *t)
{
	static const struct {
		unsigned ptes;
		bool ref_in;
		enum lru_verdict verdict;
		bool ref_out;
	} rows[] = {
		{ 0, false, LRU_RECLAIM, false },
		{ 0, true, LRU_RECLAIM, false },
		{ 1, false, LRU_KEEP, true },
		{ 1, true, LRU_ACTIVATE, true },
		{ 2, false, LRU_ACTIVATE, true },
		{ 3, true, LRU_ACTIVATE, true },
	};

	for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool ref = rows[i].ref_in;

		EXPECT_EQ(t, lru_inactive_verdict(rows[i].ptes, &ref), rows[i].verdict);
		EXPECT_EQ(t, ref, rows[i].ref_out);
	}
}

#define NPAGES 8

/* Replay trace (letters 'A'.. as pages 0..) on m, first started empty with frames (0: m as it is); the faults. */
static unsigned long replay(struct repl_model *m, struct repl_page *pages, unsigned frames,
			    repl_verdict_fn verdict, bool exact, const char *trace)
{
	if (frames)
		repl_init(m, pages, NPAGES, frames, verdict, exact);
	for (const char *c = trace; *c; c++)
		repl_ref(m, (unsigned)(*c - 'A'));
	return m->faults;
}

/*
 * Belady's anomaly under FIFO (the verdict that keeps nothing): the
 * string 1 2 3 4 1 2 5 1 2 3 4 5 (A..E here) faults 9 times in 3 frames
 * and 10 times in 4. Exact LRU (FIFO plus a move to the head on every
 * hit) faults 10 and 8 times, with no anomaly (a stack algorithm).
 */
static void test_model_belady(struct ktest *t)
{
	static const char s[] = "ABCDABEABCDE";
	struct repl_page pages[NPAGES];
	struct repl_model m;

	EXPECT_EQ(t, replay(&m, pages, 3, repl_fifo_verdict, false, s), 9);
	EXPECT_EQ(t, replay(&m, pages, 4, repl_fifo_verdict, false, s), 10);
	EXPECT_EQ(t, replay(&m, pages, 3, repl_fifo_verdict, true, s), 10);
	EXPECT_EQ(t, replay(&m, pages, 4, repl_fifo_verdict, true, s), 8);
	EXPECT_EQ(t, m.refs, 12);
	EXPECT_EQ(t, m.activations, 0);
}

/*
 * A B C B D B E B in 2 frames: B is used between every new page. FIFO
 * and the clock fault 6 times: FIFO takes B at D (the older of B, C); the
 * clock finds both B and C referenced at D (C by its fault), gives both
 * their second chance, and takes B, the older, on the next turn; B faults
 * again and pushes out C, and E pushes out D.
 */
static void test_model_clock_loses_hot_page(struct ktest *t)
{
	struct repl_page pages[NPAGES];
	struct repl_model m;

	EXPECT_EQ(t, replay(&m, pages, 2, repl_fifo_verdict, false, "ABCBDBEB"), 6);
	EXPECT_EQ(t, replay(&m, pages, 2, repl_clock_verdict, false, "ABCBDBEB"), 6);
	EXPECT_TRUE(t, repl_resident(&m, 1) && repl_resident(&m, 4));
	EXPECT_EQ(t, m.activations, 0);
}

/*
 * The same trace with the kernel's policy: 5 faults, B's only one. At C
 * both A and B are kept once (first reference: PG_referenced set); the
 * next look takes A (unused since); A is gone. At D, B at the tail is referenced
 * again after its second chance: promoted (the one activation); C is kept
 * once and reclaimed on the next look (inactive 1, active 1: not low, no
 * deactivation). E goes the same way past D. B stays active throughout.
 */
static void test_model_policy_keeps_hot_page(struct ktest *t)
{
	struct repl_page pages[NPAGES];
	struct repl_model m;

	EXPECT_EQ(t, replay(&m, pages, 2, lru_inactive_verdict, false, "ABC"), 3);
	EXPECT_FALSE(t, repl_resident(&m, 0));
	EXPECT_EQ(t, replay(&m, pages, 0, NULL, false, "BDBEB"), 5);     /* 0: go on */
	EXPECT_EQ(t, m.activations, 1);
	EXPECT_EQ(t, m.deactivations, 0);
	EXPECT_EQ(t, pages[1].list, REPL_ACTIVE);
	EXPECT_EQ(t, pages[4].list, REPL_INACTIVE);
}

static const struct ktest_case lru_policy_cases[] = {
	KTEST_CASE(test_verdict_table),
	KTEST_CASE(test_model_belady),
	KTEST_CASE(test_model_clock_loses_hot_page),
	KTEST_CASE(test_model_policy_keeps_hot_page),
	{ 0 },
};
KTEST_SUITE(lru_policy, lru_policy_cases);
