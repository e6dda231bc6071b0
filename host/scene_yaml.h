// A small YAML document tree built from libyaml's event API, with typed getters that report
// "file:line:col: what is wrong" and track which mapping keys were used, so that unknown keys
// are errors. Numbers may be written as parameter expressions ("$res * 2").
#ifndef ALC_HOST_SCENE_YAML_H_
#define ALC_HOST_SCENE_YAML_H_

#include "alc/alc_types.h"

enum { ALCY_SCALAR = 1, ALCY_SEQ, ALCY_MAP };

typedef struct alciYNode_ alciYNode;

struct alciYNode_ {
    int kind;             // ALCY_SCALAR, ALCY_SEQ, ALCY_MAP
    int line, col;        // 1-based position of the node
    int quoted;           // scalar was quoted (never a number)
    char* str;            // scalar text
    int n;                // items (SEQ) or entries (MAP)
    alciYNode** item;     // SEQ items / MAP values
    alciYNode** key;      // MAP keys (scalars)
    unsigned char* used;  // MAP: entry consumed by the schema walk
};

/// Parsing context: file name, error buffer, parameters for expressions.
typedef struct alciYCtx_ {
    const char* file;
    char* err;
    int errsz;
    int failed;
    int nparam;
    char** paramName;
    double* paramValue;
} alciYCtx;

/// Parse a YAML file into a tree (one document). Anchors and aliases are resolved (aliases
/// share the anchored node). Returns NULL with the message in ctx on failure.
alciYNode* alciy_load(alciYCtx* ctx, const char* path);

/// Free a tree (shared alias nodes are freed once).
void alciy_free(alciYNode* root);

/// Record an error at a node (the first error wins) and return 0.
int alciy_fail(alciYCtx* ctx, const alciYNode* at, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Value of key in a mapping, or NULL; marks the entry used.
alciYNode* alciy_get(alciYNode* map, const char* key);

/// True if the node is a mapping (else records "expected a mapping" and returns 0).
int alciy_expectMap(alciYCtx* ctx, alciYNode* node, const char* what);

/// Check that every key of a mapping was used; the first unknown key is an error that lists
/// the allowed keys (the NULL-terminated list known).
int alciy_checkKeys(alciYCtx* ctx, alciYNode* map, const char* const* known);

// typed getters: return 1 on success; on a missing key leave *out unchanged and return 1
// (optional) unless required; on a wrong type or range return 0 with the error recorded.

int alciy_number(alciYCtx* ctx, alciYNode* node, double* out);
int alciy_getNumber(alciYCtx* ctx, alciYNode* map, const char* key, double* out, double lo,
                    double hi, int required);
int alciy_getInt(alciYCtx* ctx, alciYNode* map, const char* key, int* out, int lo, int hi,
                 int required);
int alciy_getBool(alciYCtx* ctx, alciYNode* map, const char* key, int* out);
/// Fixed-length numeric list; a scalar is accepted for n = 3 when allowScalar (broadcast).
int alciy_getVec(alciYCtx* ctx, alciYNode* map, const char* key, double* out, int n,
                 int allowScalar, int required);
int alciy_getIntVec(alciYCtx* ctx, alciYNode* map, const char* key, int* out, int n,
                    int allowScalar, int lo, int hi, int required);
/// String value (pointer into the tree).
int alciy_getString(alciYCtx* ctx, alciYNode* map, const char* key, const char** out, int required);
/// One of the NULL-terminated names; *out = its index.
int alciy_getEnum(alciYCtx* ctx, alciYNode* map, const char* key, const char* const* names,
                  const int* values, int* out);

#endif  // ALC_HOST_SCENE_YAML_H_
