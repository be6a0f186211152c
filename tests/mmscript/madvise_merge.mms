# Flag-setting advice merges with neighbours that already carry the flag,
# and a new mapping next to a flagged VMA does not merge with it (new VMAs
# start without the flag).

mmap +0x10000 0x1000 rw- private,anon,fixed
mmap +0x11000 0x1000 r-- private,anon,fixed
mmap +0x12000 0x1000 rw- private,anon,fixed
madvise +0x10000 0x3000 dontdump       # three VMAs, all flagged, prots differ
maps
mprotect +0x11000 0x1000 rw-           # now identical: one VMA
maps

mmap +0x20000 0x2000 rw- private,anon,fixed
madvise +0x20000 0x2000 random
mmap +0x22000 0x1000 rw- private,anon,fixed    # no VM_RAND_READ: separate
maps
madvise +0x22000 0x1000 random                 # now it merges left
maps

# Flag advice between two flagged neighbours merges all three.
mmap +0x30000 0x3000 rw- private,anon,fixed
madvise +0x30000 0x1000 dontfork
madvise +0x32000 0x1000 dontfork
maps
madvise +0x31000 0x1000 dontfork
maps

# Anon identity matters here too: the two written neighbours have different
# anon_vmas, so once the middle matches them it joins the left one only.
mmap +0x40000 0x1000 rw- private,anon,fixed
mmap +0x42000 0x1000 rw- private,anon,fixed
write +0x40000 1
write +0x42000 2
mmap +0x41000 0x1000 r-- private,anon,fixed
madvise +0x40000 0x3000 sequential
mprotect +0x41000 0x1000 rw-
maps
