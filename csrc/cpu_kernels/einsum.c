/* Einsum (float32, one or two inputs), with TF's equation syntax: labels a-z A-Z, an optional ellipsis standing
 * for broadcast dimensions, an explicit '->' output.
 *
 * Two inputs whose labels split into batch (both inputs and the output), contracted (both inputs only) and free
 * (one input and the output) labels are a batch of matrix products: each operand is used in place when its memory
 * already reads as [batch, rows, depth] (or transposed), else copied into that order once; the products run on the
 * library's GEMM (one product over the pool, or the batch spread over it) and the result is written in the output's
 * order. Everything else (one input, repeated labels, labels summed within one input, broadcasting) walks the
 * output and the summed labels with per-label strides, accumulating in double. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_LABELS 128 /* 52 letters, then 64 ellipsis stand-ins */
#define ELLIPSIS_BASE 52
#define MAX_AXES 16

typedef struct {
  char equation[512];
} Einsum;

static int label_of(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

/* Parses one subscript into label ids for a tensor of `rank` dims (the ellipsis expanded right-aligned). Returns
 * the number of axes, or -1 with the message in err. *ell: the ellipsis dims it covers (-1 without one). */
static int parse_term(const char* t, size_t len, int rank, int* labels, int* ell, int index, char* err, size_t elen) {
  int named = 0, has_ell = 0;
  for (size_t i = 0; i < len; ++i) {
    if (t[i] == '.') {
      if (i + 2 >= len + 0 || t[i + 1] != '.' || t[i + 2] != '.' || has_ell) {
        snprintf(err, elen, "Invalid einsum subscript: %.*s", (int)len, t);
        return -1;
      }
      has_ell = 1;
      i += 2;
    } else if (label_of(t[i]) >= 0) {
      ++named;
    } else if (t[i] != ' ') {
      snprintf(err, elen, "Invalid character '%c' in einsum equation", t[i]);
      return -1;
    }
  }
  int k = 0;
  if (rank >= 0) {
    if (has_ell) {
      if (rank < named) {
        snprintf(err, elen, "Input %d to einsum has rank %d but the subscript '%.*s' needs at least %d dimensions",
                 index, rank, (int)len, t, named);
        return -1;
      }
      k = rank - named;
    } else if (rank != named) {
      snprintf(err, elen, "Input %d to einsum has rank %d but the subscript '%.*s' has %d labels", index, rank,
               (int)len, t, named);
      return -1;
    }
  } else {
    k = -rank - 1; /* the output: the widest ellipsis */
  }
  if (named + k > MAX_AXES) {
    snprintf(err, elen, "einsum with more than %d dimensions per operand is not supported", MAX_AXES);
    return -1;
  }
  int n = 0;
  for (size_t i = 0; i < len; ++i) {
    if (t[i] == '.') {
      for (int j = 0; j < k; ++j) labels[n++] = ELLIPSIS_BASE + (64 - k + j);
      i += 2;
    } else if (label_of(t[i]) >= 0) {
      labels[n++] = label_of(t[i]);
    }
  }
  *ell = has_ell ? k : -1;
  return n;
}

typedef struct {
  const float* x[2];
  float* y;
  int nin;
  int nout_u, nsum;
  int64_t out_dims[MAX_LABELS], sum_dims[MAX_LABELS];
  int64_t in_ostr[2][MAX_LABELS], in_sstr[2][MAX_LABELS], ystr[MAX_LABELS];
} General;

static void general_task(void* p, int64_t begin, int64_t end) {
  General* g = (General*)p;
  int64_t stotal = 1;
  for (int d = 0; d < g->nsum; ++d) stotal *= g->sum_dims[d];
  for (int64_t o = begin; o < end; ++o) {
    int64_t base[2] = {0, 0}, yo = 0, rem = o;
    for (int d = g->nout_u - 1; d >= 0; --d) {
      int64_t i = rem % g->out_dims[d];
      rem /= g->out_dims[d];
      yo += i * g->ystr[d];
      for (int k = 0; k < g->nin; ++k) base[k] += i * g->in_ostr[k][d];
    }
    double acc = 0.0;
    for (int64_t sidx = 0; sidx < stotal; ++sidx) {
      int64_t off[2] = {base[0], base[1]}, rr = sidx;
      for (int d = g->nsum - 1; d >= 0; --d) {
        int64_t i = rr % g->sum_dims[d];
        rr /= g->sum_dims[d];
        for (int k = 0; k < g->nin; ++k) off[k] += i * g->in_sstr[k][d];
      }
      double v = (double)g->x[0][off[0]];
      if (g->nin == 2) v *= (double)g->x[1][off[1]];
      acc += v;
    }
    g->y[yo] = (float)acc;
  }
}

/* dst (contiguous, dims[0..n)) = src read with per-dim strides. */
typedef struct {
  float* dst;
  const float* src;
  int n;
  int64_t dims[MAX_AXES], str[MAX_AXES];
} Gather;

static void gather_task(void* p, int64_t begin, int64_t end) {
  Gather* g = (Gather*)p;
  const int last = g->n - 1;
  const int64_t len = g->dims[last], s = g->str[last];
  for (int64_t r = begin; r < end; ++r) {
    int64_t off = 0, rem = r;
    for (int d = last - 1; d >= 0; --d) {
      off += (rem % g->dims[d]) * g->str[d];
      rem /= g->dims[d];
    }
    float* out = g->dst + r * len;
    const float* in = g->src + off;
    if (s == 1) {
      memcpy(out, in, (size_t)len * sizeof(float));
    } else {
      for (int64_t i = 0; i < len; ++i) out[i] = in[i * s];
    }
  }
}

static void gather(float* dst, const float* src, int n, const int64_t* dims, const int64_t* str) {
  Gather g;
  memset(&g, 0, sizeof g);
  g.dst = dst;
  g.src = src;
  if (n == 0) {
    dst[0] = src[0];
    return;
  }
  g.n = n;
  int64_t rows = 1;
  for (int d = 0; d < n; ++d) {
    g.dims[d] = dims[d];
    g.str[d] = str[d];
    if (d < n - 1) rows *= dims[d];
  }
  mtk_parallel_for(rows, 1 + 16384 / (dims[n - 1] + 1), gather_task, &g);
}

typedef struct {
  const float *a, *b;
  float* c;
  int ta, tb;
  int64_t m, n, k, batch;
} Products;

static void products_task(void* p, int64_t begin, int64_t end) {
  Products* q = (Products*)p;
  for (int64_t i = begin; i < end; ++i)
    mtk_sgemm(q->ta, q->tb, q->m, q->n, q->k, q->a + i * q->m * q->k, q->ta ? q->m : q->k,
              q->b + i * q->k * q->n, q->tb ? q->k : q->n, q->c + i * q->m * q->n, q->n, 0);
}

static void* einsum_create(TF_OpKernelConstruction* ctx) {
  Einsum* k = (Einsum*)calloc(1, sizeof(Einsum));
  if (k == NULL) return NULL;
  mtk_attr_string(ctx, "equation", k->equation, sizeof k->equation);
  return k;
}
static void einsum_destroy(void* p) { free(p); }

/* The axes of operand `k` whose labels are in `want` (in want's order), as dims and strides; 1 when each wanted label
 * is one axis of the operand. */
static int pick(const int* labels, int naxes, const int64_t* str, const int* want, int nwant, int64_t* dims_out,
                int64_t* str_out, const int64_t* size) {
  for (int w = 0; w < nwant; ++w) {
    int found = -1;
    for (int a = 0; a < naxes; ++a)
      if (labels[a] == want[w]) found = a;
    if (found < 0) return 0;
    dims_out[w] = size[want[w]];
    str_out[w] = str[found];
  }
  return 1;
}

/* Whether dims/strides (outer to inner) read as one contiguous block in that order (size-1 dims ignored). */
static int contiguous(const int64_t* dims, const int64_t* str, int n, int64_t expect_last) {
  int64_t want = expect_last;
  for (int d = n - 1; d >= 0; --d) {
    if (dims[d] == 1) continue;
    if (str[d] != want) return 0;
    want *= dims[d];
  }
  return 1;
}

static void einsum_compute(void* state, TF_OpKernelContext* ctx) {
  Einsum* k = (Einsum*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *in[2] = {NULL, NULL}, *y = NULL;
  float* scratch[3] = {NULL, NULL, NULL};
  char err[400], sh[128];
  int nin = TF_NumInputs(ctx);
  if (nin < 1 || nin > 2) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Einsum supports one or two inputs, got %d", nin);
    goto done;
  }
  for (int i = 0; i < nin && TF_GetCode(s) == TF_OK; ++i) TF_GetInput(ctx, i, &in[i], s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  const char* eq = k->equation;
  const char* arrow = strstr(eq, "->");
  if (arrow == NULL || strstr(arrow + 2, "->") != NULL) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Expecting exactly one '->' in einsum equation: %s", eq);
    goto done;
  }
  int commas = 0;
  for (const char* c = eq; c < arrow; ++c) commas += *c == ',';
  if (commas + 1 != nin) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Expected %d inputs but got: %d", commas + 1, nin);
    goto done;
  }
  int labels[2][MAX_AXES], naxes[2], ell_max = 0;
  int64_t size[MAX_LABELS];
  int seen[MAX_LABELS] = {0};
  int64_t str[2][MAX_AXES];
  const char* t = eq;
  for (int i = 0; i < nin; ++i) {
    const char* e = i + 1 < nin ? strchr(t, ',') : arrow;
    int ell = -1, rank = TF_NumDims(in[i]);
    naxes[i] = parse_term(t, (size_t)(e - t), rank, labels[i], &ell, i, err, sizeof err);
    if (naxes[i] < 0) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "%s", err);
      goto done;
    }
    if (ell > ell_max) ell_max = ell;
    int64_t st = 1;
    for (int a = rank - 1; a >= 0; --a) {
      str[i][a] = st;
      st *= TF_Dim(in[i], a);
    }
    for (int a = 0; a < rank; ++a) {
      int l = labels[i][a];
      int64_t d = TF_Dim(in[i], a);
      if (seen[l] && size[l] != d) {
        if (l >= ELLIPSIS_BASE && (d == 1 || size[l] == 1)) {
          if (d > size[l]) size[l] = d;
          continue;
        }
        mtk_shape_str(in[i], sh, sizeof sh);
        mtk_fail(ctx, TF_INVALID_ARGUMENT, "Expected dimension %lld at axis %d of the input shaped %s but got dimension %lld",
                 (long long)size[l], a, sh, (long long)d);
        goto done;
      }
      if (!seen[l]) size[l] = d;
      seen[l] |= 1 << i;
    }
    t = e + 1;
  }
  int out_labels[MAX_AXES], ell_out = -1;
  int nout = parse_term(arrow + 2, strlen(arrow + 2), -ell_max - 1, out_labels, &ell_out, 0, err, sizeof err);
  if (nout < 0) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "%s", err);
    goto done;
  }
  int in_out[MAX_LABELS] = {0};
  for (int o = 0; o < nout; ++o) {
    int l = out_labels[o];
    if (!seen[l]) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT,
               "Einsum output subscripts for equation '%s' has label '%c' which is not present in the input subscripts",
               eq, l < 26 ? 'a' + l : (l < 52 ? 'A' + l - 26 : '.'));
      goto done;
    }
    ++in_out[l];
  }
  int64_t out_dims[MAX_AXES], out_total = 1;
  for (int o = 0; o < nout; ++o) {
    out_dims[o] = size[out_labels[o]];
    out_total *= out_dims[o];
  }
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, out_dims, nout, (size_t)out_total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (out_total == 0) goto done;
  float* yd = (float*)TF_TensorData(y);
  const float* xd[2] = {(const float*)TF_TensorData(in[0]), nin == 2 ? (const float*)TF_TensorData(in[1]) : NULL};
  int64_t in_total[2] = {TF_TensorElementCount(in[0]), nin == 2 ? TF_TensorElementCount(in[1]) : 1};

  /* ------------------------------------------------ the matrix-product form */
  int fast = nin == 2 && in_total[0] > 0 && in_total[1] > 0;
  for (int o = 0; o < nout && fast; ++o) fast = in_out[out_labels[o]] == 1;
  for (int i = 0; i < nin && fast; ++i)
    for (int a = 0; a < naxes[i] && fast; ++a) {
      int l = labels[i][a];
      for (int b = a + 1; b < naxes[i]; ++b) fast = fast && labels[i][b] != l;
      fast = fast && (in_out[l] || seen[l] == 3);          /* no label summed within one input */
      fast = fast && TF_Dim(in[i], a) == size[l];          /* no broadcasting */
    }
  if (fast) {
    int batch[MAX_AXES], nb = 0, cont[MAX_AXES], nk = 0, fa[MAX_AXES], nm = 0, fb[MAX_AXES], nn = 0;
    for (int a = 0; a < naxes[0]; ++a) {
      int l = labels[0][a];
      if (seen[l] == 3 && in_out[l]) batch[nb++] = l;
      else if (seen[l] == 3) cont[nk++] = l;
      else fa[nm++] = l;
    }
    for (int a = 0; a < naxes[1]; ++a)
      if (seen[labels[1][a]] == 2) fb[nn++] = labels[1][a];
    int64_t bsz = 1, m = 1, kk = 1, n = 1;
    for (int i = 0; i < nb; ++i) bsz *= size[batch[i]];
    for (int i = 0; i < nm; ++i) m *= size[fa[i]];
    for (int i = 0; i < nk; ++i) kk *= size[cont[i]];
    for (int i = 0; i < nn; ++i) n *= size[fb[i]];
    /* operand A as [batch, m, k] (or [batch, k, m]), B as [batch, k, n] (or [batch, n, k]) */
    int ord[3 * MAX_AXES];
    int64_t d3[3 * MAX_AXES], s3[3 * MAX_AXES];
    const float* A = xd[0];
    const float* B = xd[1];
    int ta = 0, tb = 0;
    /* A */
    memcpy(ord, batch, sizeof(int) * (size_t)nb);
    memcpy(ord + nb, fa, sizeof(int) * (size_t)nm);
    memcpy(ord + nb + nm, cont, sizeof(int) * (size_t)nk);
    pick(labels[0], naxes[0], str[0], ord, nb + nm + nk, d3, s3, size);
    if (!contiguous(d3, s3, nb + nm + nk, 1)) {
      memcpy(ord + nb, cont, sizeof(int) * (size_t)nk);
      memcpy(ord + nb + nk, fa, sizeof(int) * (size_t)nm);
      pick(labels[0], naxes[0], str[0], ord, nb + nm + nk, d3, s3, size);
      if (contiguous(d3, s3, nb + nm + nk, 1)) {
        ta = 1;
      } else {
        memcpy(ord + nb, fa, sizeof(int) * (size_t)nm);
        memcpy(ord + nb + nm, cont, sizeof(int) * (size_t)nk);
        pick(labels[0], naxes[0], str[0], ord, nb + nm + nk, d3, s3, size);
        scratch[0] = (float*)mtk_aligned_alloc((size_t)in_total[0] * sizeof(float));
        if (scratch[0] == NULL) goto oom;
        gather(scratch[0], A, nb + nm + nk, d3, s3);
        A = scratch[0];
      }
    }
    /* B, with A's batch and contracted orders */
    memcpy(ord, batch, sizeof(int) * (size_t)nb);
    memcpy(ord + nb, cont, sizeof(int) * (size_t)nk);
    memcpy(ord + nb + nk, fb, sizeof(int) * (size_t)nn);
    pick(labels[1], naxes[1], str[1], ord, nb + nk + nn, d3, s3, size);
    if (!contiguous(d3, s3, nb + nk + nn, 1)) {
      memcpy(ord + nb, fb, sizeof(int) * (size_t)nn);
      memcpy(ord + nb + nn, cont, sizeof(int) * (size_t)nk);
      pick(labels[1], naxes[1], str[1], ord, nb + nk + nn, d3, s3, size);
      if (contiguous(d3, s3, nb + nk + nn, 1)) {
        tb = 1;
      } else {
        memcpy(ord + nb, cont, sizeof(int) * (size_t)nk);
        memcpy(ord + nb + nk, fb, sizeof(int) * (size_t)nn);
        pick(labels[1], naxes[1], str[1], ord, nb + nk + nn, d3, s3, size);
        scratch[1] = (float*)mtk_aligned_alloc((size_t)in_total[1] * sizeof(float));
        if (scratch[1] == NULL) goto oom;
        gather(scratch[1], B, nb + nk + nn, d3, s3);
        B = scratch[1];
      }
    }
    /* C as [batch, m, n]: the output itself when its labels are in that order */
    int corder[3 * MAX_AXES];
    memcpy(corder, batch, sizeof(int) * (size_t)nb);
    memcpy(corder + nb, fa, sizeof(int) * (size_t)nm);
    memcpy(corder + nb + nm, fb, sizeof(int) * (size_t)nn);
    int same = nout == nb + nm + nn;
    for (int o = 0; o < nout && same; ++o) same = out_labels[o] == corder[o];
    float* C = yd;
    if (!same) {
      scratch[2] = (float*)mtk_aligned_alloc((size_t)out_total * sizeof(float));
      if (scratch[2] == NULL) goto oom;
      C = scratch[2];
    }
    if (kk == 0) {
      memset(C, 0, (size_t)out_total * sizeof(float));
    } else if (bsz == 1) {
      mtk_gemm_desc d;
      memset(&d, 0, sizeof d);
      d.m = m;
      d.n = n;
      d.k = kk;
      d.a = A;
      d.lda = ta ? m : kk;
      d.trans_a = ta;
      d.b = B;
      d.ldb = tb ? kk : n;
      d.trans_b = tb;
      d.c = C;
      d.ldc = n;
      if (mtk_gemm_parallel(&d) < 0) goto oom;
    } else {
      Products q = {A, B, C, ta, tb, m, n, kk, bsz};
      double flops = 2.0 * (double)m * (double)n * (double)kk;
      mtk_parallel_for(bsz, flops > 2e5 ? 1 : (int64_t)(2e5 / (flops + 1.0)) + 1, products_task, &q);
    }
    if (!same) { /* C [batch, m, n] -> the output's order */
      int64_t cst[MAX_LABELS];
      int64_t st = 1;
      for (int i = nb + nm + nn - 1; i >= 0; --i) {
        cst[corder[i]] = st;
        st *= size[corder[i]];
      }
      int64_t od[MAX_AXES], os[MAX_AXES];
      for (int o = 0; o < nout; ++o) {
        od[o] = out_dims[o];
        os[o] = cst[out_labels[o]];
      }
      gather(yd, C, nout, od, os);
    }
    goto done;
  }

  /* ------------------------------------------------ the general form */
  {
    General g;
    memset(&g, 0, sizeof g);
    g.x[0] = xd[0];
    g.x[1] = xd[1];
    g.y = yd;
    g.nin = nin;
    int64_t ost[MAX_AXES], st = 1;
    for (int o = nout - 1; o >= 0; --o) {
      ost[o] = st;
      st *= out_dims[o];
    }
    int repeated = 0;
    for (int l = 0; l < MAX_LABELS; ++l) {
      if (!seen[l]) continue;
      if (in_out[l] > 1) repeated = 1;
      int64_t ys = 0;
      for (int o = 0; o < nout; ++o)
        if (out_labels[o] == l) ys += ost[o];
      int64_t xs[2] = {0, 0};
      for (int i = 0; i < nin; ++i)
        for (int a = 0; a < naxes[i]; ++a)
          if (labels[i][a] == l && TF_Dim(in[i], a) == size[l]) xs[i] += str[i][a];
      if (in_out[l]) {
        g.out_dims[g.nout_u] = size[l];
        g.ystr[g.nout_u] = ys;
        for (int i = 0; i < nin; ++i) g.in_ostr[i][g.nout_u] = xs[i];
        ++g.nout_u;
      } else {
        g.sum_dims[g.nsum] = size[l];
        for (int i = 0; i < nin; ++i) g.in_sstr[i][g.nsum] = xs[i];
        ++g.nsum;
      }
    }
    int64_t outs = 1, sums = 1;
    for (int d = 0; d < g.nout_u; ++d) outs *= g.out_dims[d];
    for (int d = 0; d < g.nsum; ++d) sums *= g.sum_dims[d];
    if (repeated) memset(yd, 0, (size_t)out_total * sizeof(float));
    if (in_total[0] == 0 || in_total[1] == 0) {
      memset(yd, 0, (size_t)out_total * sizeof(float));
      goto done;
    }
    mtk_parallel_for(outs, 1 + 8192 / (sums + 1), general_task, &g);
  }
  goto done;
oom:
  mtk_fail(ctx, TF_RESOURCE_EXHAUSTED, "out of memory in Einsum");
done:
  for (int i = 0; i < 3; ++i) free(scratch[i]);
  TF_DeleteTensor(in[0]);
  TF_DeleteTensor(in[1]);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_einsum(TF_Status* s) {
  mtk_register("MtkEinsum", "Einsum", einsum_create, einsum_compute, einsum_destroy, s);
}
