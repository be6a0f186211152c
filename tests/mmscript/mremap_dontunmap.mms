# MREMAP_DONTUNMAP (with maymove, same size): the pages move to the new place
# and the old range stays mapped but empty (it reads as zero).

mmap +0x10000 0x2000 rw- private,anon,fixed
fill +0x10000 0x2000 0x61
mremap +0x10000 0x2000 0x2000 maymove,fixed,dontunmap +0x40000
read +0x40000
read +0x41000
read +0x10000
mincore +0x10000 0x2000
mincore +0x40000 0x2000
maps
# Without fixed: the new place is outside; the old range still stays.
mmap +0x20000 0x1000 rw- private,anon,fixed
write +0x20000 0x62
mremap +0x20000 0x1000 0x1000 maymove,dontunmap
read +0x20000
maps
# Shared anonymous memory with dontunmap: the old range stays a view of the
# same shmem object, so it still reads the data.
mmap +0x50000 0x1000 rw- shared,anon,fixed
write +0x50000 0x63
mremap +0x50000 0x1000 0x1000 maymove,fixed,dontunmap +0x60000
read +0x60000
read +0x50000
maps
