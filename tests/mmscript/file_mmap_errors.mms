# mmap of a file: the errors and their order (Linux's sys_mmap, then
# do_mmap's checks).
memfd f 0x2000
mmap +0x10000 0x1000 rw- shared,fixed f 0x10
mmap +0x10000 0 rw- shared,fixed f 0x0
mmap +0x10000 0x1000 rw- fixed f 0x0
mmap +0x10000 0x1000 rw- shared,fixed f 0x7ffffffffffff000
mmap +0x10000 0x1000 rw- shared,fixed f 0xfffffffffffff000
# MAP_SHARED_VALIDATE knows no MAP_FIXED_NOREPLACE: refused once the range is free
mmap +0x10000 0x1000 rw- private,shared,fixed_noreplace f 0x0
mmap +0x10000 0x1000 rw- shared,fixed_noreplace f 0x0
mmap +0x10000 0x1000 rw- private,shared,fixed_noreplace f 0x0
mmap +0x11000 0x1000 rw- private,shared,fixed f 0x1000
# with anon the file is not used
mmap +0x12000 0x1000 rw- private,anon,fixed f 0x10
# names that are not open, and a seventh operand alone: bad script lines
mmap +0x13000 0x1000 rw- shared,fixed g 0x0
mmap +0x13000 0x1000 rw- shared,fixed f
pread g 0x0
close g
memfd F 0x1000
memfd f 0x1000
maps
