// YAML tree from libyaml events, typed getters with positions, parameter expressions.
#include "scene_yaml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

// every node of a document is chained from the root so that aliases are freed once
typedef struct NodeBox_ {
    alciYNode node;
    struct NodeBox_* chain;
} NodeBox;

int alciy_fail(alciYCtx* ctx, const alciYNode* at, const char* fmt, ...) {
    if (ctx->failed) return 0;
    ctx->failed = 1;
    if (!ctx->err || ctx->errsz <= 0) return 0;
    int k = at ? snprintf(ctx->err, (size_t)ctx->errsz, "%s:%d:%d: ", ctx->file, at->line, at->col)
               : snprintf(ctx->err, (size_t)ctx->errsz, "%s: ", ctx->file);
    if (k < 0 || k >= ctx->errsz) return 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err + k, (size_t)(ctx->errsz - k), fmt, ap);
    va_end(ap);
    return 0;
}

// ---- tree building ----------------------------------------------------------------------------

typedef struct {
    NodeBox* first;
    NodeBox* last;
    struct {
        char* name;
        alciYNode* node;
    } anchor[256];
    int nanchor;
} Builder;

static alciYNode* newNode(Builder* b, int kind, const yaml_mark_t* mark) {
    NodeBox* nb = (NodeBox*)calloc(1, sizeof(NodeBox));
    if (!nb) return NULL;
    nb->node.kind = kind;
    nb->node.line = (int)mark->line + 1;
    nb->node.col = (int)mark->column + 1;
    if (b->last)
        b->last->chain = nb;
    else
        b->first = nb;
    b->last = nb;
    return &nb->node;
}

static int addAnchor(Builder* b, alciYCtx* ctx, const unsigned char* name, alciYNode* n) {
    if (!name) return 1;
    if (b->nanchor >= 256) return alciy_fail(ctx, n, "too many anchors (at most 256)");
    b->anchor[b->nanchor].name = strdup((const char*)name);
    b->anchor[b->nanchor].node = n;
    b->nanchor++;
    return 1;
}

/// Append child to a sequence or mapping (as the value of the pending key).
static int appendChild(alciYCtx* ctx, alciYNode* parent, alciYNode* child, alciYNode** pendingKey) {
    if (parent->kind == ALCY_SEQ) {
        alciYNode** it =
            (alciYNode**)realloc(parent->item, sizeof(alciYNode*) * (size_t)(parent->n + 1));
        if (!it) return alciy_fail(ctx, child, "out of memory");
        parent->item = it;
        parent->item[parent->n++] = child;
        return 1;
    }
    // mapping: alternate key, value
    if (!*pendingKey) {
        if (child->kind != ALCY_SCALAR)
            return alciy_fail(ctx, child, "mapping keys must be plain strings");
        for (int i = 0; i < parent->n; i++) {
            if (strcmp(parent->key[i]->str, child->str) == 0) {
                return alciy_fail(ctx, child, "duplicate key '%s' (first at line %d)", child->str,
                                  parent->key[i]->line);
            }
        }
        *pendingKey = child;
        return 1;
    }
    alciYNode** it =
        (alciYNode**)realloc(parent->item, sizeof(alciYNode*) * (size_t)(parent->n + 1));
    if (!it) return alciy_fail(ctx, child, "out of memory");
    parent->item = it;
    alciYNode** ky =
        (alciYNode**)realloc(parent->key, sizeof(alciYNode*) * (size_t)(parent->n + 1));
    if (!ky) return alciy_fail(ctx, child, "out of memory");
    parent->key = ky;
    unsigned char* us = (unsigned char*)realloc(parent->used, (size_t)(parent->n + 1));
    if (!us) return alciy_fail(ctx, child, "out of memory");
    parent->used = us;
    parent->key[parent->n] = *pendingKey;
    parent->item[parent->n] = child;
    parent->used[parent->n] = 0;
    parent->n++;
    *pendingKey = NULL;
    return 1;
}

static void freeChain(NodeBox* nb) {
    while (nb) {
        NodeBox* next = nb->chain;
        free(nb->node.str);
        free(nb->node.item);
        free(nb->node.key);
        free(nb->node.used);
        free(nb);
        nb = next;
    }
}

