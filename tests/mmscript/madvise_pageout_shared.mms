# MADV_PAGEOUT on shared anonymous memory (shmem on Linux). Without swap,
# reclaim unmaps a page that only this PTE maps (try_to_unmap, which moves
# the PTE's dirty bit to the folio); a page never written is clean, and
# leaves the object (mincore 0, reads zero); a written one stays in the
# object (shmem_writeout has no swap to go to): mincore 1, data kept. A
# page counts as written after a write fault, a write through a PTE
# mapped by a read fault, or a write before a zap and a later clean read.
# A page mapped twice (a second view made by mremap with old_len 0) is
# left alone, and a read fault maps the present pages around it as well
# (fault-around: a block of 16 pages, starting at the VMA start when that
# is later than the aligned block, clipped to the VMA and the page table).

mmap +0x10000 0x8000 rw- shared,anon,fixed
read +0x10000
madvise +0x11000 0x1000 populate_read
madvise +0x12000 0x1000 populate_write
write +0x13000 1
read +0x14000
write +0x14000 2
fill +0x15000 0x1000 3
madvise +0x15000 0x1000 dontneed
read +0x15000
mincore +0x10000 0x8000
madvise +0x10000 0x8000 pageout
mincore +0x10000 0x8000
read +0x10000
read +0x13000
read +0x15000
mincore +0x10000 0x8000

# Read-only and PROT_NONE mappings: the same.
mmap +0x20000 0x2000 r-- shared,anon,fixed
read +0x20000
madvise +0x20000 0x2000 pageout
mincore +0x20000 0x2000
mmap +0x24000 0x2000 rw- shared,anon,fixed
read +0x24000
mprotect +0x24000 0x2000 ---
madvise +0x24000 0x2000 pageout
mincore +0x24000 0x2000

# Two views of one object: each page read through both is mapped twice.
mmap +0x30000 0x2000 rw- shared,anon,fixed
read +0x30000
read +0x31000
mremap +0x30000 0 0x2000 maymove,fixed +0x40000
read +0x40000                          # maps +0x41000 too (fault-around)
madvise +0x30000 0x2000 pageout
mincore +0x30000 0x2000
madvise +0x40000 0x2000 pageout
mincore +0x30000 0x2000

# The fault-around block. The second view starts at page 3 of a page
# table: a read of its page 20 maps its pages 13..28 (the aligned block
# 16..31 of the table); a read of its page 1 maps its pages 0..15 (the
# block starts at the VMA start, page 3 of the table).
mmap +0x7f0000 0x20000 rw- shared,anon,fixed
madvise +0x7f0000 0x20000 populate_read
mremap +0x7f0000 0 0x20000 maymove,fixed +0xa03000
read +0xa17000
madvise +0x7f0000 0x20000 pageout
mincore +0x7f0000 0x20000
munmap +0x7f0000 0x20000
munmap +0xa03000 0x20000
mmap +0x7f0000 0x20000 rw- shared,anon,fixed
madvise +0x7f0000 0x20000 populate_read
mremap +0x7f0000 0 0x20000 maymove,fixed +0xa03000
read +0xa04000
madvise +0x7f0000 0x20000 pageout
mincore +0x7f0000 0x20000
munmap +0x7f0000 0x20000
munmap +0xa03000 0x20000
# A view whose page 4 starts a page table (+0xc00000): page 2 is read in
# the table before (pages 0..3), page 4 in the next one (pages 4..19).
mmap +0x7f0000 0x20000 rw- shared,anon,fixed
madvise +0x7f0000 0x20000 populate_read
mremap +0x7f0000 0 0x20000 maymove,fixed +0xbfc000
read +0xbfe000
madvise +0x7f0000 0x20000 pageout
mincore +0x7f0000 0x20000
read +0xc00000
madvise +0x7f0000 0x20000 populate_read
madvise +0xbfc000 0x20000 pageout
mincore +0xbfc000 0x20000
maps
