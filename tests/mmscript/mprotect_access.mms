# x86 permissions as user accesses see them: any accessible page is readable
# (-w- and --x read fine, write implies read, exec implies read on x86);
# writes need w; PROT_NONE faults on any access. Faults print SIGSEGV and the
# script goes on.

mmap +0x10000 0x1000 rw- private,anon,fixed
write +0x10000 0x42
mprotect +0x10000 0x1000 -w-
read +0x10000
write +0x10000 0x43
mprotect +0x10000 0x1000 --x
read +0x10000
write +0x10000 0x44
mprotect +0x10000 0x1000 r--
read +0x10000
write +0x10000 0x45
mprotect +0x10000 0x1000 ---
read +0x10000
write +0x10000 0x46
mprotect +0x10000 0x1000 rw-
read +0x10000                     # data kept through all the changes

# Never-touched pages read as zero in every readable protection.
mmap +0x20000 0x1000 -w- private,anon,fixed
read +0x20000
mmap +0x21000 0x1000 --x private,anon,fixed
read +0x21000
mmap +0x22000 0x1000 --- private,anon,fixed
read +0x22000