alciYNode* alciy_load(alciYCtx* ctx, const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) {
        alciy_fail(ctx, NULL, "cannot open: %s", strerror(errno));
        return NULL;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(f);
        alciy_fail(ctx, NULL, "cannot initialize the YAML parser");
        return NULL;
    }
    yaml_parser_set_input_file(&parser, f);
    Builder b;
    memset(&b, 0, sizeof b);
    alciYNode* stack[128];
    alciYNode* pending[128];
    int depth = 0;
    alciYNode* root = NULL;
    int done = 0, ok = 1, docs = 0;
    while (!done && ok) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            alciYNode at;
            memset(&at, 0, sizeof at);
            at.line = (int)parser.problem_mark.line + 1;
            at.col = (int)parser.problem_mark.column + 1;
            alciy_fail(ctx, &at, "YAML syntax error: %s%s%s", parser.problem ? parser.problem : "?",
                       parser.context ? " " : "", parser.context ? parser.context : "");
            ok = 0;
            break;
        }
        alciYNode* n = NULL;
        switch (ev.type) {
            case YAML_STREAM_END_EVENT:
                done = 1;
                break;
            case YAML_DOCUMENT_START_EVENT:
                if (++docs > 1) {
                    alciYNode at = {0,
                                    (int)ev.start_mark.line + 1,
                                    (int)ev.start_mark.column + 1,
                                    0,
                                    NULL,
                                    0,
                                    NULL,
                                    NULL,
                                    NULL};
                    ok = alciy_fail(ctx, &at, "only one YAML document per scene file");
                }
                break;
            case YAML_SCALAR_EVENT:
                n = newNode(&b, ALCY_SCALAR, &ev.start_mark);
                if (!n) {
                    ok = alciy_fail(ctx, NULL, "out of memory");
                    break;
                }
                n->str = strdup((const char*)ev.data.scalar.value);
                n->quoted = ev.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                            ev.data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
                ok = addAnchor(&b, ctx, ev.data.scalar.anchor, n);
                break;
            case YAML_SEQUENCE_START_EVENT:
            case YAML_MAPPING_START_EVENT:
                n = newNode(&b, ev.type == YAML_SEQUENCE_START_EVENT ? ALCY_SEQ : ALCY_MAP,
                            &ev.start_mark);
                if (!n) {
                    ok = alciy_fail(ctx, NULL, "out of memory");
                    break;
                }
                ok = addAnchor(&b, ctx,
                               ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                                    : ev.data.mapping_start.anchor,
                               n);
                break;
            case YAML_ALIAS_EVENT: {
                for (int i = 0; i < b.nanchor; i++) {
                    if (strcmp(b.anchor[i].name, (const char*)ev.data.alias.anchor) == 0) {
                        n = b.anchor[i].node;
                    }
                }
                if (!n) {
                    alciYNode at = {0,
                                    (int)ev.start_mark.line + 1,
                                    (int)ev.start_mark.column + 1,
                                    0,
                                    NULL,
                                    0,
                                    NULL,
                                    NULL,
                                    NULL};
                    ok = alciy_fail(ctx, &at, "unknown alias '*%s'", ev.data.alias.anchor);
                }
                break;
            }
            case YAML_SEQUENCE_END_EVENT:
            case YAML_MAPPING_END_EVENT:
                if (depth > 0) {
                    alciYNode* closed = stack[--depth];
                    if (closed->kind == ALCY_MAP && pending[depth]) {
                        ok = alciy_fail(ctx, pending[depth], "key '%s' has no value",
                                        pending[depth]->str);
                    }
                    if (ok && depth > 0)
                        ok = appendChild(ctx, stack[depth - 1], closed, &pending[depth - 1]);
                    if (ok && depth == 0) root = closed;
                }
                break;
            default:
                break;
        }
        // attach finished scalars/aliases, push collections
        if (ok && n && (ev.type == YAML_SCALAR_EVENT || ev.type == YAML_ALIAS_EVENT)) {
            if (depth > 0)
                ok = appendChild(ctx, stack[depth - 1], n, &pending[depth - 1]);
            else
                root = n;
        } else if (ok && n) {
            if (depth >= 128) {
                ok = alciy_fail(ctx, n, "nesting deeper than 128 levels");
            } else {
                pending[depth] = NULL;
                stack[depth++] = n;
            }
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    for (int i = 0; i < b.nanchor; i++) free(b.anchor[i].name);
    if (!ok || !root) {
        if (ok && !root) alciy_fail(ctx, NULL, "the file is empty");
        freeChain(b.first);
        return NULL;
    }
    // the root must head the chain for alciy_free: move its box to the front
    NodeBox* rb = (NodeBox*)(void*)root;
    if (b.first != rb) {
        NodeBox* prev = b.first;
        while (prev->chain != rb) prev = prev->chain;
        prev->chain = rb->chain;
        rb->chain = b.first;
    }
    return root;
}

