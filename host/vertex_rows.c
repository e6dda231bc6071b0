// The rows of the mesh graph: for each vertex, itself and every vertex that shares a
// tetrahedron with it, ascending. The reference backend's static matrix pattern
// (host/ref/elastic_ref.c) and both backends' carry-along placement of moving boundaries
// (host/hd/alcm_kincarry.h) read the same rows, so both sum over them in one order.
#include "alc_internal.h"

#include <stdlib.h>

static int cmpInt(const void* a, const void* b) {
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

alctStatus alci_vertexRows(const alcModel* m, int** rowptr, int** col) {
    int n = m->nvert, nt = m->ntet;
    *rowptr = NULL;
    *col = NULL;
    int* ptr = (int*)calloc((size_t)n + 1, sizeof(int));
    int* adr = (int*)calloc((size_t)n + 1, sizeof(int));
    int* fill = (int*)calloc((size_t)n + 1, sizeof(int));
    int* inc = (int*)malloc(sizeof(int) * (4 * (size_t)nt + 1));
    // at most the vertex itself and 3 others per incident tetrahedron
    int* tmp = (int*)malloc(sizeof(int) * (12 * (size_t)nt + (size_t)n + 1));
    if (!ptr || !adr || !fill || !inc || !tmp) {
        free(ptr);
        free(adr);
        free(fill);
        free(inc);
        free(tmp);
        return ALC_ERR_NOMEM;
    }
    // vertex -> tetrahedron incidences (counting sort)
    for (int i = 0; i < 4 * nt; i++) adr[m->tet_vert[i] + 1]++;
    for (int v = 0; v < n; v++) adr[v + 1] += adr[v];
    for (int t = 0; t < nt; t++) {
        for (int a = 0; a < 4; a++) {
            int v = m->tet_vert[4 * t + a];
            inc[adr[v] + fill[v]++] = t;
        }
    }
    int nnz = 0;
    for (int v = 0; v < n; v++) {
        int start = nnz;
        tmp[nnz++] = v;
        for (int k = adr[v]; k < adr[v + 1]; k++) {
            const int* tv = m->tet_vert + 4 * inc[k];
            for (int b = 0; b < 4; b++) {
                if (tv[b] != v) tmp[nnz++] = tv[b];
            }
        }
        qsort(tmp + start, (size_t)(nnz - start), sizeof(int), cmpInt);
        int w = start;
        for (int k = start; k < nnz; k++) {
            if (k == start || tmp[k] != tmp[w - 1]) tmp[w++] = tmp[k];
        }
        nnz = w;
        ptr[v + 1] = nnz;
    }
    free(adr);
    free(fill);
    free(inc);
    int* c = (int*)realloc(tmp, sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    if (!c) {
        free(ptr);
        free(tmp);
        return ALC_ERR_NOMEM;
    }
    *rowptr = ptr;
    *col = c;
    return ALC_OK;
}
