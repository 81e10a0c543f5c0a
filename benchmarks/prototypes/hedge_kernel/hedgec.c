/* Exact binary Hedge over stump experts, played round by round (prototype v2).
 *
 * Feature f has m sorted thresholds (positions); at each position i two experts
 * (slots): pair 0 predicts 1 iff x >= t_i, pair 1 the complement. A round whose x
 * has p thresholds at or below it (positions [0, p)) makes the voters for class 1
 * pair 0 on [0, p) and pair 1 on [p, m). Hedge multiplies the erring experts by
 * r = exp(-eta):
 *   y = 0: pair 0 on [0, p) and pair 1 on [p, m)
 *        = prefix [0, p) times (r, 1/r), and every pair-1 expert times r;
 *   y = 1: prefix [0, p) times (1/r, r), and every pair-0 expert times r.
 * So each (round, feature) is one prefix operation on a segment tree whose nodes
 * hold both pairs (one root-to-leaf path, O(log m)), and two global scalars S0, S1.
 * Nodes carry permanent multiplicative tags (no push-down): a node's sum includes
 * its own tag; a prefix sum is the covered nodes' sums times their ancestors' tags.
 *
 * Numerics: weights are linear, relative to a global power-of-two scale (exact).
 * The exact integer losses are kept (per feature and label, a histogram of the
 * rounds' positions: O(1) per round); the trees are rebuilt from them whenever
 * eta * (rounds since rebuild) would exceed REBUILD_DECAY, so between rebuilds no
 * tag, scalar or node sum moves by more than exp(REBUILD_DECAY) and a weight
 * flushed to zero weighs below exp(REBUILD_DECAY - 745) of the total.
 * Subnormals are flushed (FTZ/DAZ) inside the kernel only.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <xmmintrin.h>
#include <emmintrin.h>

#define REBUILD_DECAY 300.0
#define TIE 1e-12       /* the package's _TIE_TOLERANCE */

typedef struct { double d0, d1, t0, t1; } node_t;   /* sums (with own tag), tags */
typedef struct { double d0, d1; } leaf_t;
#define MAXF 64

typedef struct {
    int n_features;
    const int64_t *m;        /* positions per feature */
    const int64_t *off;      /* first global position of each feature */
    const double *padded;    /* thresholds, +inf after each feature's (index off + f) */
    const double *scale;     /* bucket index = (x - low) * scale (0: binary search) */
    const double *low;
    const int32_t *first;    /* thresholds below bucket b: first[2 off + b] */
    const double *count0;    /* prior mass of pair 0 / pair 1 slots, global positions */
    const double *count1;
    int64_t size;            /* leaves of every feature's tree (power of two > max m) */
    int64_t lg;
    node_t *nodes;           /* feature f's internal nodes: nodes[f size + k], 1 <= k < size */
    leaf_t *leaves;          /* its leaves: leaves[f size + i] */
    int64_t *hist;           /* per feature 2 (m + 1): rounds with label 0 / 1 at p */
    double eta, r, rinv, s0, s1;
    int64_t n_rounds, n0, n1, since_rebuild;
    int64_t prefetch;        /* prefetch the next round's paths (large trees) */
    double *table;           /* scratch: exp(-eta k), k <= rounds */
    int64_t *scratch;        /* scratch: 2 max(m) + 2 */
} hedge_t;

#define FTZ_ON unsigned int csr_ = _mm_getcsr(); _mm_setcsr(csr_ | 0x8040)
#define FTZ_OFF _mm_setcsr(csr_)

/* exact losses of feature f's slots: L0 = N0 + n1 - N1, L1 = n0 - N0 + N1, where
 * N_y(i) counts the rounds of label y with p > i */
static void losses(const hedge_t *h, int f, int64_t *L0, int64_t *L1) {
    int64_t m = h->m[f];
    const int64_t *h0 = h->hist + 2 * (h->off[f] + f), *h1 = h0 + m + 1;
    int64_t N0 = 0, N1 = 0;
    for (int64_t i = m - 1; i >= 0; i--) {
        N0 += h0[i + 1];
        N1 += h1[i + 1];
        L0[i] = N0 + h->n1 - N1;
        L1[i] = h->n0 - N0 + N1;
    }
}

