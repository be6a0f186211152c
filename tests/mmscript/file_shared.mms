# A memfd mapped shared: the mapping, pread/pwrite and a second mapping all
# see one page cache (Linux maps the page-cache page itself).
memfd f 0x4000
mmap +0x10000 0x2000 rw- shared,fixed f 0x0
mmap +0x12000 0x2000 rw- shared,fixed f 0x2000
# two mappings of one file at consecutive offsets merge (same struct file)
maps
write +0x12000 0x7
pread f 0x2000
pwrite f 0x3 0x42
read +0x10003
# a second view of page 1, elsewhere
mmap +0x20000 0x1000 r-- shared,fixed f 0x1000
write +0x11005 0x99
read +0x20005
pread f 0x1005
# the written pages are resident; page 3 was never touched, and is not in the cache
mincore +0x10000 0x4000
maps
