# mremap on shared anonymous memory. The shmem object keeps its original
# size: growing the mapping works, but touching pages beyond the object's
# end raises SIGBUS. An old length of 0 (shared mappings only) makes a second
# mapping of the same object: both views see the same bytes.

mmap +0x10000 0x1000 rw- shared,anon,fixed
write +0x10000 0x71
mremap +0x10000 0x1000 0x3000 0
maps
read +0x10000
read +0x11000                       # beyond the object: SIGBUS
write +0x12000 1
fill +0x10000 0x3000 0x72           # faults at the second page

mmap +0x20000 0x2000 rw- shared,anon,fixed
write +0x20000 0x73
mremap +0x20000 0 0x2000 maymove,fixed +0x30000
read +0x30000                       # same page through the second mapping
write +0x30001 0x74
read +0x20001
maps
mremap +0x20000 0x2000 0x2000 maymove,fixed +0x40000
read +0x40000
maps
