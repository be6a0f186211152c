# read / write / fill as real user-mode accesses. A fault prints SIGSEGV and
# the script continues. fill stores to the first byte of each page in order
# and reports the first page that faulted (earlier pages keep the stores).

mmap +0x10000 0x3000 rw- private,anon,fixed
read +0x10000                          # never touched: zero
write +0x10000 0xff
read +0x10000
write +0x10fff 0x1                     # last byte of the page
read +0x10fff
read +0x13000                          # just past the end: unmapped
write +0x13000 1
read +0xffff                           # just before the start

mmap +0x14000 0x1000 r-- private,anon,fixed
fill +0x11000 0x4000 0x7e              # +0x11000 +0x12000 ok, +0x13000 faults
read +0x11000
read +0x12000
fill +0x12000 0x3000 0x7f              # hole at +0x13000 again
fill +0x14000 0x1000 0x1               # read-only page
fill +0x10010 0x2000 0x33              # unaligned: +0x10010, then page starts
read +0x10010
read +0x11000
read +0x12000
fill +0x10000 0 0x44                   # empty range: nothing stored
read +0x10000

# Addresses no user access may reach.
read 0x7ffffffff000
read 0x800000000000                    # non-canonical: #GP, also SIGSEGV
read 0xffff800000000000                # kernel half
read 0xffffffffffffffff
write 0xffffffff80000000 1
fill 0xffff800000000000 0x2000 1
fill 0x800000000000 0x1000 1
