/* verikern_harness.h -- runs a verikern C encoding concretely (replay mode).
 *
 * Compile the file `verikern emit --ir c` wrote with
 *     cc -std=c11 -DVERIKERN_REPLAY -I<dir of this header> kernel.c -lm
 * and run it as `./a.out counterexample.json`.  The JSON is a counterexample
 * as `verikern prove --format json` writes it (the object with "dims",
 * "block_dim", "threads", "scalars", "shapes", "arrays"; array elements not
 * listed are zero).  Every input the CBMC harness takes from a nondet_*()
 * function is read from there instead; a failed check prints
 *     VERIKERN-FAIL <obligation id> <kind> <file>:<line>:<col>
 * once per obligation; asserts, invariants and barrier divergence end the run
 * (exit 1), bounds, division-by-zero and race failures let it go on (the
 * access is skipped, the division gives 0) and it exits 1 at the end; a broken
 * assumption (requires, hardware limit) prints VERIKERN-INADMISSIBLE and exits
 * 3, unreadable input prints VERIKERN-INPUT-ERROR and exits 4, a failed
 * allocation VERIKERN-NO-MEMORY and exits 5; a run without failure prints
 * VERIKERN-OK and exits 0.
 */
#ifndef VERIKERN_HARNESS_H
#define VERIKERN_HARNESS_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void vk_input_error(const char *what, const char *detail) {
    printf("VERIKERN-INPUT-ERROR %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    fflush(stdout);
    exit(4);
}

static inline void *vk_alloc(uint64_t n, size_t size) {
    if (size != 0 && n > (uint64_t)SIZE_MAX / size) {
        printf("VERIKERN-NO-MEMORY %llu elements\n", (unsigned long long)n);
        exit(5);
    }
    void *p = calloc(n ? (size_t)n : 1u, size);
    if (p == NULL) {
        printf("VERIKERN-NO-MEMORY %llu elements of %zu bytes\n", (unsigned long long)n, size);
        exit(5);
    }
    return p;
}

static inline void *vk_realloc(void *p, size_t bytes) {
    void *q = realloc(p, bytes);
    if (q == NULL) { printf("VERIKERN-NO-MEMORY race log\n"); exit(5); }
    return q;
}

/* shared memory starts as the simulator's poison: NaN floats, 0x5A bytes */
static inline void vk_poison(void *p, uint64_t n, size_t size, int is_float) {
    memset(p, 0x5A, (size_t)(n * size));
    if (!is_float) return;
    for (uint64_t i = 0; i < n; i++) {
#ifdef __FLT16_MAX__   /* _Float16 (gcc >= 12, clang >= 15): a float16 array's NaN */
        if (size == sizeof(_Float16)) ((_Float16 *)p)[i] = (_Float16)NAN;
        else
#endif
        if (size == sizeof(float)) ((float *)p)[i] = (float)NAN;
        else ((double *)p)[i] = (double)NAN;
    }
}

static int vk_failures = 0;
static int vk_group_failures = 0;

/* print a failed check once per message (an obligation fails in many threads) */
static inline void vk_report(const char *msg) {
    static const char *seen[512];
    static int nseen = 0;
    for (int i = 0; i < nseen; i++)
        if (seen[i] == msg || strcmp(seen[i], msg) == 0) return;
    if (nseen < 512) seen[nseen++] = msg;
    printf("VERIKERN-FAIL %s\n", msg);
    vk_failures++;
}

static inline void vk_report_group(const char *msg) {
    vk_report(msg);
    vk_group_failures++;
}

static inline void vk_end_group(void) {
    if (vk_group_failures) { fflush(stdout); exit(1); }
}

static inline void vk_fail(const char *msg) {
    vk_report(msg);
    fflush(stdout);
    exit(1);
}

static inline void vk_inadmissible(const char *msg) {
    printf("VERIKERN-INADMISSIBLE %s\n", msg);
    fflush(stdout);
    exit(3);
}

static inline void vk_ok(void) {
    if (vk_failures) { fflush(stdout); exit(1); }
    printf("VERIKERN-OK\n");
    fflush(stdout);
    exit(0);
}

/* ------------------------------------------------------------ a small JSON reader */
typedef enum { VK_J_NULL, VK_J_BOOL, VK_J_NUM, VK_J_STR, VK_J_ARR, VK_J_OBJ } vk_jkind;

typedef struct vk_json {
    vk_jkind kind;
    const char *text;          /* numbers: their text; strings: start (escapes kept) */
    size_t len;
    char *key;                 /* member name when inside an object (unescaped) */
    struct vk_json *items;     /* arrays and objects */
    size_t count;
} vk_json;

typedef struct { const char *p, *end; } vk_jcur;

static inline void vk_jspace(vk_jcur *c) {
    while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

static inline int vk_jlit(vk_jcur *c, const char *word) {
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) >= n && strncmp(c->p, word, n) == 0) { c->p += n; return 1; }
    return 0;
}

