// Gmsh .msh reader: format 2.2 and 4.1, ASCII and binary. Tetrahedra (type 4) and triangles
// (type 2) are kept; other elements are parsed past. Node tags are remapped to dense indices.
#include "mesh.h"
#include "mesh_text.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSH_TET 4
#define MSH_TRI 2

/// A node tag and the dense index it maps to.
typedef struct {
    long long tag;
    int index;
} NodeTag;

/// Growable int array (tetrahedra or triangles).
typedef struct {
    int* a;
    size_t n, cap;
} IntVec;

/// Parser state over the whole file held in memory.
typedef struct {
    alciText txt;  // the file; txt.section names the current section in messages
    int binary;    // file-type 1
    int version;   // 22 or 41
    int tagSize;   // bytes of a size_t in 4.1 binary files
    int nnode;     // nodes read
    double* vert;
    NodeTag* tags;  // sorted by tag after $Nodes
    int dense;      // tags are tags[0].tag + i
    IntVec tet, tri;
} Msh;

// ---- ASCII tokens ------------------------------------------------------------------------

/// Expect the keyword kw as the next token.
static alctStatus expectWord(Msh* m, const char* kw) {
    size_t n;
    const char* tok = alci_text_token(&m->txt, 1, &n);
    if (n == 0) return alci_text_fail(&m->txt, ALC_ERR_SCENE, "missing %s (end of file)", kw);
    if (n != strlen(kw) || memcmp(tok, kw, n) != 0) {
        char show[ALCI_TEXT_SHOWN];
        return alci_text_fail(&m->txt, ALC_ERR_SCENE, "expected %s, found '%s'", kw,
                              alci_text_shown(tok, n, show));
    }
    return ALC_OK;
}

/// Move to the end of the line (its newline stays unread).
static void skipLine(Msh* m) {
    alciText* t = &m->txt;
    while (t->pos < t->len && t->buf[t->pos] != '\n') t->pos++;
}

// ---- binary data -------------------------------------------------------------------------

/// Copy n bytes of binary data, counting the newline bytes it crosses.
static alctStatus readBytes(Msh* m, void* out, size_t n, const char* what) {
    alciText* t = &m->txt;
    if (n > t->len - t->pos) {
        return alci_text_fail(t, ALC_ERR_SCENE,
                              "binary data in %s is truncated at byte %zu, expected %s (%zu bytes)",
                              t->section, t->pos, what, n);
    }
    memcpy(out, t->buf + t->pos, n);
    for (size_t i = 0; i < n; i++) t->line += t->buf[t->pos + i] == '\n';
    t->pos += n;
    return ALC_OK;
}

static alctStatus readBinInt(Msh* m, const char* what, long long* out) {
    int32_t v = 0;
    alctStatus s = readBytes(m, &v, sizeof v, what);
    *out = v;
    return s;
}

/// A size_t of the file's data size (4.1 binary).
static alctStatus readBinSize(Msh* m, const char* what, long long* out) {
    if (m->tagSize == 4) {
        uint32_t v = 0;
        alctStatus s = readBytes(m, &v, sizeof v, what);
        *out = (long long)v;
        return s;
    }
    uint64_t v = 0;
    alctStatus s = readBytes(m, &v, sizeof v, what);
    if (s == ALC_OK && v > (uint64_t)LLONG_MAX) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE, "%s in %s is out of range (%llu)", what,
                              m->txt.section, (unsigned long long)v);
    }
    *out = (long long)v;
    return s;
}

/// An int field: binary int32 or ASCII integer.
static alctStatus readIntField(Msh* m, int crossLines, const char* what, long long* out) {
    return m->binary ? readBinInt(m, what, out) : alci_text_readInt(&m->txt, crossLines, what, out);
}

/// A size_t field: 4.1 binary size_t or ASCII integer.
static alctStatus readSizeField(Msh* m, int crossLines, const char* what, long long* out) {
    return m->binary ? readBinSize(m, what, out)
                     : alci_text_readInt(&m->txt, crossLines, what, out);
}

static alctStatus readRealField(Msh* m, const char* what, double* out) {
    if (!m->binary) return alci_text_readReal(&m->txt, 1, what, out);
    alctStatus s = readBytes(m, out, sizeof *out, what);
    if (s == ALC_OK && !isfinite(*out)) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE, "%s in %s is not finite (%g)", what,
                              m->txt.section, *out);
    }
    return s;
}

