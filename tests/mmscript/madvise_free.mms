# MADV_FREE marks private anonymous pages lazily freeable: they stay mapped
# and keep their data until reclaim drops a still-clean page. No memory
# pressure here, so the data reads back and mincore still says resident.
# A write after MADV_FREE makes the page dirty again: reclaim must keep it.
# Only private anonymous memory: shared anonymous memory gives -EINVAL.

mmap +0x10000 0x3000 rw- private,anon,fixed
fill +0x10000 0x3000 0x21
madvise +0x10000 0x3000 free
read +0x10000
mincore +0x10000 0x3000
write +0x11000 0x22                    # cancels the free for this page
read +0x11000
read +0x12000
maps                                   # no flag, no split

# Free of never-touched pages is a no-op; they still read as zero.
mmap +0x20000 0x2000 rw- private,anon,fixed
madvise +0x20000 0x2000 free
read +0x20000
mincore +0x20000 0x2000

mmap +0x30000 0x1000 rw- shared,anon,fixed
madvise +0x30000 0x1000 free

# Free across a hole: applied to the VMAs, then -ENOMEM.
mmap +0x40000 0x1000 rw- private,anon,fixed
mmap +0x42000 0x1000 rw- private,anon,fixed
write +0x40000 1
madvise +0x40000 0x3000 free
read +0x40000
