// CCD sample queries: CSV reader with exact rational-to-double conversion, and the checker that
// scores the additive CCD (hd/alcm_ccd.h) against the ground truth of the sample set.
#define _POSIX_C_SOURCE 200809L
#include "ccd_queries.h"

#include "hd/alcm_ccd.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

__extension__ typedef unsigned __int128 u128;

#define MAX_LINE  1024
#define MAX_NAMES 4096

// clang-format off
static void setErr(char* err, int errsz, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
// clang-format on
static void setErr(char* err, int errsz, const char* fmt, ...) {
    if (!err || errsz <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errsz, fmt, ap);
    va_end(ap);
}

// ---- rationals ------------------------------------------------------------------------------

// decimal digits (optional sign) into a u128; returns 0 ok, 1 malformed, 2 too long
static int parseU128(const char* s, u128* v, int* neg) {
    *neg = 0;
    if (*s == '-' || *s == '+') *neg = (*s++ == '-');
    if (!*s) return 1;
    u128 x = 0;
    const u128 limit = ((u128)-1) / 10;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return 1;
        unsigned dgt = (unsigned)(*s - '0');
        if (x > limit || (x == limit && dgt > (unsigned)(((u128)-1) % 10))) return 2;
        x = x * 10 + dgt;
    }
    *v = x;
    return 0;
}

// number of significant bits of x
static int bitLength(u128 x) {
    int n = 0;
    while (x) {
        x >>= 1;
        n++;
    }
    return n;
}

// n / d correctly rounded to nearest even; d > 0 and d < 2^127 so the remainder never overflows
static double divideRounded(u128 n, u128 d) {
    if (n == 0) return 0.0;
    // long division, one quotient bit at a time: integer bits of n first, then zeros
    int nb = bitLength(n);
    u128 r = 0;
    uint64_t m = 0;
    int got = 0;       // significant quotient bits collected in m
    int lead = 0;      // binary position of the leading quotient bit
    int pos = nb - 1;  // position of the quotient bit being produced
    while (got < 64) {
        unsigned bit = pos >= 0 ? (unsigned)((n >> pos) & 1) : 0u;
        r = (r << 1) | bit;
        unsigned q = 0;
        if (r >= d) {
            r -= d;
            q = 1;
        }
        if (got > 0 || q) {
            if (got == 0) lead = pos;
            m = (m << 1) | q;
            got++;
        }
        pos--;
    }
    // sticky: any later quotient bit is nonzero iff the remainder or the unread bits of n are
    bool sticky = r != 0;
    if (pos >= 0 && (n & ((((u128)1) << (pos + 1)) - 1)) != 0) sticky = true;
    // round 64 bits to 53: 11 dropped bits plus sticky, ties to even
    uint64_t keep = m >> 11;
    uint64_t low = m & 0x7FF;
    if (low > 0x400 || (low == 0x400 && (sticky || (keep & 1)))) keep++;
    int e = lead - 52;
    if (keep == ((uint64_t)1 << 53)) {
        keep >>= 1;
        e++;
    }
    return ldexp((double)keep, e);
}

alctStatus alci_ccd_parseRational(const char* num, const char* den, double* out) {
    u128 n = 0, d = 0;
    int nneg = 0, dneg = 0;
    int rn = parseU128(num, &n, &nneg);
    int rd = parseU128(den, &d, &dneg);
    if (rn == 1 || rd == 1) return ALC_ERR_SCENE;
    if (rn == 2 || rd == 2 || (d >> 127) != 0) {
        // more than 38 digits: long double fallback (not exact)
        long double a = strtold(num, NULL), b = strtold(den, NULL);
        if (b == 0) return ALC_ERR_SCENE;
        *out = (double)(a / b);
        return ALC_OK;
    }
    if (d == 0) return ALC_ERR_SCENE;
    double v = divideRounded(n, d);
    *out = (nneg != dneg) ? -v : v;
    return ALC_OK;
}

// ---- CSV reader -------------------------------------------------------------------------------