// ---- helpers -----------------------------------------------------------------------------

/// Nodes of a Gmsh element type, 0 when unknown.
static int nodesPerElement(long long type) {
    static const int kNodes[32] = {0, 2,  3,  4,  4, 8,  6,  5,  3,  6,  9, 10, 27, 18, 14, 1,
                                   8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5,  6,  20, 35, 56};
    if (type >= 1 && type < 32) return kNodes[type];
    if (type == 92) return 64;
    if (type == 93) return 125;
    return 0;
}

static alctStatus vecPush(Msh* m, IntVec* v, const int* x, size_t k) {
    if (v->n + k > v->cap) {
        size_t cap = v->cap ? 2 * v->cap : 1024;
        if (cap / 4 > (size_t)INT_MAX) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE, "too many elements");
        }
        int* a = (int*)realloc(v->a, cap * sizeof(int));
        if (!a) return alci_text_fail(&m->txt, ALC_ERR_NOMEM, "out of memory");
        v->a = a;
        v->cap = cap;
    }
    memcpy(v->a + v->n, x, k * sizeof(int));
    v->n += k;
    return ALC_OK;
}

static int cmpTag(const void* pa, const void* pb) {
    const NodeTag* a = (const NodeTag*)pa;
    const NodeTag* b = (const NodeTag*)pb;
    return a->tag < b->tag ? -1 : (a->tag > b->tag ? 1 : 0);
}

/// Sort the node tags for lookup; duplicates are an error.
static alctStatus buildTagMap(Msh* m, int sectionLine) {
    qsort(m->tags, (size_t)m->nnode, sizeof(NodeTag), cmpTag);
    m->dense = 1;
    for (int i = 1; i < m->nnode; i++) {
        if (m->tags[i].tag == m->tags[i - 1].tag) {
            m->txt.line = sectionLine;
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "node tag %lld is defined twice in $Nodes", m->tags[i].tag);
        }
        if (m->tags[i].tag != m->tags[0].tag + i) m->dense = 0;
    }
    return ALC_OK;
}

/// Dense index of a node tag, -1 when undefined.
static int lookupTag(const Msh* m, long long tag) {
    if (m->nnode == 0) return -1;
    if (m->dense) {
        long long i = tag - m->tags[0].tag;
        return (i >= 0 && i < m->nnode) ? m->tags[i].index : -1;
    }
    NodeTag key = {tag, 0};
    const NodeTag* hit =
        (const NodeTag*)bsearch(&key, m->tags, (size_t)m->nnode, sizeof(NodeTag), cmpTag);
    return hit ? hit->index : -1;
}

/// Resolve the node tags of a kept element and append it.
static alctStatus addElement(Msh* m, long long type, long long elemTag, const long long* nodes) {
    int k = type == MSH_TET ? 4 : 3;
    const char* name = type == MSH_TET ? "tetrahedron" : "triangle";
    int idx[4];
    for (int i = 0; i < k; i++) {
        idx[i] = lookupTag(m, nodes[i]);
        if (idx[i] < 0) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "%s (element %lld) refers to node %lld, but no node has that tag "
                                  "(%d nodes exist)",
                                  name, elemTag, nodes[i], m->nnode);
        }
        for (int j = 0; j < i; j++) {
            if (nodes[j] == nodes[i]) {
                return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                      "%s (element %lld) uses node %lld twice", name, elemTag,
                                      nodes[i]);
            }
        }
    }
    return vecPush(m, type == MSH_TET ? &m->tet : &m->tri, idx, (size_t)k);
}

/// Read the nn node tags of an element (same line in ASCII) and keep it if wanted.
static alctStatus readElementNodes(Msh* m, long long type, long long elemTag, int nn, int sizeT) {
    long long nodes[125];
    for (int i = 0; i < nn; i++) {
        alctStatus s = sizeT ? readSizeField(m, 0, "node tag", &nodes[i])
                             : readIntField(m, 0, "node tag", &nodes[i]);
        if (s != ALC_OK) return s;
    }
    if (type == MSH_TET || type == MSH_TRI) return addElement(m, type, elemTag, nodes);
    return ALC_OK;
}

// ---- sections ----------------------------------------------------------------------------

