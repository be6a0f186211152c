# Lines that do not parse print their tokens and "=> bad-script"; the script
# goes on. Comments (from '#' to the end of the line) and blank lines print
# nothing; tabs separate tokens like spaces.

mmap	+0x10000   0x1000	rw-	private,anon,fixed   # tabs and spaces
   maps
frobnicate +0x10000
mmap +0x10000 0x1000 rw-
mmap +0x10000 0x1000 rw- private,anon,fixed extra
mmap +0x10000 0x1000 rwx- private,anon
mmap +0x10000 0x1000 xwr private,anon
mmap +0x10000 0x1000 rw- private,,anon
mmap +0x10000 0x1000 rw- private,anon,
mmap +0x10000 0x1000 rw- private,bogus
mmap +0x10000 0x1000 rw- PRIVATE,anon
mmap +0x10000 0x rw- private,anon
mmap +0x10000 12a rw- private,anon
mmap +0x10000 -1 rw- private,anon
mmap +0x10000 0x10000000000000000 rw- private,anon
mmap 10000 0x1000 --- private,anon,fixed_noreplace    # decimal address: 10000 is not page aligned
mmap +0x 0x1000 rw- private,anon
mmap b- 0x1000 rw- private,anon
mmap b+ 0x1000 rw- private,anon
mmap ++0x10000 0x1000 rw- private,anon
munmap +0x10000
munmap +0x10000 0x1000 0
mprotect +0x10000 0x1000
mprotect +0x10000 0x1000 r
madvise +0x10000 0x1000 dontneeds
madvise +0x10000 0x1000 -1
madvise +0x10000 0x1000
mremap +0x10000 0x1000 0x2000
mremap +0x10000 0x1000 0x2000 move
mremap +0x10000 0x1000 0x2000 maymove +0x20000 extra
brk
brk b+0x1000 0x1000
read
read +0x10000 1
write +0x10000
write +0x10000 0x100
write +0x10000 256
fill +0x10000 0x1000
fill +0x10000 0x1000 0x1ff
mincore +0x10000
maps now
MMAP +0x20000 0x1000 rw- private,anon,fixed
#mmap +0x30000 0x1000 rw- private,anon,fixed   (a comment: not run)
mmap +0x40000 0x1000 rw- private,anon,fixed#comment right after a token
mmap +0x50000 4096 r-- private,anon,fixed           # decimal numbers are fine
mmap +0X60000 0X1000 r-- private,anon,fixed         # so is 0X
maps