// split a line into exactly 7 comma-separated fields (in place); returns the field count
static int splitFields(char* line, char* fields[7]) {
    int n = 0;
    char* s = line;
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' ')) s[--len] = 0;
    while (*s == ' ') s++;
    if (!*s) return 0;
    for (;;) {
        if (n == 7) return 8;  // too many
        fields[n++] = s;
        char* c = strchr(s, ',');
        if (!c) break;
        *c = 0;
        s = c + 1;
    }
    // trim spaces around each field
    for (int i = 0; i < n; i++) {
        while (*fields[i] == ' ') fields[i]++;
        size_t l = strlen(fields[i]);
        while (l > 0 && fields[i][l - 1] == ' ') fields[i][--l] = 0;
    }
    return n;
}

alctStatus alci_ccd_loadQueries(const char* csvPath, int isEdgeEdge, double** pos, int** truth,
                                long* nq, char* err, int errsz) {
    *pos = NULL;
    *truth = NULL;
    *nq = 0;
    FILE* f = fopen(csvPath, "r");
    if (!f) {
        setErr(err, errsz, "%s:0: cannot open: %s", csvPath, strerror(errno));
        return ALC_ERR_IO;
    }
    const char* kind = isEdgeEdge ? "edge-edge" : "vertex-face";
    long cap = 0, rows = 0, line = 0;
    double* P = NULL;
    int* T = NULL;
    alctStatus st = ALC_OK;
    char buf[MAX_LINE];
    while (fgets(buf, sizeof buf, f)) {
        line++;
        if (!strchr(buf, '\n') && !feof(f)) {
            setErr(err, errsz, "%s:%ld: line too long", csvPath, line);
            st = ALC_ERR_SCENE;
            goto done;
        }
        char* fields[7];
        int nf = splitFields(buf, fields);
        if (nf == 0) continue;  // blank line
        if (nf != 7) {
            setErr(err, errsz, "%s:%ld: expected 7 columns, found %d", csvPath, line, nf);
            st = ALC_ERR_SCENE;
            goto done;
        }
        // grow by whole queries
        long q = rows / 8;
        if (q >= cap) {
            long ncap = cap ? 2 * cap : 256;
            double* P2 = (double*)realloc(P, (size_t)ncap * 24 * sizeof(double));
            if (!P2) {
                st = ALC_ERR_NOMEM;
                goto nomem;
            }
            P = P2;
            int* T2 = (int*)realloc(T, (size_t)ncap * sizeof(int));
            if (!T2) {
                st = ALC_ERR_NOMEM;
                goto nomem;
            }
            T = T2;
            cap = ncap;
        }
        // coordinates: three numerator/denominator pairs
        for (int k = 0; k < 3; k++) {
            if (alci_ccd_parseRational(fields[2 * k], fields[2 * k + 1],
                                       &P[24 * q + 3 * (rows % 8) + k]) != ALC_OK) {
                setErr(err, errsz, "%s:%ld: bad rational '%s/%s' in column %d", csvPath, line,
                       fields[2 * k], fields[2 * k + 1], 2 * k + 1);
                st = ALC_ERR_SCENE;
                goto done;
            }
        }
        // ground truth, identical on the 8 rows of a query
        int gt = -1;
        if (strcmp(fields[6], "0") == 0) gt = 0;
        if (strcmp(fields[6], "1") == 0) gt = 1;
        if (gt < 0) {
            setErr(err, errsz, "%s:%ld: ground truth '%s' is not 0 or 1", csvPath, line, fields[6]);
            st = ALC_ERR_SCENE;
            goto done;
        }
        if (rows % 8 == 0) {
            T[q] = gt;
        } else if (T[q] != gt) {
            setErr(err, errsz, "%s:%ld: ground truth differs within %s query %ld", csvPath, line,
                   kind, q);
            st = ALC_ERR_SCENE;
            goto done;
        }
        rows++;
    }
    if (ferror(f)) {
        setErr(err, errsz, "%s:%ld: read error", csvPath, line);
        st = ALC_ERR_IO;
        goto done;
    }
    if (rows % 8 != 0) {
        setErr(err, errsz, "%s:%ld: %ld rows is not a multiple of 8 (%s queries)", csvPath, line,
               rows, kind);
        st = ALC_ERR_SCENE;
        goto done;
    }
    goto done;
nomem:
    setErr(err, errsz, "%s:%ld: out of memory", csvPath, line);
done:
    fclose(f);
    if (st != ALC_OK) {
        free(P);
        free(T);
        return st;
    }
    *pos = rows ? P : NULL;
    *truth = rows ? T : NULL;
    if (!rows) {
        free(P);
        free(T);
    }
    *nq = rows / 8;
    return ALC_OK;
}