static inline char *vk_jstring(vk_jcur *c, size_t *len_out) {
    /* c->p at the opening quote; returns the unescaped string (\uXXXX -> '?') */
    const char *start = ++c->p;
    char *out = (char *)vk_alloc((uint64_t)(c->end - start) + 1, 1);
    size_t n = 0;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '\\' && c->p + 1 < c->end) {
            char e = c->p[1];
            c->p += 2;
            if (e == 'u') { c->p += 4; out[n++] = '?'; continue; }
            out[n++] = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' :
                       e == 'b' ? '\b' : e == 'f' ? '\f' : e;
            continue;
        }
        out[n++] = *c->p++;
    }
    if (c->p >= c->end) vk_input_error("unterminated string in the counterexample", start);
    c->p++;
    out[n] = 0;
    if (len_out) *len_out = n;
    return out;
}

static inline void vk_jvalue(vk_jcur *c, vk_json *v);

static inline void vk_jlist(vk_jcur *c, vk_json *v, char close, int members) {
    size_t cap = 8;
    v->items = (vk_json *)vk_alloc(cap, sizeof(vk_json));
    c->p++;
    vk_jspace(c);
    if (c->p < c->end && *c->p == close) { c->p++; return; }
    for (;;) {
        if (v->count == cap) {
            cap *= 2;
            v->items = (vk_json *)vk_realloc(v->items, cap * sizeof(vk_json));
        }
        vk_json *item = &v->items[v->count++];
        memset(item, 0, sizeof *item);
        vk_jspace(c);
        char *key = NULL;
        if (members) {
            if (c->p >= c->end || *c->p != '"') vk_input_error("expected a member name", c->p);
            key = vk_jstring(c, NULL);
            vk_jspace(c);
            if (c->p >= c->end || *c->p != ':') vk_input_error("expected ':'", c->p);
            c->p++;
        }
        vk_jvalue(c, item);
        item->key = key;
        vk_jspace(c);
        if (c->p < c->end && *c->p == ',') { c->p++; continue; }
        if (c->p < c->end && *c->p == close) { c->p++; return; }
        vk_input_error("expected ',' or the end of a list", c->p);
    }
}

static inline void vk_jvalue(vk_jcur *c, vk_json *v) {
    vk_jspace(c);
    if (c->p >= c->end) vk_input_error("unexpected end of the counterexample", NULL);
    v->text = c->p;
    char ch = *c->p;
    if (ch == '{') { v->kind = VK_J_OBJ; vk_jlist(c, v, '}', 1); }
    else if (ch == '[') { v->kind = VK_J_ARR; vk_jlist(c, v, ']', 0); }
    else if (ch == '"') { v->kind = VK_J_STR; v->text = vk_jstring(c, &v->len); }
    else if (vk_jlit(c, "true")) { v->kind = VK_J_BOOL; v->len = 1; }
    else if (vk_jlit(c, "false")) { v->kind = VK_J_BOOL; v->len = 0; }
    else if (vk_jlit(c, "null")) { v->kind = VK_J_NULL; }
    else {
        v->kind = VK_J_NUM;
        while (c->p < c->end && (isalnum((unsigned char)*c->p) || *c->p == '-' ||
                                 *c->p == '+' || *c->p == '.'))
            c->p++;
        v->len = (size_t)(c->p - v->text);
        if (v->len == 0) vk_input_error("unexpected character in the counterexample", c->p);
    }
}

static inline const vk_json *vk_jget(const vk_json *obj, const char *key) {
    if (obj == NULL || obj->kind != VK_J_OBJ) return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->items[i].key, key) == 0) return &obj->items[i];
    return NULL;
}

static inline const vk_json *vk_jat(const vk_json *arr, long i) {
    if (arr == NULL || arr->kind != VK_J_ARR || i < 0 || (size_t)i >= arr->count) return NULL;
    return &arr->items[i];
}

/* ------------------------------------------------------------ numbers */
typedef struct { int64_t i; uint64_t u; double d; } vk_number;

static inline vk_number vk_jnumber(const vk_json *v, const char *where) {
    vk_number n = {0, 0, 0.0};
    if (v == NULL) vk_input_error("missing value", where);
    if (v->kind == VK_J_BOOL) { n.i = (int64_t)v->len; n.u = v->len; n.d = (double)v->len; return n; }
    if (v->kind == VK_J_NULL) return n;
    if (v->kind != VK_J_NUM) vk_input_error("expected a number", where);
    char buf[64];
    size_t len = v->len < sizeof buf - 1 ? v->len : sizeof buf - 1;
    memcpy(buf, v->text, len);
    buf[len] = 0;
    if (strcmp(buf, "NaN") == 0) { n.d = (double)NAN; return n; }
    if (strcmp(buf, "Infinity") == 0) { n.d = (double)INFINITY; return n; }
    if (strcmp(buf, "-Infinity") == 0) { n.d = -(double)INFINITY; return n; }
    char *rest;
    n.d = strtod(buf, &rest);
    if (*rest != 0) vk_input_error("bad number", buf);
    if (strpbrk(buf, ".eE") == NULL) {
        if (buf[0] == '-') { n.i = (int64_t)strtoll(buf, NULL, 10); n.u = (uint64_t)n.i; }
        else { n.u = (uint64_t)strtoull(buf, NULL, 10); n.i = (int64_t)n.u; }
    } else {
        n.i = (n.d > -9.2e18 && n.d < 9.2e18) ? (int64_t)n.d : 0;
        n.u = (uint64_t)n.i;
    }
    return n;
}

