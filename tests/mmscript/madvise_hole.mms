# madvise over a range with holes: Linux applies the advice to every VMA in
# the range (holes are skipped, not a stop) and then returns -ENOMEM.
# A range with no VMA at all gives -ENOMEM.
#
#   +0x10000: AA.BB.CC   (. = holes at +0x12000 and +0x15000)

mmap +0x10000 0x2000 rw- private,anon,fixed
mmap +0x13000 0x2000 rw- private,anon,fixed
mmap +0x16000 0x2000 rw- private,anon,fixed
madvise +0x11000 0x6000 dontfork
maps
madvise +0xf000 0x3000 random          # starts in a hole
maps
madvise +0x100000 0x1000 random        # nothing there
madvise +0x100000 0x1000 dontneed

# dontneed across a hole: the pages before (and after) the hole are zapped.
fill +0x10000 0x2000 0x77
fill +0x13000 0x2000 0x77
madvise +0x10000 0x5000 dontneed
read +0x10000
read +0x11000
read +0x13000
read +0x14000
