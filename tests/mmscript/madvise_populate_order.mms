# MADV_POPULATE_READ/WRITE walk the range page by page in address order
# (faultin_page_range) and stop at the first problem: a hole is -ENOMEM, a
# VMA that does not allow the access is -EINVAL (a read needs PROT_READ: a
# -w- mapping is readable by the CPU but not populate_read-able), a page
# past a shared object's end is -EFAULT. Pages before it are populated.

mmap +0x10000 0x1000 rw- private,anon,fixed
mmap +0x12000 0x1000 --- private,anon,fixed
madvise +0x10000 0x3000 populate_read
mincore +0x10000 0x1000
madvise +0x12000 0x1000 populate_read

mmap +0x20000 0x1000 -w- private,anon,fixed
madvise +0x20000 0x1000 populate_read
madvise +0x20000 0x1000 populate_write
mincore +0x20000 0x1000

mmap +0x30000 0x1000 r-- private,anon,fixed
mmap +0x31000 0x1000 rw- private,anon,fixed
madvise +0x30000 0x2000 populate_write
madvise +0x31000 0x1000 populate_write
mincore +0x30000 0x2000

mmap +0x40000 0x1000 rw- shared,anon,fixed
mremap +0x40000 0x1000 0x3000 0
madvise +0x40000 0x3000 populate_read
mincore +0x40000 0x3000
maps
