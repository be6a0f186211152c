/*
 * The LRU lists (Linux's lruvec of its one node): every user page that
 * reclaim may take, on one of four lists by kind and age. Anonymous pages
 * and the page caches' pages (all shmem here: tmpfs, memfd, shared
 * anonymous memory, which Linux keeps on the anonymous lists because they
 * are swap-backed) go on the anonymous lists; the file lists are for
 * pages that need no swap to leave (Linux: a file's clean page cache and
 * MADV_FREE'd anonymous pages): here the lazily freed anonymous pages
 * (lru_lazyfree), which reclaim's swap rounds scan first
 * (mm/vmscan_lru.c).
 *
 * A new page starts inactive (Linux 6.1 without the multi-generational
 * LRU: lru_cache_add / folio_add_lru_vma since Linux 5.9's "protect the
 * workingset on anonymous LRU"); reclaim's page-table scan promotes a
 * page it finds referenced (lru_activate); by default (reclaim=lru) reclaim
 * takes its swap victims from the inactive anonymous list's tail
 * (lru_isolate, mm/vmscan_lru.c), promotes a page referenced again there
 * and moves pages back from the active list's tail when the inactive list
 * runs low (lru_putback); MADV_COLD moves a page back (lru_deactivate). Insertion goes
 * through a small per-CPU batch (Linux's lru_add pagevec, 15 pages),
 * drained under the lists' lock when full, so a fault takes only its own
 * CPU's batch lock. A page leaves its list (or its batch) when its last
 * reference goes (lru_del, from user_page_put), so no freed frame is ever
 * on a list; pmm_free checks it.
 *
 * The gauges nr_inactive_anon .. nr_active_file (include/vmstat.h;
 * Active/Inactive in /proc/meminfo) count the pages on each list and
 * those queued for it, so they are exact whenever no page is moving.
 *
 * Locking: a CPU's batch lock (class LRU_ADD) protects its slots and the
 * lru_state, lru_cpu and lru_slot of the pages queued in it; lru_lock
 * (class LRU) protects the lists and the lru_link and lru_state of the
 * pages on them. Order: batch -> lru_lock; both are inner to every mm
 * lock (a page is freed under pt_lock, a page cache's lock, the swap
 * cache's). lru_state changes from 0 only in lru_add, for a page nobody
 * else knows yet, and back to 0 only in lru_del, when the page is freed;
 * an isolated page cannot be freed (its isolator holds a reference).
 */
#ifndef LRU_H
#define LRU_H

#include "types.h"

struct page;
struct list_head;

/* Linux's enum lru_list order (and the vmstat gauges' order). */
enum lru_list { LRU_INACTIVE_ANON, LRU_ACTIVE_ANON, LRU_INACTIVE_FILE, LRU_ACTIVE_FILE, NR_LRU_LISTS };

/* lru_add: queue page (on no list yet, referenced by the caller) for list l. Any CPU, no mm lock needed. */
void lru_add(struct page *page, enum lru_list l);

/*
 * lru_add_run: lru_add for the n frames from first (a huge page's), linked
 * onto list l at once, first to last, under one lru_lock hold: what a full
 * batch's drain does, without the per-CPU batch.
 */
void lru_add_run(struct page *first, unsigned n, enum lru_list l);

/* lru_del: take page off its list or batch, if it is on one. Called once its last reference is gone. */
void lru_del(struct page *page);

/* lru_del_list: lru_del for every page on pages (linked through lru), taking lru_lock once per run of them. */
void lru_del_list(struct list_head *pages);

/*
 * lru_activate / lru_deactivate: move page (the caller holds it: a
 * reference, or its mapping under pt_lock) to the head of the active /
 * inactive list of its kind. A page on no list stays on none.
 */
void lru_activate(struct page *page);
void lru_deactivate(struct page *page);

/*
 * lru_list_for: the list page belongs on by its kind, inactive or active
 * (Linux folio_lru_list): a lazily freed anonymous page (PG_lazyfree) on
 * the file lists, every other page on the anonymous ones.
 */
enum lru_list lru_list_for(const struct page *page, bool active);

/*
 * lru_lazyfree: page (held by the caller) was just marked lazily freed:
 * its PG_referenced cleared, it moves to the head of the inactive file
 * list (Linux lru_lazyfree_fn: not counted as a deactivation).
 * lru_lazyfree_cancel: it was written since and is data again: to the
 * active anonymous list (Linux sets it swap-backed and activates it). A
 * page on no list stays on none; an isolated one is placed by its
 * isolator (lru_list_for).
 */
void lru_lazyfree(struct page *page);
void lru_lazyfree_cancel(struct page *page);

/*
 * lru_mark_accessed: a use of page that no page-table entry records (a
 * read() or write() of a tmpfs file or memfd; Linux's
 * folio_mark_accessed): the first marks it PG_referenced; the next, while
 * it is inactive, moves it to the active list and clears the mark, so a
 * page used twice by file I/O survives reclaim's pass over the inactive
 * tail as a mapped page referenced twice does. The caller holds page.
 */
void lru_mark_accessed(struct page *page);

/*
 * lru_isolate: look at up to max pages at the tail (the old end) of list
 * l (*looked: how many) and take them off into out, oldest first, each
 * with a reference of the caller's (Linux isolate_lru_folios); a page
 * whose last reference is going or whose references are frozen
 * (page_ref_freeze: a write fault reusing it) is moved to the head
 * instead, untouched (Linux skips folios the scan cannot take). Returns how many were taken. lru_activate/lru_deactivate
 * leave an isolated page where it is; it still counts in l's gauge. No
 * lock held.
 */
unsigned lru_isolate(enum lru_list l, struct page **out, unsigned max, unsigned *looked);

/*
 * lru_putback: put an isolated page on list to, at its head (young end)
 * or, when tail, at its tail (where it was, for a page not looked at),
 * before the caller drops its reference (Linux move_folios_to_lru).
 */
void lru_putback(struct page *page, enum lru_list to, bool tail);

/* lru_drain_all: put every CPU's queued pages on their lists. */
void lru_drain_all(void);

/* lru_page_list: the list page is on or queued for, or -1 when none. */
int lru_page_list(const struct page *page);

/* lru_list_pages: the pages on (or queued for) list l. */
unsigned long lru_list_pages(enum lru_list l);

#endif