void hedge_rebuild(hedge_t *h) {
    FTZ_ON;
    int64_t lo = INT64_MAX, hi = INT64_MIN, size = h->size;
    int64_t total = h->off[h->n_features - 1] + h->m[h->n_features - 1];
    int64_t *L0 = h->scratch, *L1 = h->scratch + total;   /* global positions */
    for (int f = 0; f < h->n_features; f++) {
        int64_t *l0 = L0 + h->off[f], *l1 = L1 + h->off[f];
        losses(h, f, l0, l1);
        for (int64_t i = 0; i < h->m[f]; i++) {
            int64_t a = l0[i] < l1[i] ? l0[i] : l1[i], b = l0[i] < l1[i] ? l1[i] : l0[i];
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
    }
    for (int64_t k = 0; k <= hi - lo; k++) h->table[k] = exp(-h->eta * (double)k);
    for (int f = 0; f < h->n_features; f++) {
        int64_t m = h->m[f];
        node_t *N = h->nodes + f * size;
        leaf_t *Lf = h->leaves + f * size;
        const double *c0 = h->count0 + h->off[f], *c1 = h->count1 + h->off[f];
        const int64_t *l0 = L0 + h->off[f], *l1 = L1 + h->off[f];
        for (int64_t i = 0; i < m; i++) {
            Lf[i].d0 = c0[i] * h->table[l0[i] - lo];
            Lf[i].d1 = c1[i] * h->table[l1[i] - lo];
        }
        for (int64_t i = m; i < size; i++) Lf[i].d0 = Lf[i].d1 = 0.0;
        for (int64_t k = size / 2; k < size; k++) {   /* the leaves' parents */
            N[k].d0 = Lf[2 * k - size].d0 + Lf[2 * k + 1 - size].d0;
            N[k].d1 = Lf[2 * k - size].d1 + Lf[2 * k + 1 - size].d1;
            N[k].t0 = N[k].t1 = 1.0;
        }
        for (int64_t k = size / 2 - 1; k >= 1; k--) {
            N[k].d0 = N[2 * k].d0 + N[2 * k + 1].d0;
            N[k].d1 = N[2 * k].d1 + N[2 * k + 1].d1;
            N[k].t0 = N[k].t1 = 1.0;
        }
    }
    h->s0 = h->s1 = 1.0;
    h->since_rebuild = 0;
    FTZ_OFF;
}

/* p[t, f]: number of feature f's thresholds <= X[t, f] (the package's _positions) */
void hedge_positions(const hedge_t *h, const double *X, int64_t rows, int64_t *pos) {
    int F = h->n_features;
    for (int f = 0; f < F; f++) {        /* feature-major: one feature's arrays at a time */
        for (int64_t t = 0; t < rows; t++) {
            double x = X[t * F + f];
            const double *a = h->padded + h->off[f] + f;
            int64_t m = h->m[f], at;
            double s = h->scale[f];
            if (s > 0.0 && x == x) {  /* a bucket, then a forward scan (ends in +inf) */
                double b = (x - h->low[f]) * s;
                b = b < 0.0 ? 0.0 : (b > (double)(2 * m - 1) ? (double)(2 * m - 1) : b);
                at = h->first[2 * h->off[f] + (int64_t)b];
                at += a[at] <= x;         /* two branch-free steps (a bucket holds about */
                at += a[at] <= x;         /* half a threshold), then a scan if needed */
                while (a[at] <= x) at++;
            } else {                 /* upper_bound */
                const double *lo = a;
                int64_t len = m;
                while (len > 1) {
                    int64_t half = len >> 1;
                    lo = (lo[half] <= x) ? lo + half : lo;
                    len -= half;
                }
                at = (lo - a) + (*lo <= x);
            }
            pos[t * F + f] = at;
        }
    }
}

/* for every feature f at once (level by level, so the features' chains overlap):
 * prefix [0, p[f]) sums P0, P1 (true scale, S excluded), then, if apply, scale the
 * prefixes by (a0, a1). p[f] <= m < size. Both pairs in one SSE2 register. */
typedef struct { __m128d d, t; } vnode_t;   /* the layout of node_t */

static inline void prefix_all(hedge_t *h, const int64_t *p, double a0, double a1, int apply,
                              double *P0, double *P1) {
    int F = h->n_features;
    int64_t size = h->size;
    int lg = (int)h->lg;
    int64_t k[MAXF];
    __m128d A[MAXF], S[MAXF];
    const __m128d one = _mm_set1_pd(1.0), g = _mm_set_pd(a1, a0);
    for (int f = 0; f < F; f++) { k[f] = 1; A[f] = one; S[f] = _mm_setzero_pd(); }
    for (int i = lg - 1; i >= 1; i--) {       /* children internal */
        for (int f = 0; f < F; f++) {
            vnode_t *N = (vnode_t *)(h->nodes + f * size);
            int64_t kk = k[f], b = (p[f] >> i) & 1, left = 2 * kk;
            __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(-b));
            A[f] = _mm_mul_pd(A[f], N[kk].t);
            S[f] = _mm_add_pd(S[f], _mm_and_pd(mask, _mm_mul_pd(A[f], N[left].d)));
            if (apply) {  /* branch-free: times g when covered, else times 1 (exact) */
                __m128d gg = _mm_or_pd(_mm_and_pd(mask, g), _mm_andnot_pd(mask, one));
                N[left].d = _mm_mul_pd(N[left].d, gg);
                N[left].t = _mm_mul_pd(N[left].t, gg);
            }
            k[f] = left + b;
        }
    }
    for (int f = 0; f < F; f++) {            /* children leaves */
        vnode_t *N = (vnode_t *)(h->nodes + f * size);
        __m128d *L = (__m128d *)(h->leaves + f * size);
        int64_t kk = k[f], b = p[f] & 1, left = 2 * kk - size;
        __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(-b));
        A[f] = _mm_mul_pd(A[f], N[kk].t);
        S[f] = _mm_add_pd(S[f], _mm_and_pd(mask, _mm_mul_pd(A[f], L[left])));
        if (apply)
            L[left] = _mm_mul_pd(L[left], _mm_or_pd(_mm_and_pd(mask, g), _mm_andnot_pd(mask, one)));
    }
    __m128d s = _mm_setzero_pd();
    for (int f = 0; f < F; f++) s = _mm_add_pd(s, S[f]);
    double out[2];
    _mm_storeu_pd(out, s);
    *P0 = out[0]; *P1 = out[1];
    if (!apply) return;
    for (int f = 0; f < F; f++) {            /* the leaves' parents */
        vnode_t *N = (vnode_t *)(h->nodes + f * size);
        __m128d *L = (__m128d *)(h->leaves + f * size);
        int64_t kk = (size + p[f]) >> 1, c = 2 * kk - size;
        N[kk].d = _mm_mul_pd(N[kk].t, _mm_add_pd(L[c], L[c + 1]));
    }
    for (int j = 2; j <= lg; j++) {
        for (int f = 0; f < F; f++) {
            vnode_t *N = (vnode_t *)(h->nodes + f * size);
            int64_t kk = (size + p[f]) >> j;
            N[kk].d = _mm_mul_pd(N[kk].t, _mm_add_pd(N[2 * kk].d, N[2 * kk + 1].d));
        }
    }
}

