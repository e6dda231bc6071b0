// Text cursor of the mesh readers: reads a file into memory, splits it into blank-separated
// tokens line by line, converts numbers and formats "path:line: what is wrong" messages.
#include "mesh_text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

alctStatus alci_text_fail(alciText* t, alctStatus s, const char* fmt, ...) {
    if (t->err && t->errsz > 0 && !t->err[0]) {
        // at the end of a file that ends with a newline, name its last line
        if (t->buf && t->pos >= t->len && t->len > 0 && t->buf[t->len - 1] == '\n' && t->line > 1) {
            t->line--;
        }
        int n = snprintf(t->err, (size_t)t->errsz, "%s:%d: ", t->path, t->line);
        if (n >= 0 && n < t->errsz) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(t->err + n, (size_t)(t->errsz - n), fmt, ap);
            va_end(ap);
        }
    }
    return s;
}

alctStatus alci_text_open(alciText* t, const char* path, char comment, char* err, int errsz) {
    memset(t, 0, sizeof *t);
    t->path = path;
    t->comment = comment;
    t->err = err;
    t->errsz = errsz;
    FILE* f = fopen(path, "rb");
    if (!f) return alci_text_fail(t, ALC_ERR_IO, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char* buf = (char*)malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1) break;
        char* grown = cap < SIZE_MAX / 2 ? (char*)realloc(buf, cap * 2) : NULL;
        if (!grown) free(buf);
        buf = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) return alci_text_fail(t, ALC_ERR_NOMEM, "out of memory reading the file");
    if (bad) {
        free(buf);
        return alci_text_fail(t, ALC_ERR_IO, "read error");
    }
    buf[n] = 0;
    t->buf = buf;
    t->len = n;
    t->line = 1;
    return ALC_OK;
}

void alci_text_close(alciText* t) {
    free(t->buf);
    memset(t, 0, sizeof *t);
}

static int isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int isComment(const alciText* t, char c) {
    return t->comment != 0 && c == t->comment;
}

/// Skip blanks and comments; also newlines, counting them, when crossLines.
static void skipBlank(alciText* t, int crossLines) {
    while (t->pos < t->len) {
        char c = t->buf[t->pos];
        if (isComment(t, c)) {
            while (t->pos < t->len && t->buf[t->pos] != '\n') t->pos++;
            continue;
        }
        if (c == '\n' && crossLines) {
            t->line++;
        } else if (!isBlank(c)) {
            break;
        }
        t->pos++;
    }
}

const char* alci_text_token(alciText* t, int crossLines, size_t* n) {
    skipBlank(t, crossLines);
    size_t start = t->pos;
    while (t->pos < t->len && t->buf[t->pos] != '\n' && !isBlank(t->buf[t->pos]) &&
           !isComment(t, t->buf[t->pos])) {
        t->pos++;
    }
    *n = t->pos - start;
    return t->buf + start;
}

const char* alci_text_shown(const char* tok, size_t n, char out[ALCI_TEXT_SHOWN]) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < 32; i++) {
        unsigned char c = (unsigned char)tok[i];
        out[k++] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    if (n > 32) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = 0;
    return out;
}

int alci_text_toInt(const char* tok, size_t n, long long* out) {
    char tmp[40];
    if (n == 0 || n >= sizeof tmp) return 0;
    memcpy(tmp, tok, n);
    tmp[n] = 0;
    char* end = NULL;
    errno = 0;
    *out = strtoll(tmp, &end, 10);
    return end == tmp + n && errno != ERANGE;
}

int alci_text_toReal(const char* tok, size_t n, double* out) {
    char tmp[64];
    if (n == 0 || n >= sizeof tmp) return 0;
    memcpy(tmp, tok, n);
    tmp[n] = 0;
    char* end = NULL;
    *out = strtod(tmp, &end);
    return end == tmp + n;
}

alctStatus alci_text_missing(alciText* t, const char* what) {
    const char* in = t->section ? " in " : "";
    const char* section = t->section ? t->section : "";
    if (t->pos >= t->len) {
        return alci_text_fail(t, ALC_ERR_SCENE, "unexpected end of file%s%s, expected %s", in,
                              section, what);
    }
    return alci_text_fail(t, ALC_ERR_SCENE, "line ends early%s%s, expected %s", in, section, what);
}

alctStatus alci_text_readInt(alciText* t, int crossLines, const char* what, long long* out) {
    size_t n;
    const char* tok = alci_text_token(t, crossLines, &n);
    if (n == 0) return alci_text_missing(t, what);
    if (!alci_text_toInt(tok, n, out)) {
        char show[ALCI_TEXT_SHOWN];
        return alci_text_fail(t, ALC_ERR_SCENE, "expected %s (an integer), found '%s'", what,
                              alci_text_shown(tok, n, show));
    }
    return ALC_OK;
}

alctStatus alci_text_readReal(alciText* t, int crossLines, const char* what, double* out) {
    size_t n;
    const char* tok = alci_text_token(t, crossLines, &n);
    if (n == 0) return alci_text_missing(t, what);
    char show[ALCI_TEXT_SHOWN];
    if (!alci_text_toReal(tok, n, out)) {
        return alci_text_fail(t, ALC_ERR_SCENE, "expected %s (a number), found '%s'", what,
                              alci_text_shown(tok, n, show));
    }
    if (!isfinite(*out)) {
        return alci_text_fail(t, ALC_ERR_SCENE, "%s is not finite ('%s')", what,
                              alci_text_shown(tok, n, show));
    }
    return ALC_OK;
}

alctStatus alci_text_endLine(alciText* t, int consume) {
    skipBlank(t, 0);
    if (t->pos < t->len && t->buf[t->pos] != '\n') {
        size_t n;
        char show[ALCI_TEXT_SHOWN];
        const char* tok = alci_text_token(t, 0, &n);
        return alci_text_fail(t, ALC_ERR_SCENE, "unexpected '%s' at the end of the line%s%s",
                              alci_text_shown(tok, n, show), t->section ? " in " : "",
                              t->section ? t->section : "");
    }
    if (consume && t->pos < t->len) {
        t->pos++;
        t->line++;
    }
    return ALC_OK;
}

alctStatus alci_text_checkCount(alciText* t, long long count, long long limit, size_t minBytes,
                                const char* what) {
    if (count < 0) {
        return alci_text_fail(t, ALC_ERR_SCENE, "negative number of %s (%lld)", what, count);
    }
    if (count > limit || (unsigned long long)count > (t->len - t->pos) / minBytes) {
        return alci_text_fail(
            t, ALC_ERR_SCENE,
            "%lld %s declared, but the file has only %zu bytes left (truncated or corrupt)", count,
            what, t->len - t->pos);
    }
    return ALC_OK;
}
