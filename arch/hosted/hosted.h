/* Hosted-build specifics: the simulated physical memory. */
#ifndef HOSTED_H
#define HOSTED_H

#include "types.h"

extern unsigned char *hosted_ram;     /* physical address 0 lives here */
extern size_t hosted_ram_size;

/* Allocate bytes of simulated RAM (filled with junk). Exits on failure. */
void hosted_ram_init(size_t bytes);

#endif
