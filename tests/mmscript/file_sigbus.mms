# Pages wholly past the end of the file are SIGBUS; the part of the last
# page past the end reads zero, and a write there stays out of the file.
memfd f 0x1800
pwrite f 0x17ff 0x5a
mmap +0x10000 0x4000 rw- shared,fixed f 0x0
read +0x117ff
read +0x11800
write +0x11900 0x9
pread f 0x1900
read +0x12000
write +0x13fff 0x1
fill +0x10000 0x4000 0x3
# a private mapping past the end: SIGBUS too, for a write as for a read
mmap +0x20000 0x3000 rw- private,fixed f 0x1000
read +0x20800
write +0x21000 0x1
read +0x22000
# growing the file makes the pages reachable; the tail written above shows
truncate f 0x3000
read +0x12000
read +0x11900
pread f 0x1900
read +0x21000
