/*
 * wait4(2) options: Linux x86-64 values. Shared by the kernel
 * (kernel/task/exit.c) and the user programs; definitions only, no types.
 */
#ifndef UAPI_LINUX_WAIT_H
#define UAPI_LINUX_WAIT_H

#define WNOHANG     0x00000001
#define WUNTRACED   0x00000002
#define WCONTINUED  0x00000008
#define __WNOTHREAD 0x20000000
#define __WALL      0x40000000
#define __WCLONE    0x80000000

#endif
