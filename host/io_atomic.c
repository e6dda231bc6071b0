// Atomic file writing (write to a temporary file, optionally fsync, rename) and mkdir -p.
#include "io_atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

void alci_file_setError(char* err, int errsz, const char* fmt, ...) {
    if (!err || errsz <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errsz, fmt, ap);
    va_end(ap);
}

// copy a string with malloc; NULL on failure
static char* dupString(const char* s) {
    size_t n = strlen(s) + 1;
    char* d = (char*)malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

// free the owned strings and zero the struct
static void releaseFile(alciFile* f) {
    free(f->path);
    free(f->tmp);
    memset(f, 0, sizeof *f);
}

// fsync the directory holding path so that the rename itself is durable (best effort)
static void syncParentDir(const char* path) {
    const char* slash = strrchr(path, '/');
    char* dir = NULL;
    if (!slash) {
        dir = dupString(".");
    } else if (slash == path) {
        dir = dupString("/");
    } else {
        size_t n = (size_t)(slash - path);
        dir = (char*)malloc(n + 1);
        if (dir) {
            memcpy(dir, path, n);
            dir[n] = 0;
        }
    }
    if (!dir) return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

alctStatus alci_file_open(alciFile* f, const char* path, char* err, int errsz) {
    if (!f) {
        alci_file_setError(err, errsz, "alci_file_open: NULL file");
        return ALC_ERR_INVALID_ARG;
    }
    memset(f, 0, sizeof *f);
    if (!path || !path[0]) {
        alci_file_setError(err, errsz, "alci_file_open: empty path");
        return ALC_ERR_INVALID_ARG;
    }

    // temporary name beside the final one, so that rename stays on one file system
    size_t n = strlen(path) + 32;
    f->path = dupString(path);
    f->tmp = (char*)malloc(n);
    if (!f->path || !f->tmp) {
        releaseFile(f);
        alci_file_setError(err, errsz, "out of memory opening %s", path);
        return ALC_ERR_NOMEM;
    }
    snprintf(f->tmp, n, "%s.tmp.%ld", path, (long)getpid());

    // create or truncate it; O_NOFOLLOW refuses a planted symbolic link
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) {
        int e = errno;
        alci_file_setError(err, errsz, "cannot create %s: %s", f->tmp, strerror(e));
        releaseFile(f);
        return ALC_ERR_IO;
    }
    f->fp = fdopen(fd, "wb");
    if (!f->fp) {
        int e = errno;
        close(fd);
        unlink(f->tmp);
        alci_file_setError(err, errsz, "cannot open %s: %s", f->tmp, strerror(e));
        releaseFile(f);
        return ALC_ERR_IO;
    }
    f->durable = getenv("ALC_SYNC") && strcmp(getenv("ALC_SYNC"), "0") != 0;
    return ALC_OK;
}

alctStatus alci_file_write(alciFile* f, const void* data, size_t n) {
    if (!f || !f->fp) return ALC_ERR_INVALID_ARG;
    if (f->error) return ALC_ERR_IO;
    if (n == 0) return ALC_OK;
    if (!data) return ALC_ERR_INVALID_ARG;
    if (fwrite(data, 1, n, f->fp) != n) {
        f->error = errno ? errno : EIO;
        return ALC_ERR_IO;
    }
    f->nbytes += n;
    return ALC_OK;
}

alctStatus alci_file_printf(alciFile* f, const char* fmt, ...) {
    if (!f || !f->fp) return ALC_ERR_INVALID_ARG;
    if (f->error) return ALC_ERR_IO;
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(f->fp, fmt, ap);
    va_end(ap);
    if (r < 0) {
        f->error = errno ? errno : EIO;
        return ALC_ERR_IO;
    }
    f->nbytes += (size_t)r;
    return ALC_OK;
}

alctStatus alci_file_commit(alciFile* f, char* err, int errsz) {
    if (!f || !f->fp) {
        alci_file_setError(err, errsz, "alci_file_commit: file not open");
        return ALC_ERR_INVALID_ARG;
    }

    // flush the stream and the file's data to the device
    int e = f->error;
    if (!e && fflush(f->fp) != 0) e = errno ? errno : EIO;
    if (!e && ferror(f->fp)) e = EIO;  // a write through f->fp itself that failed
    if (!e && f->durable && fsync(fileno(f->fp)) != 0) e = errno;
    if (fclose(f->fp) != 0 && !e) e = errno ? errno : EIO;
    f->fp = NULL;
    if (e) {
        alci_file_setError(err, errsz, "cannot write %s: %s", f->tmp, strerror(e));
        unlink(f->tmp);
        releaseFile(f);
        return ALC_ERR_IO;
    }

    // replace the final file in one step
    if (rename(f->tmp, f->path) != 0) {
        e = errno;
        alci_file_setError(err, errsz, "cannot rename %s to %s: %s", f->tmp, f->path, strerror(e));
        unlink(f->tmp);
        releaseFile(f);
        return ALC_ERR_IO;
    }
    if (f->durable) syncParentDir(f->path);
    releaseFile(f);
    return ALC_OK;
}

void alci_file_setDurable(alciFile* f, int durable) {
    if (f) f->durable = durable;
}

void alci_file_abort(alciFile* f) {
    if (!f) return;
    if (f->fp) {
        fclose(f->fp);
        f->fp = NULL;
        if (f->tmp) unlink(f->tmp);
    }
    releaseFile(f);
}

alctStatus alci_mkdirs(const char* dir, char* err, int errsz) {
    if (!dir || !dir[0]) {
        alci_file_setError(err, errsz, "alci_mkdirs: empty directory name");
        return ALC_ERR_INVALID_ARG;
    }
    char* buf = dupString(dir);
    if (!buf) {
        alci_file_setError(err, errsz, "out of memory creating %s", dir);
        return ALC_ERR_NOMEM;
    }

    // create each prefix ending before a '/', then the whole path
    size_t n = strlen(buf);
    alctStatus status = ALC_OK;
    for (size_t i = 1; i <= n && status == ALC_OK; i++) {
        if (i < n && buf[i] != '/') continue;
        if (i < n && buf[i - 1] == '/') continue;  // repeated slashes
        char saved = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0777) != 0) {
            int e = errno;
            struct stat st;
            // an existing directory is fine, whatever mkdir said (EEXIST, EROFS, EACCES)
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                if (e == EEXIST) e = ENOTDIR;
                alci_file_setError(err, errsz, "cannot create directory %s: %s", buf, strerror(e));
                status = ALC_ERR_IO;
            }
        }
        buf[i] = saved;
    }
    free(buf);
    return status;
}
