# Shared anonymous memory: maps shows it as rw-s; mprotect and flag advice
# split it like private memory, and the pieces merge back (they are views of
# one shmem object at consecutive offsets); it never merges with a separate
# shared mapping. Its pages survive MADV_DONTNEED (they live in the object).

mmap +0x10000 0x4000 rw- shared,anon,fixed
fill +0x10000 0x4000 0x51
mprotect +0x11000 0x1000 r--
madvise +0x13000 0x1000 dontdump
maps
mprotect +0x11000 0x1000 rw-
madvise +0x13000 0x1000 dodump
maps
madvise +0x10000 0x4000 random
madvise +0x10000 0x4000 normal
maps
munmap +0x11000 0x1000
mmap +0x11000 0x1000 rw- shared,anon,fixed    # a new object: no merge
maps
read +0x10000
read +0x11000
read +0x12000
madvise +0x10000 0x1000 dontneed
read +0x10000
