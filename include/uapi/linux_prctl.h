/*
 * prctl(2) and arch_prctl(2) codes: Linux x86-64 values. Shared by the
 * kernel (kernel/sys_misc.c) and the user libc (user/include/usys.h);
 * definitions only, no types.
 */
#ifndef UAPI_LINUX_PRCTL_H
#define UAPI_LINUX_PRCTL_H

#define PR_SET_NAME        15
#define PR_GET_NAME        16
#define PR_SET_CHILD_SUBREAPER 36
#define PR_GET_CHILD_SUBREAPER 37
#define PR_SET_THP_DISABLE 41
#define PR_GET_THP_DISABLE 42

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

#endif