void alciy_free(alciYNode* root) {
    if (!root) return;
    freeChain((NodeBox*)(void*)root);
}

// ---- lookups ---------------------------------------------------------------------------------

alciYNode* alciy_get(alciYNode* map, const char* key) {
    if (!map || map->kind != ALCY_MAP) return NULL;
    for (int i = 0; i < map->n; i++) {
        if (strcmp(map->key[i]->str, key) == 0) {
            map->used[i] = 1;
            return map->item[i];
        }
    }
    return NULL;
}

int alciy_expectMap(alciYCtx* ctx, alciYNode* node, const char* what) {
    if (node && node->kind == ALCY_MAP) return 1;
    return alciy_fail(ctx, node, "%s must be a mapping (key: value lines)", what);
}

/// Levenshtein distance for "did you mean" hints.
static int editDistance(const char* a, const char* b) {
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 63 || lb > 63) return 99;
    int d[64][64];
    for (int i = 0; i <= la; i++) d[i][0] = i;
    for (int j = 0; j <= lb; j++) d[0][j] = j;
    for (int i = 1; i <= la; i++) {
        for (int j = 1; j <= lb; j++) {
            int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
            d[i][j] = c;
        }
    }
    return d[la][lb];
}

int alciy_checkKeys(alciYCtx* ctx, alciYNode* map, const char* const* known) {
    if (!map || map->kind != ALCY_MAP) return 1;
    for (int i = 0; i < map->n; i++) {
        if (map->used[i]) continue;
        const char* best = NULL;
        int bd = 3;
        char list[512];
        size_t len = 0;
        list[0] = 0;
        for (int k = 0; known[k]; k++) {
            int d = editDistance(map->key[i]->str, known[k]);
            // a known key that starts with the unknown one (youngs -> youngs_modulus)
            if (strlen(map->key[i]->str) >= 3 &&
                strncmp(known[k], map->key[i]->str, strlen(map->key[i]->str)) == 0) {
                d = 0;
            }
            if (d < bd) {
                bd = d;
                best = known[k];
            }
            int w = snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", known[k]);
            if (w > 0 && (size_t)w < sizeof list - len) len += (size_t)w;
        }
        if (best) {
            return alciy_fail(ctx, map->key[i], "unknown key '%s' (did you mean '%s'?)",
                              map->key[i]->str, best);
        }
        return alciy_fail(ctx, map->key[i], "unknown key '%s' (allowed: %s)", map->key[i]->str,
                          list);
    }
    return 1;
}

// ---- numbers and expressions -----------------------------------------------------------------

typedef struct {
    const char* s;
    alciYCtx* ctx;
    const alciYNode* at;
    int bad;
} Expr;

static void skipSpace(Expr* e) {
    while (*e->s == ' ' || *e->s == '\t') e->s++;
}

static double parseSum(Expr* e);