// ---- running and scoring ------------------------------------------------------------------------

static double nowSeconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

alctStatus alci_ccd_runQueries(const double* pos, const int* truth, long nq, int isEdgeEdge,
                               alciCcdQueryStats* stats, int* reported) {
    if (nq <= 0) return ALC_OK;
    // start positions and displacements, prepared outside the timed loop
    alcV3* x = (alcV3*)malloc((size_t)nq * 8 * sizeof(alcV3));
    unsigned char* hit = (unsigned char*)malloc((size_t)nq);
    if (!x || !hit) {
        free(x);
        free(hit);
        return ALC_ERR_NOMEM;
    }
    for (long q = 0; q < nq; q++) {
        for (int i = 0; i < 4; i++) {
            alcV3 a = alcm_v3_load(pos + 24 * q + 3 * i);
            alcV3 b = alcm_v3_load(pos + 24 * q + 3 * (i + 4));
            x[8 * q + i] = a;
            x[8 * q + 4 + i] = alcm_v3_sub(b, a);
        }
    }
    // CCD calls only are timed
    double t0 = nowSeconds();
    for (long q = 0; q < nq; q++) {
        double toi;
        const alcV3* xs = x + 8 * q;
        bool c = isEdgeEdge ? alcm_ccd_ee(xs, xs + 4, ALCI_CCD_CHECK_XI, ALCI_CCD_CHECK_S,
                                          ALCI_CCD_CHECK_TMAX, ALCI_CCD_CHECK_MAXITER, &toi, NULL)
                            : alcm_ccd_pt(xs, xs + 4, ALCI_CCD_CHECK_XI, ALCI_CCD_CHECK_S,
                                          ALCI_CCD_CHECK_TMAX, ALCI_CCD_CHECK_MAXITER, &toi, NULL);
        hit[q] = c ? 1 : 0;
    }
    stats->seconds += nowSeconds() - t0;
    // confusion counts
    for (long q = 0; q < nq; q++) {
        stats->queries++;
        if (hit[q] && truth[q]) stats->truePos++;
        if (hit[q] && !truth[q]) stats->falsePos++;
        if (!hit[q] && !truth[q]) stats->trueNeg++;
        if (!hit[q] && truth[q]) stats->falseNeg++;
        if (reported) reported[q] = hit[q];
    }
    free(x);
    free(hit);
    return ALC_OK;
}

// ---- directory walk -----------------------------------------------------------------------------

static int cmpNames(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

static void freeNames(char** names, int n) {
    for (int i = 0; i < n; i++) free(names[i]);
    free(names);
}

// sorted entries of dir: subdirectories (wantDirs) or regular files ending in suffix
static alctStatus listSorted(const char* dir, int wantDirs, const char* suffix, char*** names,
                             int* count, char* err, int errsz) {
    *names = NULL;
    *count = 0;
    DIR* d = opendir(dir);
    if (!d) {
        setErr(err, errsz, "%s:0: cannot open directory: %s", dir, strerror(errno));
        return ALC_ERR_IO;
    }
    char** list = (char**)malloc(MAX_NAMES * sizeof(char*));
    if (!list) {
        closedir(d);
        return ALC_ERR_NOMEM;
    }
    int n = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (wantDirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) continue;
        if (suffix) {
            size_t l = strlen(e->d_name), ls = strlen(suffix);
            if (l < ls || strcmp(e->d_name + l - ls, suffix) != 0) continue;
        }
        if (n == MAX_NAMES) {
            setErr(err, errsz, "%s:0: more than %d entries", dir, MAX_NAMES);
            closedir(d);
            freeNames(list, n);
            return ALC_ERR_IO;
        }
        size_t l = strlen(e->d_name) + 1;
        list[n] = (char*)malloc(l);
        if (!list[n]) {
            closedir(d);
            freeNames(list, n);
            return ALC_ERR_NOMEM;
        }
        memcpy(list[n++], e->d_name, l);
    }
    closedir(d);
    qsort(list, (size_t)n, sizeof(char*), cmpNames);
    *names = list;
    *count = n;
    return ALC_OK;
}