static alctStatus readFormat(Msh* m) {
    m->txt.section = "$MeshFormat";
    size_t n;
    char show[ALCI_TEXT_SHOWN];
    const char* tok = alci_text_token(&m->txt, 1, &n);
    if (n == 0) return alci_text_missing(&m->txt, "the format version");
    char tmp[16];
    double v = 0.0;
    if (n < sizeof tmp) {
        memcpy(tmp, tok, n);
        tmp[n] = 0;
        char* end;
        v = strtod(tmp, &end);
        if (end != tmp + n) v = 0.0;
    }
    if (v == 2.0 || v == 2.1 || v == 2.2) {
        m->version = 22;
    } else if (v == 4.1) {
        m->version = 41;
    } else {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "unsupported Gmsh format version '%s' (supported: 2.2, 4.1)",
                              alci_text_shown(tok, n, show));
    }
    long long fileType, dataSize;
    alctStatus s = alci_text_readInt(&m->txt, 0, "the file type (0 ASCII, 1 binary)", &fileType);
    if (s == ALC_OK) s = alci_text_readInt(&m->txt, 0, "the data size", &dataSize);
    if (s != ALC_OK) return s;
    if (fileType != 0 && fileType != 1) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "file type %lld is neither 0 (ASCII) nor 1 (binary)", fileType);
    }
    m->binary = (int)fileType;
    if (m->binary && m->version == 22 && dataSize != 8) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "data size %lld is not supported (expected 8)", dataSize);
    }
    if (m->binary && m->version == 41 && dataSize != 4 && dataSize != 8) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "data size %lld is not supported (expected 4 or 8)", dataSize);
    }
    m->tagSize = (int)dataSize;
    if ((s = alci_text_endLine(&m->txt, 1)) != ALC_OK) return s;
    // binary files: the integer 1 tells the byte order
    if (m->binary) {
        int32_t one = 0;
        if ((s = readBytes(m, &one, sizeof one, "the byte order marker 1")) != ALC_OK) return s;
        uint32_t u = (uint32_t)one;
        uint32_t swapped = (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
        if (swapped == 1u) {
            return alci_text_fail(
                &m->txt, ALC_ERR_SCENE,
                "binary data has the opposite byte order (endianness marker reads %d, "
                "expected 1)",
                (int)one);
        }
        if (one != 1) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE, "bad endianness marker %d (expected 1)",
                                  (int)one);
        }
    }
    return expectWord(m, "$EndMeshFormat");
}

/// Allocate the node arrays for count nodes.
static alctStatus allocNodes(Msh* m, long long count) {
    m->vert = (double*)malloc((size_t)(count > 0 ? count : 1) * 3 * sizeof(double));
    m->tags = (NodeTag*)malloc((size_t)(count > 0 ? count : 1) * sizeof(NodeTag));
    if (!m->vert || !m->tags) {
        return alci_text_fail(&m->txt, ALC_ERR_NOMEM, "out of memory for %lld nodes", count);
    }
    return ALC_OK;
}

static alctStatus readTag(Msh* m, int i, long long tag) {
    if (tag <= 0) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE, "node tag %lld is not positive", tag);
    }
    m->tags[i].tag = tag;
    m->tags[i].index = i;
    return ALC_OK;
}

static alctStatus readNodes22(Msh* m) {
    long long count;
    alctStatus s = alci_text_readInt(&m->txt, 1, "the number of nodes", &count);
    if (s == ALC_OK) {
        s = alci_text_checkCount(&m->txt, count, INT_MAX / 3, m->binary ? 28 : 8, "nodes");
    }
    if (s == ALC_OK) s = alci_text_endLine(&m->txt, 1);
    if (s == ALC_OK) s = allocNodes(m, count);
    for (int i = 0; s == ALC_OK && i < count; i++) {
        long long tag;
        s = readIntField(m, 1, "node tag", &tag);
        if (s == ALC_OK) s = readTag(m, i, tag);
        for (int a = 0; s == ALC_OK && a < 3; a++) {
            static const char* kCoord[3] = {"x coordinate", "y coordinate", "z coordinate"};
            s = readRealField(m, kCoord[a], m->vert + 3 * i + a);
        }
        m->nnode = i + 1;
    }
    return s;
}

