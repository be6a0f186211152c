# madvise on file mappings: dontneed keeps a shared mapping's data (it is
# in the file) and restores a private one's; MADV_REMOVE (9) punches the
# pages out of the file, for every mapping; free and wipeonfork are only
# for anonymous private memory; populate fills in (past the end: EFAULT).
memfd f 0x4000
mmap +0x10000 0x4000 rw- shared,fixed f 0x0
mmap +0x20000 0x4000 r-- shared,fixed f 0x0
fill +0x10000 0x4000 0x41
madvise +0x10000 0x4000 dontneed
read +0x10000
mincore +0x10000 0x4000
madvise +0x11000 0x2000 9
read +0x11000
read +0x21000
pread f 0x2000
mincore +0x20000 0x4000
madvise +0x20000 0x1000 9
madvise +0x10000 0x1000 free
madvise +0x10000 0x1000 wipeonfork
madvise +0x10000 0x1000 willneed
madvise +0x10000 0x1000 cold
mmap +0x30000 0x2000 rw- private,fixed f 0x3000
madvise +0x30000 0x2000 populate_read
madvise +0x30000 0x1000 populate_write
mincore +0x30000 0x1000
madvise +0x30000 0x1000 9
madvise +0x30000 0x1000 free
maps