static void printRow(FILE* out, const char* folder, const char* kind, const alciCcdQueryStats* s) {
    if (!out) return;
    double qps = s->seconds > 0 ? (double)s->queries / s->seconds : 0.0;
    fprintf(out, "%-28s %-12s %8ld %6ld %6ld %6ld %6ld %12.4g\n", folder, kind, s->queries,
            s->truePos, s->falsePos, s->trueNeg, s->falseNeg, qps);
}

static void addStats(alciCcdQueryStats* a, const alciCcdQueryStats* b) {
    a->queries += b->queries;
    a->truePos += b->truePos;
    a->falsePos += b->falsePos;
    a->trueNeg += b->trueNeg;
    a->falseNeg += b->falseNeg;
    a->seconds += b->seconds;
}

// all *.csv of one folder/kind into *row
static alctStatus checkKind(const char* kdir, int isEE, alciCcdQueryStats* row, char* err,
                            int errsz) {
    char** files = NULL;
    int nfile = 0;
    alctStatus st = listSorted(kdir, 0, ".csv", &files, &nfile, err, errsz);
    if (st != ALC_OK) return st;
    for (int i = 0; i < nfile && st == ALC_OK; i++) {
        char path[4096];
        int len = snprintf(path, sizeof path, "%s/%s", kdir, files[i]);
        if (len < 0 || len >= (int)sizeof path) {
            setErr(err, errsz, "%s/%s:0: path too long", kdir, files[i]);
            st = ALC_ERR_IO;
            break;
        }
        double* pos = NULL;
        int* truth = NULL;
        long nq = 0;
        st = alci_ccd_loadQueries(path, isEE, &pos, &truth, &nq, err, errsz);
        if (st == ALC_OK) st = alci_ccd_runQueries(pos, truth, nq, isEE, row, NULL);
        if (st == ALC_ERR_NOMEM) setErr(err, errsz, "%s:0: out of memory", path);
        free(pos);
        free(truth);
    }
    freeNames(files, nfile);
    return st;
}

alctStatus alci_ccd_checkDir(const char* dir, FILE* out, int useGpu, alciCcdQueryStats* total,
                             char* err, int errsz) {
    memset(total, 0, sizeof *total);
    // the CPU functions are used until a GPU narrow phase exists; say so in the table
    if (useGpu && out) fprintf(out, "note: no GPU CCD path yet, running the CPU additive CCD\n");
    char** folders = NULL;
    int nfolder = 0;
    alctStatus st = listSorted(dir, 1, NULL, &folders, &nfolder, err, errsz);
    if (st != ALC_OK) return st;
    if (out) {
        fprintf(out, "%-28s %-12s %8s %6s %6s %6s %6s %12s\n", "folder", "kind", "queries", "TP",
                "FP", "TN", "FN", "queries/s");
    }
    static const char* const kinds[2] = {"vertex-face", "edge-edge"};
    for (int i = 0; i < nfolder && st == ALC_OK; i++) {
        for (int k = 0; k < 2 && st == ALC_OK; k++) {
            char kdir[4096];
            snprintf(kdir, sizeof kdir, "%s/%s/%s", dir, folders[i], kinds[k]);
            struct stat sb;
            if (stat(kdir, &sb) != 0 || !S_ISDIR(sb.st_mode)) continue;
            alciCcdQueryStats row;
            memset(&row, 0, sizeof row);
            st = checkKind(kdir, k == 1, &row, err, errsz);
            if (st != ALC_OK) break;
            printRow(out, folders[i], kinds[k], &row);
            addStats(total, &row);
        }
    }
    freeNames(folders, nfolder);
    if (st != ALC_OK) return st;
    if (total->queries == 0) {
        setErr(err, errsz, "%s:0: no <folder>/{vertex-face,edge-edge}/*.csv queries found", dir);
        return ALC_ERR_IO;
    }
    printRow(out, "total", "", total);
    return ALC_OK;
}
