# mprotect over a range with a hole: Linux changes the VMAs before the hole,
# then returns -ENOMEM. A range that starts in a hole changes nothing.
#
#   +0x10000: AA.BB   (. = hole at +0x12000)

mmap +0x10000 0x2000 rw- private,anon,fixed
mmap +0x13000 0x2000 rw- private,anon,fixed
mprotect +0x11000 0x3000 r--          # changes +0x11000-+0x12000 only
maps
mprotect +0xf000 0x3000 ---           # starts in a hole: nothing changes
maps
mprotect +0x10000 0x5000 r--          # hole in the middle again
maps
mprotect +0x13000 0x3000 r--          # ends in a hole past the last VMA
maps
mprotect +0x100000 0x1000 r--         # entirely unmapped
