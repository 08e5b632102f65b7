/* Elementwise unary ops (float32): Neg, Abs, Square, Sqrt, Rsqrt, Reciprocal, Exp, Log, Erf, Erfc, Floor, Ceil,
 * Round. One vectorized pass, split over the pool for large tensors, in the input's buffer when the runtime lets
 * the kernel forward it. exp, log, erf and erfc are the vectorizable approximations of mtk_math.h (log TF's own, bit
 * for bit; exp within 1-2 ulp of libm; erf within 4e-7; erfc a few 1e-7 relative), as TF's Eigen kernels use theirs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"
#include "mtk_math.h"

enum { U_NEG, U_ABS, U_SQUARE, U_SQRT, U_RSQRT, U_RECIPROCAL, U_EXP, U_LOG, U_ERF, U_ERFC, U_FLOOR, U_CEIL, U_ROUND };

typedef struct {
  int op;
} Unary;

typedef struct {
  const float* x;
  float* y;
  int op;
} UnaryJob;

#define LOOP(EXPR)                                                \
  do {                                                            \
    for (int64_t i = 0; i < n; ++i) {                             \
      const float v = x[i];                                       \
      y[i] = (EXPR);                                              \
    }                                                             \
  } while (0)

MTK_HOT static void unary_run(int op, const float* x, float* y, int64_t n) {
  switch (op) {
    case U_NEG: LOOP(-v); break;
    case U_ABS: LOOP(fabsf(v)); break;
    case U_SQUARE: LOOP(v * v); break;
    case U_SQRT: LOOP(sqrtf(v)); break;
    case U_RSQRT: LOOP(1.0f / sqrtf(v)); break;
    case U_RECIPROCAL: LOOP(1.0f / v); break;
    case U_EXP: LOOP(fast_exp(v)); break;
    case U_LOG: LOOP(fast_log(v)); break;
    case U_ERF: LOOP(fast_erf(v)); break;
    case U_ERFC: LOOP(fast_erfc(v)); break;
    case U_FLOOR: LOOP(floorf(v)); break;
    case U_CEIL: LOOP(ceilf(v)); break;
    case U_ROUND: LOOP(rintf(v)); break; /* half to even, as TF's Round */
    default: break;
  }
}

static void unary_range(void* p, int64_t begin, int64_t end) {
  UnaryJob* j = (UnaryJob*)p;
  unary_run(j->op, j->x + begin, j->y + begin, end - begin);
}

static void unary_compute(void* state, TF_OpKernelContext* ctx) {
  Unary* k = (Unary*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *probe = NULL, *y = NULL;
  TF_GetInput(ctx, 0, &probe, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  int nd = TF_NumDims(probe);
  int64_t dims[16];
  if (nd > 16) {
    TF_DeleteTensor(probe);
    TF_SetStatus(s, TF_UNIMPLEMENTED, "more than 16 dimensions");
    goto fail;
  }
  for (int i = 0; i < nd; ++i) dims[i] = TF_Dim(probe, i);
  UnaryJob j;
  j.x = (const float*)TF_TensorData(probe);
  j.op = k->op;
  int64_t n = TF_TensorElementCount(probe);
  TF_DeleteTensor(probe); /* a held handle would prevent forwarding; the memory stays the runtime's for the call */
  int candidate = 0, forwarded = -1;
  y = TF_ForwardInputOrAllocateOutput(ctx, &candidate, 1, 0, dims, nd, &forwarded, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  j.y = (float*)TF_TensorData(y);
  int cheap = k->op <= U_RECIPROCAL || k->op >= U_FLOOR;
  if (n > 0) mtk_parallel_for(n, cheap ? MTK_GRAIN_CHEAP : MTK_GRAIN_MATH, unary_range, &j);
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, s);
done:
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

#define CREATE(NAME, OP)                                         \
  static void* NAME(TF_OpKernelConstruction* ctx) {              \
    (void)ctx;                                                   \
    Unary* k = (Unary*)calloc(1, sizeof(Unary));                 \
    if (k != NULL) k->op = OP;                                   \
    return k;                                                    \
  }
CREATE(neg_create, U_NEG)
CREATE(abs_create, U_ABS)
CREATE(square_create, U_SQUARE)
CREATE(sqrt_create, U_SQRT)
CREATE(rsqrt_create, U_RSQRT)
CREATE(reciprocal_create, U_RECIPROCAL)
CREATE(exp_create, U_EXP)
CREATE(log_create, U_LOG)
CREATE(erf_create, U_ERF)
CREATE(erfc_create, U_ERFC)
CREATE(floor_create, U_FLOOR)
CREATE(ceil_create, U_CEIL)
CREATE(round_create, U_ROUND)
static void unary_destroy(void* p) { free(p); }

void mtk_register_unary(TF_Status* s) {
  static const struct {
    const char *kernel, *op;
    void* (*create)(TF_OpKernelConstruction*);
  } ops[] = {
      {"MtkNeg", "Neg", neg_create},
      {"MtkAbs", "Abs", abs_create},
      {"MtkSquare", "Square", square_create},
      {"MtkSqrt", "Sqrt", sqrt_create},
      {"MtkRsqrt", "Rsqrt", rsqrt_create},
      {"MtkReciprocal", "Reciprocal", reciprocal_create},
      {"MtkExp", "Exp", exp_create},
      {"MtkLog", "Log", log_create},
      {"MtkErf", "Erf", erf_create},
      {"MtkErfc", "Erfc", erfc_create},
      {"MtkFloor", "Floor", floor_create},
      {"MtkCeil", "Ceil", ceil_create},
      {"MtkRound", "Round", round_create},
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops && TF_GetCode(s) == TF_OK; ++i) {
    mtk_register(ops[i].kernel, ops[i].op, ops[i].create, unary_compute, unary_destroy, s);
  }
}