static alctStatus readElements22(Msh* m) {
    long long count;
    alctStatus s = alci_text_readInt(&m->txt, 1, "the number of elements", &count);
    if (s == ALC_OK) s = alci_text_checkCount(&m->txt, count, LLONG_MAX, 8, "elements");
    if (s == ALC_OK) s = alci_text_endLine(&m->txt, 1);
    if (s != ALC_OK) return s;
    if (!m->binary) {
        // one element a line: number type ntags tags... nodes...
        for (long long e = 0; e < count; e++) {
            long long tag, type, ntags, x;
            if ((s = alci_text_readInt(&m->txt, 1, "element number", &tag)) != ALC_OK) return s;
            if ((s = alci_text_readInt(&m->txt, 0, "element type", &type)) != ALC_OK) return s;
            if ((s = alci_text_readInt(&m->txt, 0, "number of tags", &ntags)) != ALC_OK) return s;
            if (ntags < 0 || ntags > 1000) {
                return alci_text_fail(&m->txt, ALC_ERR_SCENE, "element %lld has %lld tags", tag,
                                      ntags);
            }
            for (long long t = 0; t < ntags; t++) {
                if ((s = alci_text_readInt(&m->txt, 0, "element tag", &x)) != ALC_OK) return s;
            }
            int nn = nodesPerElement(type);
            if (nn == 0 || (type != MSH_TET && type != MSH_TRI)) {
                skipLine(m);
                continue;
            }
            if ((s = readElementNodes(m, type, tag, nn, 0)) != ALC_OK) return s;
            if ((s = alci_text_endLine(&m->txt, 1)) != ALC_OK) return s;
        }
        return ALC_OK;
    }
    // binary: blocks of elements of one type behind a header (type, count, ntags)
    for (long long done = 0; done < count;) {
        long long type, follow, ntags, tag, x;
        if ((s = readBinInt(m, "element type", &type)) != ALC_OK) return s;
        if ((s = readBinInt(m, "element count", &follow)) != ALC_OK) return s;
        if ((s = readBinInt(m, "number of tags", &ntags)) != ALC_OK) return s;
        int nn = nodesPerElement(type);
        if (nn == 0) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "unknown element type %lld in binary $Elements", type);
        }
        if (follow <= 0 || follow > count - done || ntags < 0 || ntags > 1000) {
            return alci_text_fail(
                &m->txt, ALC_ERR_SCENE,
                "bad binary element block header (type %lld, %lld elements, %lld tags)", type,
                follow, ntags);
        }
        if ((s = alci_text_checkCount(&m->txt, follow, LLONG_MAX, (size_t)(4 * (1 + ntags + nn)),
                                      "elements")) != ALC_OK) {
            return s;
        }
        for (long long e = 0; e < follow; e++) {
            if ((s = readBinInt(m, "element number", &tag)) != ALC_OK) return s;
            for (long long t = 0; t < ntags; t++) {
                if ((s = readBinInt(m, "element tag", &x)) != ALC_OK) return s;
            }
            if ((s = readElementNodes(m, type, tag, nn, 0)) != ALC_OK) return s;
        }
        done += follow;
    }
    return ALC_OK;
}