static inline int vote(double w1, double w0, double *p1) {
    double z = w0 + w1, q0 = w0 / z, q1 = w1 / z;
    *p1 = q1 < 0.0 ? 0.0 : (q1 > 1.0 ? 1.0 : q1);
    return q0 < q1 - TIE;  /* _vote: argmax(proba >= max - tol), ties to class 0 */
}

static inline void totals(const hedge_t *h, double *T0, double *T1) {
    double a = 0.0, b = 0.0;
    for (int f = 0; f < h->n_features; f++) {
        const node_t *N = h->nodes + f * h->size;
        a += N[1].d0;
        b += N[1].d1;
    }
    *T0 = a; *T1 = b;
}

#define ROWS 16
void hedge_predict(hedge_t *h, const int64_t *pos, int64_t rows, double *p1, int64_t *pred) {
    FTZ_ON;
    int F = h->n_features;
    int64_t size = h->size;
    int lg = (int)h->lg;
    double T0, T1;
    totals(h, &T0, &T1);
    __m128d *P = (__m128d *)aligned_alloc(16, sizeof(__m128d) * (rows + 1));
    for (int64_t t = 0; t < rows; t++) P[t] = _mm_setzero_pd();
    /* feature-major (one tree at a time), ROWS queries interleaved level by level */
    for (int f = 0; f < F; f++) {
        const vnode_t *N = (const vnode_t *)(h->nodes + f * size);
        const __m128d *L = (const __m128d *)(h->leaves + f * size);
        for (int64_t t0 = 0; t0 < rows; t0 += ROWS) {
            int R = rows - t0 < ROWS ? (int)(rows - t0) : ROWS;
            int64_t k[ROWS], p[ROWS];
            __m128d A[ROWS], S[ROWS];
            for (int j = 0; j < R; j++) {
                k[j] = 1; A[j] = _mm_set1_pd(1.0); S[j] = _mm_setzero_pd();
                p[j] = pos[(t0 + j) * F + f];
            }
            for (int i = lg - 1; i >= 1; i--) {
                for (int j = 0; j < R; j++) {
                    int64_t kk = k[j], b = (p[j] >> i) & 1, left = 2 * kk;
                    __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(-b));
                    A[j] = _mm_mul_pd(A[j], N[kk].t);
                    S[j] = _mm_add_pd(S[j], _mm_and_pd(mask, _mm_mul_pd(A[j], N[left].d)));
                    k[j] = left + b;
                }
            }
            for (int j = 0; j < R; j++) {
                int64_t kk = k[j], b = p[j] & 1, left = 2 * kk - size;
                __m128d mask = _mm_castsi128_pd(_mm_set1_epi64x(-b));
                A[j] = _mm_mul_pd(A[j], N[kk].t);
                S[j] = _mm_add_pd(S[j], _mm_and_pd(mask, _mm_mul_pd(A[j], L[left])));
                P[t0 + j] = _mm_add_pd(P[t0 + j], S[j]);
            }
        }
    }
    for (int64_t t = 0; t < rows; t++) {
        double v[2];
        _mm_storeu_pd(v, P[t]);
        double w1 = h->s0 * v[0] + h->s1 * (T1 - v[1]), w0 = h->s0 * (T0 - v[0]) + h->s1 * v[1];
        pred[t] = vote(w1, w0, p1 + t);
    }
    free(P);
    FTZ_OFF;
}

