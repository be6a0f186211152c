# ftruncate shrinking a mapped file unmaps the pages past the new end from
# every mapping, the private copies included (Linux truncate_pagecache:
# even_cows): they are SIGBUS now; the tail of the new last page is zeroed.
# Growing again gives zero pages, not the old bytes.
memfd f 0x4000
mmap +0x10000 0x4000 rw- shared,fixed f 0x0
mmap +0x20000 0x4000 rw- private,fixed f 0x0
fill +0x10000 0x4000 0x61
write +0x22000 0x62
read +0x22000
mincore +0x10000 0x4000
truncate f 0x1080
read +0x11000
read +0x1107f
read +0x11080
read +0x22000
read +0x12000
mincore +0x10000 0x4000
mincore +0x20000 0x4000
pread f 0x107f
pread f 0x1080
truncate f 0x4000
read +0x12000
read +0x22000
read +0x11080
mincore +0x10000 0x4000
truncate f 0x0
read +0x10000
pread f 0x0
truncate f 0x8000000000000000
truncate f 0x7fffffffffffffff
read +0x13000
maps
