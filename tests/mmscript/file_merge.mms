# VMA merging of file mappings, as Linux's is_mergeable_vma and
# can_vma_merge_before/after decide: the same open file, consecutive
# offsets, equal flags, compatible anon_vma.
memfd f 0x10000
memfd g 0x10000
# consecutive offsets: one VMA
mmap +0x10000 0x1000 rw- shared,fixed f 0x0
mmap +0x11000 0x1000 rw- shared,fixed f 0x1000
# a gap in the offsets: no merge
mmap +0x12000 0x1000 rw- shared,fixed f 0x3000
# another file right after: no merge
mmap +0x13000 0x1000 rw- shared,fixed g 0x4000
maps
# the middle made read-only and back: split, then merged again
mprotect +0x10000 0x3000 r--
mprotect +0x11000 0x1000 rw-
maps
mprotect +0x10000 0x2000 rw-
maps
# private mappings merge while neither has an anon_vma
mmap +0x20000 0x1000 rw- private,fixed f 0x8000
mmap +0x21000 0x1000 rw- private,fixed f 0x9000
maps
# a written (faulted) private VMA has an anon_vma; an unfaulted neighbour
# can still join it
write +0x20000 0x1
mmap +0x22000 0x1000 rw- private,fixed f 0xa000
maps
# private next to shared of the same file: flags differ
mmap +0x23000 0x1000 rw- shared,fixed f 0xb000
maps
# the same NAME after close is another file: no merge with the old mappings
close g
memfd g 0x10000
mmap +0x14000 0x1000 rw- shared,fixed g 0x5000
maps
# an anonymous mapping never merges with a file mapping
mmap +0x15000 0x1000 rw- shared,anon,fixed
mmap +0x16000 0x1000 rw- private,anon,fixed
mmap +0x17000 0x1000 rw- private,fixed g 0x8000
maps
