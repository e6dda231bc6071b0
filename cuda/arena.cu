// The device memory arena (cuda/arena.h): chunks from cudaMalloc, cut into blocks kept in one
// array sorted by address; allocation is first fit, freeing coalesces with free neighbours of
// the same chunk. Every arena is registered in a process-wide list so that alcg_free(p), which
// has no stream, finds the arena of p; one mutex guards the list and every arena (sims made in
// different threads may allocate at once; the calls are few: make, growth, destroy).
#include "arena.h"

#include <cuda_runtime.h>

#include <mutex>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

struct Chunk {
    char* base;
    size_t size;
    int id;
};

struct Block {
    char* p;
    size_t size;
    int chunk;  // the id of its chunk
    int used;
};

std::mutex gMutex;
alcgArena** gArenas = NULL;  // registered arenas
int gNarena = 0, gCapArena = 0;

}  // namespace

struct alcgArena_ {
    int passthrough;  // one chunk per block (alcg_arena_make with 0 bytes)
    Chunk* chunk;
    int nchunk, capChunk, nextId, grows;
    Block* block;  // sorted by p
    int nblock, capBlock;
    size_t reserved, used, peak;
};

namespace {

/// Make room for one more element in a growable array; 0 when out of host memory.
template <typename T>
int reserveOne(T** a, int n, int* cap) {
    if (n < *cap) return 1;
    int c = *cap ? 2 * *cap : 16;
    T* b = (T*)realloc(*a, sizeof(T) * (size_t)c);
    if (!b) return 0;
    *a = b;
    *cap = c;
    return 1;
}

/// Insert a block at index i of the sorted array (room reserved by the caller).
void insertBlock(alcgArena* a, int i, Block b) {
    memmove(a->block + i + 1, a->block + i, sizeof(Block) * (size_t)(a->nblock - i));
    a->block[i] = b;
    a->nblock++;
}

void eraseBlock(alcgArena* a, int i) {
    memmove(a->block + i, a->block + i + 1, sizeof(Block) * (size_t)(a->nblock - i - 1));
    a->nblock--;
}

/// Add a chunk of `bytes` as one free block. Called with gMutex held.
alctStatus addChunk(alcgArena* a, size_t bytes, alcgStream* s) {
    if (!reserveOne(&a->chunk, a->nchunk, &a->capChunk) ||
        !reserveOne(&a->block, a->nblock, &a->capBlock)) {
        if (s) snprintf(s->err, sizeof s->err, "out of host memory for the arena's tables");
        return ALC_ERR_NOMEM;
    }
    void* p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (s) {
            snprintf(s->err, sizeof s->err,
                     "%s:%d: cannot allocate %zu bytes of device memory for the arena (holding "
                     "%zu): %s",
                     __FILE__, __LINE__, bytes, a->reserved, cudaGetErrorName(e));
        }
        return ALC_ERR_DEVICE_NOMEM;
    }
    Chunk c = {(char*)p, bytes, a->nextId++};
    a->chunk[a->nchunk++] = c;
    // blocks stay sorted by address across chunks
    int i = a->nblock;
    while (i > 0 && a->block[i - 1].p > c.base) i--;
    Block b = {c.base, bytes, c.id, 0};
    insertBlock(a, i, b);
    a->reserved += bytes;
    return ALC_OK;
}

/// cudaFree the chunk with this id and forget it. Called with gMutex held.
void dropChunk(alcgArena* a, int id) {
    for (int k = 0; k < a->nchunk; k++) {
        if (a->chunk[k].id != id) continue;
        cudaFree(a->chunk[k].base);
        a->reserved -= a->chunk[k].size;
        a->chunk[k] = a->chunk[--a->nchunk];
        return;
    }
}

/// Index of the block that starts at p, or -1. Called with gMutex held.
int findBlock(const alcgArena* a, const char* p) {
    int lo = 0, hi = a->nblock - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (a->block[mid].p == p) return mid;
        if (a->block[mid].p < p) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

}  // namespace

extern "C" size_t alcg_arena_round(size_t n) {
    return (n + ALCG_ARENA_ALIGN - 1) / ALCG_ARENA_ALIGN * ALCG_ARENA_ALIGN;
}

