/* placeholder: replaced below */
#include "arch.h"
bool arch_stream_present(unsigned stream) { return false; }
size_t arch_stream_write(unsigned stream, const char *buf, size_t n) { return 0; }
bool arch_stream_writable(unsigned stream) { return false; }
size_t arch_stream_read(char *buf, size_t n) { return 0; }
bool arch_stream_readable(void) { return true; }
bool arch_stream_poll(void) { return false; }