/* play rows in order (vote, mistake, update); returns the mistakes; p1[t]: weight on
 * class 1 before round t; loss[t]: expected loss of the randomised draw */
int64_t hedge_play(hedge_t *h, const int64_t *pos, const int64_t *y, int64_t rows,
                   double *p1, double *loss) {
    FTZ_ON;
    int F = h->n_features;
    int64_t mistakes = 0;
    double T0, T1;
    totals(h, &T0, &T1);
    for (int64_t t = 0; t < rows; t++) {
        if (h->eta * (double)(h->since_rebuild + 1) > REBUILD_DECAY) {
            hedge_rebuild(h);
            totals(h, &T0, &T1);
        }
        if (h->prefetch && t + 1 < rows) {   /* the next round's paths (known now) */
            int64_t size = h->size;
            for (int f = 0; f < F; f++) {
                int64_t leaf = size + pos[(t + 1) * F + f];
                const node_t *N = h->nodes + f * size;
                _mm_prefetch((const char *)(h->leaves + f * size + (leaf - size)), _MM_HINT_T0);
                for (int64_t k = leaf >> 1; k >= 2; k >>= 1)
                    _mm_prefetch((const char *)(N + k), _MM_HINT_T0);
            }
        }
        int64_t yt = y[t];
        double a0 = yt ? h->rinv : h->r, a1 = yt ? h->r : h->rinv;
        double P0, P1, U0, U1;
        prefix_all(h, pos + t * F, a0, a1, 1, &P0, &P1);
        totals(h, &U0, &U1);
        for (int f = 0; f < F; f++)
            h->hist[2 * (h->off[f] + f) + yt * (h->m[f] + 1) + pos[t * F + f]]++;
        double w1 = h->s0 * P0 + h->s1 * (T1 - P1), w0 = h->s0 * (T0 - P0) + h->s1 * P1;
        double q;
        mistakes += vote(w1, w0, &q) != yt;
        p1[t] = q;
        loss[t] = yt ? 1.0 - q : q;
        if (yt) { h->s0 *= h->r; h->n1++; } else { h->s1 *= h->r; h->n0++; }
        T0 = U0; T1 = U1;
        int e;
        frexp(h->s0 * T0 + h->s1 * T1, &e);
        if (e > 64 || e < -64) { double k = ldexp(1.0, -e); h->s0 *= k; h->s1 *= k; }
        h->n_rounds++;
        h->since_rebuild++;
    }
    FTZ_OFF;
    return mistakes;
}

/* the exact integer losses of every slot, (pair, global position): out0, out1 */
void hedge_losses(const hedge_t *h, int64_t *out0, int64_t *out1) {
    for (int f = 0; f < h->n_features; f++) losses(h, f, out0 + h->off[f], out1 + h->off[f]);
}

/* the trees' weights of every slot (all tags applied, S included), unnormalised */
void hedge_slot_weights(const hedge_t *h, double *out0, double *out1) {
    int64_t size = h->size;
    for (int f = 0; f < h->n_features; f++) {
        const node_t *N = h->nodes + f * size;
        const leaf_t *L = h->leaves + f * size;
        for (int64_t i = 0; i < h->m[f]; i++) {
            double a0 = h->s0, a1 = h->s1;
            for (int64_t k = (size + i) >> 1; k >= 1; k >>= 1) { a0 *= N[k].t0; a1 *= N[k].t1; }
            out0[h->off[f] + i] = a0 * L[i].d0;
            out1[h->off[f] + i] = a1 * L[i].d1;
        }
    }
}
