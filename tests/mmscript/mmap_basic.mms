# mmap basics: results, placement and the PERMS column of maps.
#
# A MAP_FIXED mapping lands exactly where asked and prints as +OFF. Without
# MAP_FIXED the address is only a hint: Linux uses it when the range is free
# (and page-aligns an unaligned hint upwards), otherwise it searches top-down
# from the mmap base, far above the window, which prints as "outside".

mmap +0x10000 0x1000 rw- private,anon,fixed
mmap +0x20000 0x2000 rw- private,anon              # free hint: taken as is
mmap +0x10000 0x1000 rw- private,anon              # hint busy: placed elsewhere
mmap +0x30800 0x1000 rw- private,anon              # unaligned hint: rounded up
mmap 0 0x1000 rw- private,anon                     # no hint at all
maps

# Every PROT combination prints as /proc/PID/maps does; each differs from its
# neighbours, so none of them merge.
mmap +0x100000 0x1000 --- private,anon,fixed
mmap +0x102000 0x1000 r-- private,anon,fixed
mmap +0x104000 0x1000 -w- private,anon,fixed
mmap +0x106000 0x1000 --x private,anon,fixed
mmap +0x108000 0x1000 rw- private,anon,fixed
mmap +0x10a000 0x1000 r-x private,anon,fixed
mmap +0x10c000 0x1000 -wx private,anon,fixed
mmap +0x10e000 0x1000 rwx private,anon,fixed
mmap +0x110000 0x1000 rw- shared,anon,fixed
mmap +0x112000 0x1000 r-- shared,anon,fixed
maps

# A length that is not a multiple of the page size is rounded up.
mmap +0x200000 0x1 rw- private,anon,fixed
mmap +0x210000 0x1001 rw- private,anon,fixed
maps
