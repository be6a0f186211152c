# MADV_PAGEOUT reclaims the range at once (madvise_pageout ->
# reclaim_pages -> shrink_folio_list). This Linux has no swap, so the only
# anonymous pages that can go are clean lazily freed ones (MADV_FREE,
# never written since): they are dropped, mincore says 0 and the next
# read gives zero. Pages written since the free and pages never freed
# stay, and so does written shared memory (it would need swap; shared pages
# never written do go: madvise_pageout_shared.mms). MADV_COLD only
# deactivates.
# (The runner keeps Linux on one CPU: pages wait in per-CPU LRU batches
# that MADV_FREE and MADV_PAGEOUT drain only on their own CPU.)

mmap +0x10000 0x4000 rw- private,anon,fixed
fill +0x10000 0x4000 0x5
madvise +0x13000 0x1000 free
madvise +0x12000 0x2000 pageout
mincore +0x10000 0x4000
read +0x13000
read +0x12000
madvise +0x10000 0x4000 pageout        # nothing freed: nothing to drop
mincore +0x10000 0x4000

# A write after the free cancels it; a read does not.
mmap +0x20000 0x4000 rw- private,anon,fixed
fill +0x20000 0x4000 0x6
madvise +0x20000 0x4000 free
write +0x21000 0x7
read +0x22000
madvise +0x20000 0x4000 cold
mincore +0x20000 0x4000
madvise +0x20000 0x4000 pageout
mincore +0x20000 0x4000
read +0x20000
read +0x21000
read +0x22000
fill +0x20000 0x4000 0x8               # all dirty again
madvise +0x20000 0x4000 pageout
mincore +0x20000 0x4000
read +0x23000

# Across VMAs and holes: each VMA is done, then -ENOMEM.
mmap +0x30000 0x1000 rw- private,anon,fixed
mmap +0x32000 0x1000 r-- private,anon,fixed
write +0x30000 0x9
madvise +0x30000 0x1000 free
madvise +0x30000 0x3000 pageout
mincore +0x30000 0x1000
mprotect +0x32000 0x1000 rw-
maps

# Written shared anonymous memory stays (and MADV_FREE refuses it).
mmap +0x40000 0x2000 rw- shared,anon,fixed
fill +0x40000 0x2000 0xa
madvise +0x40000 0x2000 free
madvise +0x40000 0x2000 pageout
mincore +0x40000 0x2000
read +0x41000

# Neither advice touches VMA flags: no split.
maps
