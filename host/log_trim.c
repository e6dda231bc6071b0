// Trimming a per-step log before a resumed run appends to it (log_trim.h).
#include "log_trim.h"

#include "io_atomic.h"
#include "state_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/// The step a row belongs to: the leading integer of a CSV row, or the "step" member of a JSON
/// object; -1 when the row has none (a torn last line).
static long rowStep(const char* line, size_t len, int json) {
    char buf[64];
    const char* p = line;
    if (json) {
        const char* key = "\"step\":";
        size_t kl = strlen(key);
        const char* end = line + len;
        for (p = line; p + kl <= end && strncmp(p, key, kl) != 0; p++) {
        }
        if (p + kl > end) return -1;
        p += kl;
        while (p < end && *p == ' ') p++;
        len = (size_t)(end - p);
    }
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, p, n);
    buf[n] = 0;
    char* e = NULL;
    long s = strtol(buf, &e, 10);
    if (e == buf || s < 0) return -1;
    if (json ? (*e != ',' && *e != '}' && *e != ' ') : (*e != ',')) return -1;
    return s;
}

alctStatus alci_log_trim(const char* path, long step, int header, int json, char* err, int errsz) {
    unsigned char* data = NULL;
    size_t n = 0;
    alctStatus st = alci_state_readFile(path, &data, &n, err, errsz);
    if (st != ALC_OK) return st;
    alciFile f;
    st = alci_file_open(&f, path, err, errsz);
    if (st != ALC_OK) {
        free(data);
        return st;
    }
    const char* text = (const char*)data;
    size_t at = 0;
    int first = 1;
    while (at < n) {
        const char* nl = memchr(text + at, '\n', n - at);
        if (!nl) break;  // a torn last line: dropped
        size_t len = (size_t)(nl - (text + at));
        long s = first && header ? 0 : rowStep(text + at, len, json);
        if ((first && header) || (s >= 0 && s <= step)) alci_file_write(&f, text + at, len + 1);
        first = 0;
        at += len + 1;
    }
    free(data);
    return alci_file_commit(&f, err, errsz);
}
