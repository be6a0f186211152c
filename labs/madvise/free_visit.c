/*
 * LAB madvise: MADV_FREE marks the pages only this process maps as lazily
 * freeable (PG_lazyfree) and clean (the page's PG_dirty and the entry's
 * dirty and accessed bits cleared). A visitor for arch_mmu_walk goes here.
 */
