# After MREMAP_DONTUNMAP the old VMA keeps VM_ACCOUNT on Linux 6.18.y (older
# kernels cleared it): a new accounted mapping next to it still merges, an
# unaccounted (noreserve) one does not.
mmap +0x10000 0x4000 rw- private,anon,fixed
mremap +0x10000 0x1000 0x1000 maymove,fixed,dontunmap +0x20000
mmap +0x14000 0x1000 rw- private,anon,fixed
maps
mmap +0x30000 0x4000 rw- private,anon,fixed
mremap +0x30000 0x1000 0x1000 maymove,fixed,dontunmap +0x40000
mmap +0x34000 0x1000 rw- private,anon,fixed,noreserve
maps
# dontunmap without fixed: NEWADDR is a hint, taken when free.
mmap +0x50000 0x1000 rw- private,anon,fixed
write +0x50000 0x77
mremap +0x50000 0x1000 0x1000 maymove,dontunmap +0x60000
read +0x60000
mmap +0x70000 0x1000 rw- private,anon,fixed
mremap +0x50000 0x1000 0x1000 maymove,dontunmap +0x70000
maps
