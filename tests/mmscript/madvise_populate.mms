# populate_read / populate_write fault pages in (like touching them) without
# changing the VMA; willneed, cold and pageout are hints that succeed on
# anonymous memory (no swap here: pageout cannot evict anonymous pages that
# hold data, so they stay resident and keep their contents).

mmap +0x10000 0x4000 rw- private,anon,fixed
mincore +0x10000 0x4000
madvise +0x10000 0x2000 populate_read
mincore +0x10000 0x4000
madvise +0x12000 0x2000 populate_write
mincore +0x10000 0x4000
read +0x12000
maps

# populate_write needs write permission, populate_read read permission;
# Linux reports a mapping that forbids the access with -EINVAL.
mmap +0x20000 0x1000 r-- private,anon,fixed
madvise +0x20000 0x1000 populate_write
madvise +0x20000 0x1000 populate_read
mincore +0x20000 0x1000
mmap +0x21000 0x1000 --- private,anon,fixed
madvise +0x21000 0x1000 populate_read
madvise +0x21000 0x1000 populate_write
mincore +0x21000 0x1000
# ...and a mapping: a hole gives -ENOMEM.
madvise +0x100000 0x1000 populate_read
madvise +0x100000 0x1000 populate_write

# Hints.
mmap +0x30000 0x3000 rw- private,anon,fixed
fill +0x30000 0x3000 0x99
madvise +0x30000 0x3000 willneed
madvise +0x30000 0x3000 cold
madvise +0x30000 0x3000 pageout
read +0x31000
mincore +0x30000 0x3000
madvise +0x100000 0x1000 willneed      # hints on a hole: -ENOMEM as well
madvise +0x100000 0x1000 cold
madvise +0x100000 0x1000 pageout
maps
