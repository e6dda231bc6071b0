// The device memory arena (cuda/arena.h): blocks carved in order and aligned, a freed block
// reused, free neighbours coalesced (a request as large as the whole chunk fits again once
// everything is freed), a request no free block holds adding a chunk (counted) instead of
// failing, alcg_malloc and alcg_free going through the stream's arena, and data surviving in
// blocks around ones freed and reused; an arena made with 0 bytes passing every request through
// to cudaMalloc and every release to cudaFree, its statistics kept.
#include "../../cuda/arena.h"
#include "../test_macros.h"

#include <stdint.h>
#include <string.h>

ALC_TEST(arena_carveReuseCoalesce) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alcgArena* a = NULL;
    ENSURE_OK(alcg_arena_make(&a, 4096, &s));
    alcgArenaStats st;
    alcg_arena_stats(a, &st);
    ENSURE(st.reserved == 4096 && st.used == 0 && st.chunks == 1 && st.grows == 0);
    void *p = NULL, *q = NULL, *r = NULL, *t = NULL;
    ENSURE_OK(alcg_arena_alloc(a, &p, 100, &s));   // rounded to 256
    ENSURE_OK(alcg_arena_alloc(a, &q, 1000, &s));  // 1024
    ENSURE_OK(alcg_arena_alloc(a, &r, 256, &s));
    ENSURE(p && q && r);
    ENSURE((uintptr_t)p % ALCG_ARENA_ALIGN == 0 && (uintptr_t)q % ALCG_ARENA_ALIGN == 0);
    ENSURE((char*)q == (char*)p + 256 && (char*)r == (char*)q + 1024);
    alcg_arena_stats(a, &st);
    ENSURE(st.used == 256 + 1024 + 256 && st.peak == st.used);
    // a freed block is reused by a request it holds
    ENSURE(alcg_arena_release(q) == 1);
    ENSURE_OK(alcg_arena_alloc(a, &t, 512, &s));
    ENSURE(t == q);
    // everything freed: the neighbours coalesce back into one block of the whole chunk
    ENSURE(alcg_arena_release(p) && alcg_arena_release(t) && alcg_arena_release(r));
    alcg_arena_stats(a, &st);
    ENSURE(st.used == 0 && st.peak == 256 + 1024 + 256);
    void* whole = NULL;
    ENSURE_OK(alcg_arena_alloc(a, &whole, 4096, &s));
    ENSURE(whole == p);
    alcg_arena_stats(a, &st);
    ENSURE(st.grows == 0 && st.used == 4096);
    // a pointer no arena handed out is not taken; releasing a block twice is refused too
    int x = 0;
    ENSURE(alcg_arena_release(&x) == 0);
    ENSURE(alcg_arena_release(whole) == 1);
    ENSURE(alcg_arena_release(whole) == 0);
    ENSURE(alcg_arena_release(NULL) == 1);
    alcg_arena_free(a);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(arena_growsInsteadOfFailing) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alcgArena* a = NULL;
    ENSURE_OK(alcg_arena_make(&a, 1024, &s));
    s.arena = a;
    // through the stream: alcg_malloc carves, alcg_free returns the block
    double *d0 = NULL, *d1 = NULL, *d2 = NULL;
    ENSURE_OK(alcg_malloc(&s, (void**)&d0, 64 * sizeof(double)));  // 512 bytes
    ENSURE_OK(alcg_malloc(&s, (void**)&d1, 64 * sizeof(double)));  // fills the chunk
    alcgArenaStats st;
    alcg_arena_stats(a, &st);
    ENSURE(st.chunks == 1 && st.used == 1024);
    double h[64], back[64];
    for (int k = 0; k < 64; k++) h[k] = k + 0.5;
    ENSURE_OK(alcg_upload(&s, d0, h, sizeof h));
    // no room: a new chunk of max(request, reserved / 4)
    ENSURE_OK(alcg_malloc(&s, (void**)&d2, 3000));
    alcg_arena_stats(a, &st);
    ENSURE_MSG(st.chunks == 2 && st.grows == 1 && st.reserved == 1024 + 3072,
               "chunks %d, grows %d, reserved %zu", st.chunks, st.grows, st.reserved);
    // the first chunk's data is untouched by the growth, and by a free and reuse beside it
    alcg_free(d1);
    ENSURE_OK(alcg_malloc(&s, (void**)&d1, 200));
    ENSURE_OK(alcg_memset(&s, d1, 0, 200));
    ENSURE_OK(alcg_download(&s, back, d0, sizeof back));
    ENSURE(memcmp(back, h, sizeof h) == 0);
    alcg_free(d0);
    alcg_free(d1);
    alcg_free(d2);
    alcg_arena_stats(a, &st);
    ENSURE(st.used == 0);
    // free blocks of different chunks never merge: 4096 bytes fit in neither chunk
    void* big = NULL;
    ENSURE_OK(alcg_malloc(&s, &big, 4096));
    alcg_arena_stats(a, &st);
    ENSURE(st.chunks == 3 && st.reserved == 1024 + 3072 + 4096);
    alcg_free(big);
    s.arena = NULL;
    alcg_arena_free(a);
    // without an arena alcg_malloc and alcg_free are cudaMalloc and cudaFree
    void* plain = NULL;
    ENSURE_OK(alcg_malloc(&s, &plain, 100));
    ENSURE(alcg_arena_release(plain) == 0);
    alcg_free(plain);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(arena_passthrough) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alcgArena* a = NULL;
    ENSURE_OK(alcg_arena_make(&a, 0, &s));
    alcgArenaStats st;
    alcg_arena_stats(a, &st);
    ENSURE(st.reserved == 0 && st.chunks == 0);
    s.arena = a;
    void *p = NULL, *q = NULL;
    ENSURE_OK(alcg_malloc(&s, &p, 100));
    ENSURE_OK(alcg_malloc(&s, &q, 1000));
    alcg_arena_stats(a, &st);
    ENSURE(st.chunks == 2 && st.reserved == 256 + 1024 && st.used == st.reserved && st.grows == 0);
    alcg_free(p);
    alcg_arena_stats(a, &st);
    ENSURE(st.chunks == 1 && st.reserved == 1024 && st.used == 1024 && st.peak == 256 + 1024);
    alcg_free(q);
    alcg_arena_stats(a, &st);
    ENSURE(st.chunks == 0 && st.reserved == 0);
    s.arena = NULL;
    alcg_arena_free(a);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}
