// Formatted failures of the alcg_ wrappers that are not CUDA errors (a bad argument, a capacity
// exceeded): the message goes on the stream, like the CUDA failures of alcg_kernel.cuh.
#ifndef ALC_CUDA_ALCG_CHECK_CUH_
#define ALC_CUDA_ALCG_CHECK_CUH_

#include "alcg_stream.h"

#include <stdarg.h>
#include <stdio.h>

/// Write "file:line func: message" on s (NULL-safe) and return st.
__attribute__((format(printf, 6, 7))) static inline alctStatus alcg_fail(alcgStream* s,
                                                                         alctStatus st,
                                                                         const char* file, int line,
                                                                         const char* func,
                                                                         const char* fmt, ...) {
    if (!s) return st;
    int k = snprintf(s->err, sizeof s->err, "%s:%d %s: ", file, line, func);
    if (k < 0 || (size_t)k >= sizeof s->err) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err + k, sizeof s->err - (size_t)k, fmt, ap);
    va_end(ap);
    return st;
}

/// Record a formatted message on the stream and evaluate to the status.
#define ALCG_FAIL(s, st, ...) alcg_fail((s), (st), __FILE__, __LINE__, __func__, __VA_ARGS__)

#endif  // ALC_CUDA_ALCG_CHECK_CUH_