static double parseAtom(Expr* e) {
    skipSpace(e);
    if (e->bad) return 0;
    if (*e->s == '(') {
        e->s++;
        double v = parseSum(e);
        skipSpace(e);
        if (*e->s != ')') {
            e->bad = 1;
            alciy_fail(e->ctx, e->at, "expression '%s': missing ')'", e->at->str);
            return 0;
        }
        e->s++;
        return v;
    }
    if (*e->s == '-') {
        e->s++;
        return -parseAtom(e);
    }
    if (*e->s == '+') {
        e->s++;
        return parseAtom(e);
    }
    if (*e->s == '$') {
        e->s++;
        char name[64];
        int k = 0;
        while ((isalnum((unsigned char)*e->s) || *e->s == '_') && k < 63) name[k++] = *e->s++;
        name[k] = 0;
        for (int i = 0; i < e->ctx->nparam; i++) {
            if (strcmp(e->ctx->paramName[i], name) == 0) return e->ctx->paramValue[i];
        }
        e->bad = 1;
        alciy_fail(e->ctx, e->at, "unknown parameter '$%s' (define it under params:)", name);
        return 0;
    }
    if (strncmp(e->s, "pi", 2) == 0 && !isalnum((unsigned char)e->s[2])) {
        e->s += 2;
        return M_PI;
    }
    if (isalpha((unsigned char)*e->s)) {
        // a function of one argument (radians for the trigonometric ones)
        char name[16];
        int k = 0;
        while (isalpha((unsigned char)*e->s) && k < 15) name[k++] = *e->s++;
        name[k] = 0;
        skipSpace(e);
        static const char* const fn[] = {"sin",  "cos", "tan",     "asin",    "acos", "atan",
                                         "sqrt", "abs", "radians", "degrees", NULL};
        int f = -1;
        for (int i = 0; fn[i]; i++) {
            if (!strcmp(name, fn[i])) f = i;
        }
        if (f < 0 || *e->s != '(') {
            e->bad = 1;
            alciy_fail(e->ctx, e->at,
                       "expression '%s': unknown name '%s' (functions: sin, cos, tan, "
                       "asin, acos, atan, sqrt, abs, radians, degrees; parameters start with $)",
                       e->at->str, name);
            return 0;
        }
        double a = parseAtom(e);
        if (e->bad) return 0;
        switch (f) {
            case 0:
                return sin(a);
            case 1:
                return cos(a);
            case 2:
                return tan(a);
            case 3:
                return asin(a);
            case 4:
                return acos(a);
            case 5:
                return atan(a);
            case 6:
                return sqrt(a);
            case 7:
                return fabs(a);
            case 8:
                return a * M_PI / 180;
            default:
                return a * 180 / M_PI;
        }
    }
    char* end = NULL;
    double v = strtod(e->s, &end);
    if (end == e->s) {
        e->bad = 1;
        alciy_fail(e->ctx, e->at, "'%s' is not a number or expression", e->at->str);
        return 0;
    }
    e->s = end;
    return v;
}

static double parseProduct(Expr* e) {
    double v = parseAtom(e);
    for (;;) {
        skipSpace(e);
        if (*e->s == '*') {
            e->s++;
            v *= parseAtom(e);
        } else if (*e->s == '/') {
            e->s++;
            double d = parseAtom(e);
            if (d == 0 && !e->bad) {
                e->bad = 1;
                alciy_fail(e->ctx, e->at, "expression '%s' divides by zero", e->at->str);
                return 0;
            }
            v /= d;
        } else {
            return v;
        }
    }
}

static double parseSum(Expr* e) {
    double v = parseProduct(e);
    for (;;) {
        skipSpace(e);
        if (*e->s == '+') {
            e->s++;
            v += parseProduct(e);
        } else if (*e->s == '-') {
            e->s++;
            v -= parseProduct(e);
        } else {
            return v;
        }
    }
}

int alciy_number(alciYCtx* ctx, alciYNode* node, double* out) {
    if (!node || node->kind != ALCY_SCALAR) {
        return alciy_fail(ctx, node, "expected a number, found a %s",
                          node && node->kind == ALCY_SEQ ? "list" : "mapping");
    }
    const char* s = node->str;
    if (node->quoted && !strchr(s, '$'))
        return alciy_fail(ctx, node, "expected a number, found the string \"%s\"", s);
    if (strcmp(s, ".inf") == 0 || strcmp(s, ".Inf") == 0 || strcmp(s, "inf") == 0) {
        *out = HUGE_VAL;
        return 1;
    }
    if (strcmp(s, "-.inf") == 0 || strcmp(s, "-inf") == 0) {
        *out = -HUGE_VAL;
        return 1;
    }
    char* end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s && *end == 0 && errno == 0 && isfinite(v)) {
        *out = v;
        return 1;
    }
    // an expression over parameters
    Expr e = {s, ctx, node, 0};
    v = parseSum(&e);
    if (e.bad) return 0;
    skipSpace(&e);
    if (*e.s != 0) return alciy_fail(ctx, node, "'%s' is not a number or expression", s);
    if (!isfinite(v)) return alciy_fail(ctx, node, "'%s' is not finite", s);
    *out = v;
    return 1;
}

static int checkRange(alciYCtx* ctx, alciYNode* n, const char* key, double v, double lo,
                      double hi) {
    if (v < lo || v > hi) {
        if (isinf(hi))
            return alciy_fail(ctx, n, "%s = %g is out of range (must be >= %g)", key, v, lo);
        return alciy_fail(ctx, n, "%s = %g is out of range [%g, %g]", key, v, lo, hi);
    }
    return 1;
}

int alciy_getNumber(alciYCtx* ctx, alciYNode* map, const char* key, double* out, double lo,
                    double hi, int required) {
    alciYNode* n = alciy_get(map, key);
    if (!n) return required ? alciy_fail(ctx, map, "missing required key '%s'", key) : 1;
    double v;
    if (!alciy_number(ctx, n, &v)) return 0;
    if (!checkRange(ctx, n, key, v, lo, hi)) return 0;
    *out = v;
    return 1;
}

