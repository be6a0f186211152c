# MAP_POPULATE pre-faults the pages of a mapping (writable private mappings
# get their own zeroed pages, as after a write fault); PROT_NONE mappings
# are not populated. mincore shows the difference.

mmap +0x10000 0x3000 rw- private,anon,fixed,populate
mincore +0x10000 0x3000
mmap +0x20000 0x3000 r-- private,anon,fixed,populate
mincore +0x20000 0x3000
mmap +0x30000 0x3000 --- private,anon,fixed,populate
mincore +0x30000 0x3000
mmap +0x40000 0x3000 rw- shared,anon,fixed,populate
mincore +0x40000 0x3000
mmap +0x50000 0x3000 rw- private,anon,fixed,populate,noreserve
mincore +0x50000 0x3000
mmap +0x60000 0x3000 rw- private,anon,fixed
mincore +0x60000 0x3000
read +0x10000
maps
