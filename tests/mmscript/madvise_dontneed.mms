# MADV_DONTNEED drops the pages of a private anonymous mapping: the next
# access sees a fresh zero page, and mincore reports them not resident.
# The VMA itself stays (no split, no merge). On shared anonymous memory the
# pages only leave this mapping's page tables; the shmem object keeps them,
# so the data is still there (and mincore, which asks the page cache for
# shared mappings, still reports them resident).

mmap +0x10000 0x4000 rw- private,anon,fixed
fill +0x10000 0x4000 0x5a
mincore +0x10000 0x4000
madvise +0x11000 0x2000 dontneed
mincore +0x10000 0x4000
read +0x10000
read +0x11000
read +0x12000
read +0x13000
maps
write +0x11000 0x6b                    # usable again
read +0x11000

mmap +0x20000 0x2000 rw- shared,anon,fixed
fill +0x20000 0x2000 0x3c
madvise +0x20000 0x2000 dontneed
mincore +0x20000 0x2000
read +0x20000
read +0x21000

# On a PROT_NONE mapping it is allowed (and does nothing visible).
mmap +0x30000 0x1000 --- private,anon,fixed
madvise +0x30000 0x1000 dontneed
