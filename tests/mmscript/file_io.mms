# pwrite, pread and truncate of a memfd: sizes, holes and limits
# (rw_verify_area, generic_write_checks, do_sys_ftruncate).
memfd f 0x0
pread f 0x0
pwrite f 0x2000 0x1
pread f 0x0
pread f 0x2000
pread f 0x2001
pwrite f 0x7ffffffffffffffe 0x2
pread f 0x7ffffffffffffffe
pwrite f 0x7fffffffffffffff 0x3
pread f 0x7fffffffffffffff
pwrite f 0x8000000000000000 0x4
pread f 0x8000000000000000
truncate f 0x10
pread f 0xf
pread f 0x10
truncate f 0x8000000000000000
memfd g 0x8000000000000000
memfd g 0x1234
pread g 0x1233
pread g 0x1234
close g
close f
