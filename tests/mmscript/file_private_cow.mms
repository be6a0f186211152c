# MAP_PRIVATE of a file: reads see the file until the first write, which
# copies the page (copy-on-write); the file keeps its bytes, and pages not
# written go on following it. MADV_DONTNEED drops the copies: the file's
# bytes come back.
memfd f 0x3000
pwrite f 0x0 0x11
pwrite f 0x1000 0x22
pwrite f 0x2000 0x33
mmap +0x10000 0x3000 rw- private,fixed f 0x0
read +0x10000
write +0x10000 0xaa
pread f 0x0
pwrite f 0x0 0x55
pwrite f 0x1000 0x66
read +0x10000
read +0x11000
madvise +0x10000 0x1000 dontneed
read +0x10000
# fill writes every page: all become private copies
fill +0x10000 0x3000 0x77
pread f 0x2000
pwrite f 0x2000 0x88
read +0x12000
madvise +0x10000 0x3000 dontneed
read +0x12000
mincore +0x10000 0x3000
