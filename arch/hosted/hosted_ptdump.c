/* The page-table dump of arch/x86_64 over the hosted tables (the same format in simulated RAM). */
#include "../x86_64/ptdump.c"