extern "C" alctStatus alcg_arena_make(alcgArena** out, size_t bytes, alcgStream* s) {
    if (!out) return ALC_ERR_INVALID_ARG;
    *out = NULL;
    alcgArena* a = (alcgArena*)calloc(1, sizeof(alcgArena));
    if (!a) return ALC_ERR_NOMEM;
    a->passthrough = bytes == 0;
    std::lock_guard<std::mutex> g(gMutex);
    alctStatus st = a->passthrough ? ALC_OK : addChunk(a, alcg_arena_round(bytes), s);
    if (st == ALC_OK && !reserveOne(&gArenas, gNarena, &gCapArena)) st = ALC_ERR_NOMEM;
    if (st != ALC_OK) {
        for (int k = 0; k < a->nchunk; k++) cudaFree(a->chunk[k].base);
        free(a->chunk);
        free(a->block);
        free(a);
        return st;
    }
    gArenas[gNarena++] = a;
    *out = a;
    return ALC_OK;
}

extern "C" void alcg_arena_free(alcgArena* a) {
    if (!a) return;
    std::lock_guard<std::mutex> g(gMutex);
    for (int k = 0; k < gNarena; k++) {
        if (gArenas[k] == a) {
            gArenas[k] = gArenas[--gNarena];
            break;
        }
    }
    for (int k = 0; k < a->nchunk; k++) cudaFree(a->chunk[k].base);
    free(a->chunk);
    free(a->block);
    free(a);
}

extern "C" alctStatus alcg_arena_alloc(alcgArena* a, void** p, size_t n, alcgStream* s) {
    *p = NULL;
    if (n == 0) return ALC_OK;
    size_t need = alcg_arena_round(n);
    std::lock_guard<std::mutex> g(gMutex);
    int i = 0;
    for (; i < a->nblock; i++) {
        if (!a->block[i].used && a->block[i].size >= need) break;
    }
    if (i == a->nblock) {
        // nothing holds it: grow by a chunk, at least a quarter of what is held (passing
        // through: a chunk of its own)
        size_t grow =
            !a->passthrough && a->reserved / 4 > need ? alcg_arena_round(a->reserved / 4) : need;
        alctStatus st = addChunk(a, grow, s);
        if (st != ALC_OK) return st;
        if (!a->passthrough) a->grows++;
        for (i = 0; i < a->nblock; i++) {
            if (!a->block[i].used && a->block[i].size >= need) break;
        }
    }
    if (!reserveOne(&a->block, a->nblock, &a->capBlock)) {
        if (s) snprintf(s->err, sizeof s->err, "out of host memory for the arena's tables");
        return ALC_ERR_NOMEM;
    }
    Block* b = &a->block[i];
    if (b->size > need) {
        Block rest = {b->p + need, b->size - need, b->chunk, 0};
        b->size = need;
        insertBlock(a, i + 1, rest);
        b = &a->block[i];
    }
    b->used = 1;
    a->used += need;
    if (a->used > a->peak) a->peak = a->used;
    *p = b->p;
    return ALC_OK;
}

extern "C" int alcg_arena_release(void* p) {
    if (!p) return 1;
    std::lock_guard<std::mutex> g(gMutex);
    const char* q = (const char*)p;
    for (int k = 0; k < gNarena; k++) {
        alcgArena* a = gArenas[k];
        int i = findBlock(a, q);
        if (i < 0 || !a->block[i].used) continue;
        Block* b = &a->block[i];
        b->used = 0;
        a->used -= b->size;
        if (a->passthrough) {
            dropChunk(a, b->chunk);
            eraseBlock(a, i);
            return 1;
        }
        // coalesce with the free neighbours of the same chunk
        if (i + 1 < a->nblock && !a->block[i + 1].used && a->block[i + 1].chunk == b->chunk) {
            b->size += a->block[i + 1].size;
            eraseBlock(a, i + 1);
        }
        if (i > 0 && !a->block[i - 1].used && a->block[i - 1].chunk == a->block[i].chunk) {
            a->block[i - 1].size += a->block[i].size;
            eraseBlock(a, i);
        }
        return 1;
    }
    return 0;
}

extern "C" void alcg_arena_stats(const alcgArena* a, alcgArenaStats* out) {
    memset(out, 0, sizeof *out);
    if (!a) return;
    std::lock_guard<std::mutex> g(gMutex);
    out->reserved = a->reserved;
    out->used = a->used;
    out->peak = a->peak;
    out->chunks = a->nchunk;
    out->grows = a->grows;
}
