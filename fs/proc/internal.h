/*
 * Shared between the files of fs/proc/: the maps line that maps, smaps
 * and smaps_rollup all start with, and the text makers of smaps.c.
 */
#ifndef FS_PROC_INTERNAL_H
#define FS_PROC_INTERNAL_H

#include "mm.h"

/* Linux's seq_pad: the header is padded to 72 characters, then one space, then the name. */
#define MAPS_PAD_WIDTH 72
#define MAPS_HDR_MAX 96                 /* the fields before the name (at most 79 characters) */

/* proc_maps_line: v's maps line, newline included, into line (room bytes: MAPS_HDR_MAX + a path); its length. */
size_t proc_maps_line(struct mm *mm, const struct vma *v, char *line, size_t room);
/* proc_maps_name: end the n header characters in line with name (padded, or none: NULL) and a newline; the length. */
size_t proc_maps_name(char *line, size_t n, const char *name);

/* smaps_fill / smaps_rollup_fill: the calling task's /proc/self/smaps, smaps_rollup into buf; the length needed. */
size_t smaps_fill(char *buf, size_t size);
size_t smaps_rollup_fill(char *buf, size_t size);

#endif
