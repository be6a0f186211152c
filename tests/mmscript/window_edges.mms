# The window is [W, W+1GiB). maps lists every VMA that intersects it, with
# its real bounds (not clipped): a VMA reaching past the window's end prints
# an end above +0x40000000. A mapping that starts outside the window prints
# as "outside" in results even when fixed (mmap results are +OFF only inside
# the window).

mmap +0x0 0x1000 rw- private,anon,fixed
mmap +0x3ffff000 0x2000 rw- private,anon,fixed
mmap +0x40001000 0x1000 r-- private,anon,fixed
maps
munmap +0x0 0x40002000
maps