static alctStatus readNodes41(Msh* m) {
    long long nblock, count, minTag, maxTag;
    alctStatus s = readSizeField(m, 1, "the number of entity blocks", &nblock);
    if (s == ALC_OK) s = readSizeField(m, 0, "the number of nodes", &count);
    if (s == ALC_OK) s = readSizeField(m, 0, "the minimum node tag", &minTag);
    if (s == ALC_OK) s = readSizeField(m, 0, "the maximum node tag", &maxTag);
    if (s == ALC_OK && !m->binary) s = alci_text_endLine(&m->txt, 1);
    size_t perNode = m->binary ? (size_t)m->tagSize + 24 : 8;
    if (s == ALC_OK) s = alci_text_checkCount(&m->txt, nblock, LLONG_MAX, 8, "node blocks");
    if (s == ALC_OK) s = alci_text_checkCount(&m->txt, count, INT_MAX / 3, perNode, "nodes");
    if (s == ALC_OK) s = allocNodes(m, count);
    for (long long b = 0; s == ALC_OK && b < nblock; b++) {
        long long dim, entity, param, inBlock;
        if ((s = readIntField(m, 1, "entity dimension", &dim)) != ALC_OK) return s;
        if ((s = readIntField(m, 0, "entity tag", &entity)) != ALC_OK) return s;
        if ((s = readIntField(m, 0, "parametric flag", &param)) != ALC_OK) return s;
        if ((s = readSizeField(m, 0, "number of nodes in the block", &inBlock)) != ALC_OK) {
            return s;
        }
        if (dim < 0 || dim > 3 || (param != 0 && param != 1)) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "bad node block header (dimension %lld, parametric %lld)", dim,
                                  param);
        }
        if (inBlock < 0 || inBlock > count - m->nnode) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "node block %lld holds %lld nodes, more than the %lld declared",
                                  b, inBlock, count);
        }
        // the block's tags, then its coordinates (and parametric coordinates)
        int first = m->nnode;
        for (long long i = 0; i < inBlock; i++) {
            long long tag;
            if ((s = readSizeField(m, 1, "node tag", &tag)) != ALC_OK) return s;
            if ((s = readTag(m, first + (int)i, tag)) != ALC_OK) return s;
        }
        int extra = param ? (int)dim : 0;
        for (long long i = 0; i < inBlock; i++) {
            static const char* kCoord[3] = {"x coordinate", "y coordinate", "z coordinate"};
            for (int a = 0; a < 3 + extra; a++) {
                double u, *dst = a < 3 ? m->vert + 3 * (first + i) + a : &u;
                if ((s = readRealField(m, a < 3 ? kCoord[a] : "parametric coordinate", dst)) !=
                    ALC_OK) {
                    return s;
                }
            }
            m->nnode = first + (int)i + 1;
        }
    }
    if (s == ALC_OK && m->nnode != count) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "the node blocks hold %d nodes, but %lld are declared", m->nnode,
                              count);
    }
    return s;
}

static alctStatus readElements41(Msh* m) {
    long long nblock, count, minTag, maxTag;
    alctStatus s = readSizeField(m, 1, "the number of entity blocks", &nblock);
    if (s == ALC_OK) s = readSizeField(m, 0, "the number of elements", &count);
    if (s == ALC_OK) s = readSizeField(m, 0, "the minimum element tag", &minTag);
    if (s == ALC_OK) s = readSizeField(m, 0, "the maximum element tag", &maxTag);
    if (s == ALC_OK && !m->binary) s = alci_text_endLine(&m->txt, 1);
    if (s == ALC_OK) s = alci_text_checkCount(&m->txt, nblock, LLONG_MAX, 8, "element blocks");
    if (s == ALC_OK) s = alci_text_checkCount(&m->txt, count, LLONG_MAX, 4, "elements");
    long long done = 0;
    for (long long b = 0; s == ALC_OK && b < nblock; b++) {
        long long dim, entity, type, inBlock;
        if ((s = readIntField(m, 1, "entity dimension", &dim)) != ALC_OK) return s;
        if ((s = readIntField(m, 0, "entity tag", &entity)) != ALC_OK) return s;
        if ((s = readIntField(m, 0, "element type", &type)) != ALC_OK) return s;
        if ((s = readSizeField(m, 0, "number of elements in the block", &inBlock)) != ALC_OK) {
            return s;
        }
        int nn = nodesPerElement(type);
        if (nn == 0 && m->binary) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "unknown element type %lld in binary $Elements", type);
        }
        if (inBlock < 0 || inBlock > count - done) {
            return alci_text_fail(
                &m->txt, ALC_ERR_SCENE,
                "element block %lld holds %lld elements, more than the %lld declared", b, inBlock,
                count);
        }
        if (m->binary &&
            (s = alci_text_checkCount(&m->txt, inBlock, LLONG_MAX, (size_t)(m->tagSize * (1 + nn)),
                                      "elements")) != ALC_OK) {
            return s;
        }
        for (long long e = 0; e < inBlock; e++) {
            long long tag;
            if ((s = readSizeField(m, 1, "element tag", &tag)) != ALC_OK) return s;
            if (!m->binary && (nn == 0 || (type != MSH_TET && type != MSH_TRI))) {
                skipLine(m);
                continue;
            }
            if ((s = readElementNodes(m, type, tag, nn, 1)) != ALC_OK) return s;
            if (!m->binary && (s = alci_text_endLine(&m->txt, 1)) != ALC_OK) return s;
        }
        done += inBlock;
    }
    if (s == ALC_OK && done != count) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "the element blocks hold %lld elements, but %lld are declared", done,
                              count);
    }
    return s;
}

