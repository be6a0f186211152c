# madvise argument checks (mm/madvise.c): unknown advice -> EINVAL (checked
# first); unaligned start -> EINVAL; a length whose page round-up wraps, or
# an end that wraps -> EINVAL; zero length -> 0; nothing mapped -> ENOMEM.

mmap +0x10000 0x2000 rw- private,anon,fixed
madvise +0x10000 0x1000 5              # unused advice numbers
madvise +0x10000 0x1000 6
madvise +0x10000 0x1000 7
madvise +0x10000 0x1000 999
madvise +0x10000 0x1000 0x7fffffff
madvise +0x100000 0x1000 999           # unknown advice beats "unmapped"
madvise +0x10800 0x1000 999            # ...and beats "unaligned"
madvise +0x10800 0x1000 normal         # unaligned start
madvise +0x10000 0 dontneed            # zero length
madvise +0x100000 0 random             # zero length on a hole
madvise +0x10000 0xfffffffffffff001 normal
madvise +0x10000 0xffffffffffff0000 normal
madvise 0x7ffffffff000 0x1000 normal
madvise 0xffff800000000000 0x1000 dontneed
madvise +0x10000 0x1000 0              # advice by number: 0 is normal
madvise +0x10000 0x1000 1              # 1 is random
maps
# wipeonfork needs a private anonymous mapping.
mmap +0x20000 0x1000 rw- shared,anon,fixed
madvise +0x20000 0x1000 wipeonfork
madvise +0x20000 0x1000 keeponfork
maps
