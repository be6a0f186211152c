/*
 * LAB mremap: moving the page-table entries of the old range to the new
 * one (Linux's move_page_tables). TODO: a way to copy the entries of
 * [old, old + len) to the same offsets at new (arch_mmu_walk to read them,
 * arch_mmu_map to write them; mind that arch_mmu_map may allocate and fail,
 * and that the walk must not map while it visits), then clear the old
 * ones. Page references do not change: the same frames, mapped elsewhere.
 */
