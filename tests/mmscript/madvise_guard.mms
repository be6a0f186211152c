# Guard regions (Linux 6.13 MADV_GUARD_INSTALL = 102, MADV_GUARD_REMOVE =
# 103; mm/madvise.c madvise_guard_install / madvise_guard_remove). Install
# zaps what is mapped in the range (the data is gone), then puts a guard
# marker in every page-table entry: any access raises SIGSEGV. The VMA is
# not split. The markers stay through MADV_DONTNEED, MADV_FREE,
# MADV_PAGEOUT and mprotect (their page-table walks skip non-present
# entries), and remove brings back demand-zero pages. mincore reports a
# guard page as not resident (pte_none_mostly).

mmap +0x10000 0x8000 rw- private,anon,fixed
fill +0x10000 0x8000 0x11
madvise +0x12000 0x2000 102
maps                                   # one VMA still
read +0x11000
read +0x12000
write +0x13000 0x22
read +0x14000
mincore +0x10000 0x8000
fill +0x10000 0x8000 0x33              # stops at the first guard page
read +0x11000
read +0x14000                          # never reached by the fill

# Installing again over markers (and over pages) is fine.
madvise +0x11000 0x3000 102
read +0x11000
mincore +0x10000 0x8000

# The markers survive zaps, lazy frees, pageout and protection changes.
madvise +0x10000 0x8000 dontneed
madvise +0x10000 0x8000 free
madvise +0x10000 0x8000 pageout
mprotect +0x10000 0x8000 ---
mprotect +0x10000 0x8000 rw-
maps
read +0x12000
read +0x10000                          # the dontneed: zero again
mincore +0x10000 0x8000

# Populating a guard page fails with -EFAULT, after the pages before it.
madvise +0x14000 0x2000 populate_write
madvise +0x10000 0x4000 populate_write
madvise +0x10000 0x4000 populate_read
mincore +0x10000 0x8000

# Remove: the page is demand-zero again; mapped pages are left alone.
write +0x14000 0x44
madvise +0x11000 0x4000 103
read +0x11000
read +0x14000
write +0x12000 0x55
read +0x12000
madvise +0x11000 0x4000 103            # nothing left to remove
mincore +0x10000 0x8000
maps

# Read-only and PROT_NONE mappings take markers too; the VMA's own
# permission check comes first, the marker second (both SIGSEGV).
mmap +0x20000 0x2000 r-- private,anon,fixed
madvise +0x20000 0x1000 102
read +0x20000
read +0x21000
mmap +0x24000 0x2000 --- private,anon,fixed
madvise +0x24000 0x2000 102
mprotect +0x24000 0x2000 rw-
write +0x25000 1
madvise +0x24000 0x1000 103
write +0x24000 1
read +0x24000
maps

# Shared anonymous memory: the install zaps the mapping only, the data
# stays in the object; mincore asks the object (1 behind a marker).
mmap +0x30000 0x4000 rw- shared,anon,fixed
fill +0x30000 0x4000 0x66
madvise +0x31000 0x2000 102
read +0x31000
mincore +0x30000 0x4000
madvise +0x30000 0x4000 dontneed
madvise +0x31000 0x1000 103
read +0x31000
read +0x32000
madvise +0x32000 0x1000 9              # MADV_REMOVE punches the object; the marker stays
read +0x32000
madvise +0x32000 0x1000 103
read +0x32000
maps

# Errors, as for every advice: unaligned -EINVAL, length 0 -> 0 (even on a
# hole), a hole -ENOMEM after the mapped parts were done.
madvise +0x20800 0x1000 102
madvise +0x20000 0 102
madvise +0x40000 0 103
madvise +0x40000 0x1000 102
madvise +0x40000 0x1000 103
madvise +0x21000 0x4000 102            # VMA, hole, VMA: both guarded, then -ENOMEM
read +0x24000
read +0x25000
madvise +0x22000 0x3000 103
read +0x24000
madvise +0x21000 0xfffffffffffff000 102
maps