/// Skip an unknown section up to its $End marker at the start of a line.
static alctStatus skipSection(Msh* m, const char* name, size_t n) {
    alciText* t = &m->txt;
    char end[72];
    int startLine = t->line;
    if (n > 64) n = 64;
    snprintf(end, sizeof end, "$End%.*s", (int)n - 1, name + 1);
    size_t k = strlen(end);
    for (size_t p = t->pos; p < t->len; p++) {
        if (t->buf[p] == '\n') {
            t->line++;
            if (t->len - (p + 1) >= k && memcmp(t->buf + p + 1, end, k) == 0) {
                t->pos = p + 1 + k;
                return ALC_OK;
            }
        }
    }
    t->line = startLine;
    return alci_text_fail(t, ALC_ERR_SCENE, "missing %s (section opened here)", end);
}

/// Parse the whole buffer.
static alctStatus parse(Msh* m) {
    m->txt.section = "the file";
    size_t n;
    char show[ALCI_TEXT_SHOWN];
    const char* tok = alci_text_token(&m->txt, 1, &n);
    if (n != 11 || memcmp(tok, "$MeshFormat", 11) != 0) {
        return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                              "not a Gmsh mesh: expected $MeshFormat, found '%s'",
                              alci_text_shown(tok, n, show));
    }
    alctStatus s = readFormat(m);
    int haveNodes = 0, haveElements = 0;
    while (s == ALC_OK) {
        tok = alci_text_token(&m->txt, 1, &n);
        if (n == 0) break;
        int sectionLine = m->txt.line;
        if (tok[0] != '$' || (n >= 4 && memcmp(tok, "$End", 4) == 0) ||
            (n == 11 && memcmp(tok, "$MeshFormat", 11) == 0)) {
            return alci_text_fail(&m->txt, ALC_ERR_SCENE,
                                  "expected a section such as $Nodes, found '%s'",
                                  alci_text_shown(tok, n, show));
        }
        if (n == 6 && memcmp(tok, "$Nodes", 6) == 0) {
            if (haveNodes) return alci_text_fail(&m->txt, ALC_ERR_SCENE, "second $Nodes section");
            m->txt.section = "$Nodes";
            s = alci_text_endLine(&m->txt, 1);
            if (s == ALC_OK) s = m->version == 22 ? readNodes22(m) : readNodes41(m);
            if (s == ALC_OK) s = expectWord(m, "$EndNodes");
            if (s == ALC_OK) s = buildTagMap(m, sectionLine);
            haveNodes = 1;
        } else if (n == 9 && memcmp(tok, "$Elements", 9) == 0) {
            if (!haveNodes) {
                return alci_text_fail(&m->txt, ALC_ERR_SCENE, "$Elements comes before $Nodes");
            }
            if (haveElements) {
                return alci_text_fail(&m->txt, ALC_ERR_SCENE, "second $Elements section");
            }
            m->txt.section = "$Elements";
            s = alci_text_endLine(&m->txt, 1);
            if (s == ALC_OK) s = m->version == 22 ? readElements22(m) : readElements41(m);
            if (s == ALC_OK) s = expectWord(m, "$EndElements");
            haveElements = 1;
        } else {
            s = skipSection(m, tok, n);
        }
    }
    if (s != ALC_OK) return s;
    if (!haveNodes) return alci_text_fail(&m->txt, ALC_ERR_SCENE, "no $Nodes section");
    if (!haveElements) return alci_text_fail(&m->txt, ALC_ERR_SCENE, "no $Elements section");
    return ALC_OK;
}

alctStatus alci_mesh_readMsh(const char* path, alciMesh* mesh, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!path) return ALC_ERR_INVALID_ARG;
    Msh m;
    memset(&m, 0, sizeof m);
    alctStatus s = alci_text_open(&m.txt, path, 0, err, errsz);
    if (s == ALC_OK) s = parse(&m);
    alci_text_close(&m.txt);
    free(m.tags);
    if (s != ALC_OK) {
        free(m.vert);
        free(m.tet.a);
        free(m.tri.a);
        return s;
    }
    mesh->nvert = m.nnode;
    mesh->vert = m.vert;
    mesh->ntet = (int)(m.tet.n / 4);
    mesh->tet = m.tet.a;
    mesh->ntri = (int)(m.tri.n / 3);
    mesh->tri = m.tri.a;
    return ALC_OK;
}