static vk_json vk_input_root;

static inline void vk_harness_open(int argc, char **argv) {
    if (argc < 2) vk_input_error("usage: PROGRAM counterexample.json", NULL);
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) vk_input_error("cannot open", argv[1]);
    size_t cap = 1 << 16, n = 0;
    char *buf = (char *)vk_alloc(cap, 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) { cap *= 2; buf = (char *)vk_realloc(buf, cap); }
    }
    fclose(f);
    vk_jcur c = {buf, buf + n};
    vk_jvalue(&c, &vk_input_root);
    if (vk_input_root.kind != VK_J_OBJ) vk_input_error("the counterexample is not an object", NULL);
}

/* section[key][idx] (key NULL: section[idx]; idx < 0: no index) */
static inline const vk_json *vk_in_find(const char *section, const char *key, long idx) {
    const vk_json *v = vk_jget(&vk_input_root, section);
    if (v && v->kind == VK_J_ARR && idx >= 0 && key != NULL) {   /* threads[idx].key */
        return vk_jget(vk_jat(v, idx), key);
    }
    if (key != NULL) v = vk_jget(v, key);
    if (idx >= 0) v = vk_jat(v, idx);
    return v;
}

static inline const char *vk_in_where(const char *section, const char *key, long idx) {
    static char where[256];
    snprintf(where, sizeof where, "%s%s%s[%ld]", section, key ? "." : "", key ? key : "", idx);
    return where;
}

static inline int64_t vk_in_i64(const char *section, const char *key, long idx) {
    return vk_jnumber(vk_in_find(section, key, idx), vk_in_where(section, key, idx)).i;
}

static inline uint64_t vk_in_u64(const char *section, const char *key, long idx) {
    return vk_jnumber(vk_in_find(section, key, idx), vk_in_where(section, key, idx)).u;
}

static inline double vk_in_f64(const char *section, const char *key, long idx) {
    return vk_jnumber(vk_in_find(section, key, idx), vk_in_where(section, key, idx)).d;
}

static inline size_t vk_in_count(const char *section) {
    const vk_json *v = vk_jget(&vk_input_root, section);
    return v && v->kind == VK_J_ARR ? v->count : 0;
}

/* arrays.NAME is an object {"flat index": value, ...} */
static inline size_t vk_in_array_size(const char *name) {
    const vk_json *v = vk_jget(vk_jget(&vk_input_root, "arrays"), name);
    return v && v->kind == VK_J_OBJ ? v->count : 0;
}

static inline void vk_in_array_entry(const char *name, size_t j, uint64_t *flat, vk_number *value) {
    const vk_json *v = vk_jget(vk_jget(&vk_input_root, "arrays"), name);
    const vk_json *e = &v->items[j];
    char *rest;
    *flat = (uint64_t)strtoull(e->key, &rest, 10);
    if (*rest != 0 || e->key[0] == '-') vk_input_error("bad array index", e->key);
    *value = vk_jnumber(e, name);
}

/* ------------------------------------------------------------ array contracts */
static inline int vk_cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static inline bool vk_all_distinct(const void *data, size_t size, uint64_t n, int is_signed) {
    int64_t *keys = (int64_t *)vk_alloc(n, sizeof(int64_t));
    for (uint64_t i = 0; i < n; i++) {
        const unsigned char *p = (const unsigned char *)data + i * size;
        int64_t k = 0;
        switch (size) {
        case 1: k = is_signed ? (int64_t)*(const int8_t *)p : (int64_t)*(const uint8_t *)p; break;
        case 2: k = is_signed ? (int64_t)*(const int16_t *)p : (int64_t)*(const uint16_t *)p; break;
        case 4: k = is_signed ? (int64_t)*(const int32_t *)p : (int64_t)*(const uint32_t *)p; break;
        default: memcpy(&k, p, sizeof k); break;     /* 64-bit: equality is all that matters */
        }
        keys[i] = k;
    }
    qsort(keys, (size_t)n, sizeof(int64_t), vk_cmp_i64);
    bool ok = true;
    for (uint64_t i = 1; i < n && ok; i++) ok = keys[i] != keys[i - 1];
    free(keys);
    return ok;
}

#endif
