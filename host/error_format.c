// The "file:line function: message" error text of ALC_ERROR (alc_internal.h), alone in its
// file: the CUDA backend's shared object (libalcove_cuda.so) links it without the rest of the
// host library.
#include "alc_internal.h"

#include <stdarg.h>
#include <stdio.h>

void alci_formatError(char* buf, size_t n, const char* file, int line, const char* func,
                      const char* fmt, ...) {
    if (!buf || n == 0) return;
    int k = snprintf(buf, n, "%s:%d %s: ", file, line, func);
    if (k < 0 || (size_t)k >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + k, n - (size_t)k, fmt, ap);
    va_end(ap);
}