int alciy_getInt(alciYCtx* ctx, alciYNode* map, const char* key, int* out, int lo, int hi,
                 int required) {
    alciYNode* n = alciy_get(map, key);
    if (!n) return required ? alciy_fail(ctx, map, "missing required key '%s'", key) : 1;
    double v;
    if (!alciy_number(ctx, n, &v)) return 0;
    double r = floor(v + 0.5);
    if (fabs(v - r) > 1e-9 * (1 + fabs(v)))
        return alciy_fail(ctx, n, "%s = %g must be an integer", key, v);
    if (!checkRange(ctx, n, key, r, lo, hi)) return 0;
    *out = (int)r;
    return 1;
}

int alciy_getBool(alciYCtx* ctx, alciYNode* map, const char* key, int* out) {
    alciYNode* n = alciy_get(map, key);
    if (!n) return 1;
    if (n->kind == ALCY_SCALAR) {
        const char* s = n->str;
        if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on") || !strcmp(s, "1")) {
            *out = 1;
            return 1;
        }
        if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off") || !strcmp(s, "0")) {
            *out = 0;
            return 1;
        }
    }
    return alciy_fail(ctx, n, "%s must be true or false", key);
}

int alciy_getVec(alciYCtx* ctx, alciYNode* map, const char* key, double* out, int n,
                 int allowScalar, int required) {
    alciYNode* v = alciy_get(map, key);
    if (!v) return required ? alciy_fail(ctx, map, "missing required key '%s'", key) : 1;
    if (v->kind == ALCY_SCALAR && allowScalar) {
        double s;
        if (!alciy_number(ctx, v, &s)) return 0;
        for (int i = 0; i < n; i++) out[i] = s;
        return 1;
    }
    if (v->kind != ALCY_SEQ || v->n != n) {
        return alciy_fail(ctx, v, "%s must be a list of %d numbers%s", key, n,
                          allowScalar ? " (or one number)" : "");
    }
    double tmp[16];
    for (int i = 0; i < n && i < 16; i++) {
        if (!alciy_number(ctx, v->item[i], &tmp[i])) return 0;
    }
    for (int i = 0; i < n; i++) out[i] = tmp[i];
    return 1;
}

int alciy_getIntVec(alciYCtx* ctx, alciYNode* map, const char* key, int* out, int n,
                    int allowScalar, int lo, int hi, int required) {
    double tmp[16];
    int has = alciy_get(map, key) != NULL;
    if (!has) return required ? alciy_fail(ctx, map, "missing required key '%s'", key) : 1;
    // re-mark: alciy_getVec looks the key up again
    if (!alciy_getVec(ctx, map, key, tmp, n, allowScalar, 1)) return 0;
    alciYNode* v = alciy_get(map, key);
    for (int i = 0; i < n; i++) {
        double r = floor(tmp[i] + 0.5);
        if (fabs(tmp[i] - r) > 1e-9 * (1 + fabs(tmp[i])) || r < lo || r > hi) {
            return alciy_fail(ctx, v, "%s: entry %d = %g must be an integer in [%d, %d]", key, i,
                              tmp[i], lo, hi);
        }
        out[i] = (int)r;
    }
    return 1;
}

int alciy_getString(alciYCtx* ctx, alciYNode* map, const char* key, const char** out,
                    int required) {
    alciYNode* n = alciy_get(map, key);
    if (!n) return required ? alciy_fail(ctx, map, "missing required key '%s'", key) : 1;
    if (n->kind != ALCY_SCALAR) return alciy_fail(ctx, n, "%s must be a string", key);
    *out = n->str;
    return 1;
}

int alciy_getEnum(alciYCtx* ctx, alciYNode* map, const char* key, const char* const* names,
                  const int* values, int* out) {
    alciYNode* n = alciy_get(map, key);
    if (!n) return 1;
    if (n->kind == ALCY_SCALAR) {
        for (int i = 0; names[i]; i++) {
            if (strcmp(n->str, names[i]) == 0) {
                *out = values[i];
                return 1;
            }
        }
    }
    char list[256];
    size_t len = 0;
    list[0] = 0;
    for (int i = 0; names[i]; i++) {
        int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
        if (w > 0 && (size_t)w < sizeof list - len) len += (size_t)w;
    }
    return alciy_fail(ctx, n, "%s must be one of: %s", key, list);
}
