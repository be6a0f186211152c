# munmap: partial (head, tail, middle: the VMA splits), spanning several VMAs
# and holes (holes are fine), and access after unmapping faults.

mmap +0x10000 0x8000 rw- private,anon,fixed
fill +0x10000 0x8000 0x5a
munmap +0x10000 0x1000        # head
munmap +0x17000 0x1000        # tail
munmap +0x13000 0x2000        # middle: splits in two
maps
read +0x10000
read +0x11000
read +0x13000
read +0x15000
read +0x17000

# Spanning VMAs of different kinds and the holes between them.
mmap +0x30000 0x2000 rw- private,anon,fixed
mmap +0x33000 0x2000 r-- private,anon,fixed
mmap +0x36000 0x2000 rw- shared,anon,fixed
munmap +0x31000 0x6000
maps

# Unmapping nothing (a hole) succeeds.
munmap +0x100000 0x10000
# Length not a page multiple: rounded up.
mmap +0x40000 0x3000 rw- private,anon,fixed
munmap +0x40000 0x1001
maps
munmap +0x0 0x40000000        # the whole window
maps
