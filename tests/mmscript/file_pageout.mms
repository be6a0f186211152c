# MADV_PAGEOUT on file pages (memfd: shmem on Linux), in shared and in
# private mappings. Without swap, reclaim unmaps a page cache page only this
# PTE maps; one never written (a read fault of a hole, populate_read) is
# clean and leaves the file (mincore 0, reads zero again); one written
# (write(), a write fault, a dirty PTE zapped) stays in the file. A private
# copy (copy-on-write) cannot go without swap.
memfd f 0x8000
pwrite f 0x2000 0x22
mmap +0x10000 0x8000 rw- shared,fixed f 0x0
read +0x10000
madvise +0x11000 0x1000 populate_read
read +0x12000
write +0x13000 0x33
read +0x14000
write +0x14000 0x44
fill +0x15000 0x1000 0x55
madvise +0x15000 0x1000 dontneed
read +0x15000
mincore +0x10000 0x8000
madvise +0x10000 0x8000 pageout
mincore +0x10000 0x8000
read +0x12000
read +0x13000
read +0x15000
pread f 0x2000

# A private mapping: the file's clean pages go, a written file page and a
# private copy stay.
memfd g 0x4000
pwrite g 0x1000 0x11
mmap +0x20000 0x4000 rw- private,fixed g 0x0
read +0x20000
read +0x21000
write +0x22000 0x66
read +0x23000
mincore +0x20000 0x4000
madvise +0x20000 0x4000 pageout
mincore +0x20000 0x4000
read +0x21000
read +0x22000
pread g 0x2000

# Fault-around in a private mapping: a read fault maps the file's cached
# pages around it (read-only), so pages read through the shared view are
# then mapped twice, and pageout of the shared view leaves them alone.
memfd h 0x8000
mmap +0x30000 0x8000 rw- shared,fixed h 0x0
madvise +0x30000 0x8000 populate_read
mmap +0x40000 0x8000 r-- private,fixed h 0x0
read +0x43000
madvise +0x30000 0x8000 pageout
mincore +0x30000 0x8000
mincore +0x40000 0x8000
munmap +0x40000 0x8000
madvise +0x30000 0x8000 pageout
mincore +0x30000 0x8000
maps
