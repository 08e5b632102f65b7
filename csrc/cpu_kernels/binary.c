/* Broadcasting binary elementwise ops (float32): AddV2, Add, Sub, Mul, RealDiv, Maximum,
 * Minimum, SquaredDifference. Shapes broadcast as numpy/TF do (right-aligned, size-1
 * dims stretch); the output is walked as rows of its last dimension, each row one
 * vectorized run over contiguous or broadcast (stride 0) operands, rows spread over the
 * pool. The output reuses an operand's buffer when the runtime allows it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_RANK 8

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_SQDIFF };

typedef struct {
  int op;
} Binary;

typedef struct {
  const float *x, *y;
  float* z;
  int op, rank;
  int64_t dims[MAX_RANK];      /* output dims */
  int64_t xs[MAX_RANK], ys[MAX_RANK]; /* element strides (0 on broadcast dims) */
  int64_t row;                 /* last dim of the output */
  /* tiled form: z[R, C] = x op y where one operand is [R, C] and the other one row of C repeated; `tile` holds
     that row `tile_rows` times, and each task runs tile_rows rows as one contiguous pass */
  const float* tile;
  int64_t tile_rows;
  int tile_is_x;
} BinJob;

#define RUN(EXPR)                                                                      \
  do {                                                                                 \
    if (sx && sy) {                                                                    \
      for (int64_t i = 0; i < n; ++i) {                                                \
        const float a = x[i], b = y[i];                                                \
        z[i] = (EXPR);                                                                 \
      }                                                                                \
    } else if (sx) {                                                                   \
      const float b = y[0];                                                            \
      for (int64_t i = 0; i < n; ++i) {                                                \
        const float a = x[i];                                                          \
        z[i] = (EXPR);                                                                 \
      }                                                                                \
    } else if (sy) {                                                                   \
      const float a = x[0];                                                            \
      for (int64_t i = 0; i < n; ++i) {                                                \
        const float b = y[i];                                                          \
        z[i] = (EXPR);                                                                 \
      }                                                                                \
    } else {                                                                           \
      const float a = x[0], b = y[0];                                                  \
      const float v = (EXPR);                                                          \
      for (int64_t i = 0; i < n; ++i) z[i] = v;                                        \
    }                                                                                  \
  } while (0)

/* z[0:n] = x op y with x (y) contiguous when sx (sy), else one broadcast value. */
MTK_HOT static void run(int op, const float* x, int sx, const float* y, int sy, float* z, int64_t n) {
  switch (op) {
    case OP_ADD: RUN(a + b); break;
    case OP_SUB: RUN(a - b); break;
    case OP_MUL: RUN(a * b); break;
    case OP_DIV: RUN(a / b); break;
    case OP_MAX: RUN((a != a || a > b) ? a : b); break; /* NaN propagates, as np.maximum */
    case OP_MIN: RUN((a != a || a < b) ? a : b); break;
    case OP_SQDIFF: RUN((a - b) * (a - b)); break;
    default: break;
  }
}

static void bin_rows(void* p, int64_t begin, int64_t end) {
  BinJob* j = (BinJob*)p;
  const int last = j->rank - 1;
  int64_t index[MAX_RANK] = {0};
  int64_t rem = begin, xo = 0, yo = 0;
  for (int d = last - 1; d >= 0; --d) {
    index[d] = rem % j->dims[d];
    rem /= j->dims[d];
    xo += index[d] * j->xs[d];
    yo += index[d] * j->ys[d];
  }
  const int sx = j->xs[last] != 0, sy = j->ys[last] != 0;
  for (int64_t r = begin; r < end; ++r) {
    run(j->op, j->x + xo, sx, j->y + yo, sy, j->z + r * j->row, j->row);
    for (int d = last - 1; d >= 0; --d) { /* next row */
      xo += j->xs[d];
      yo += j->ys[d];
      if (++index[d] < j->dims[d]) break;
      xo -= j->xs[d] * j->dims[d];
      yo -= j->ys[d] * j->dims[d];
      index[d] = 0;
    }
  }
}

static void tiled_rows(void* p, int64_t begin, int64_t end) {
  BinJob* j = (BinJob*)p;
  for (int64_t t = begin; t < end; ++t) {
    int64_t r0 = t * j->tile_rows, r1 = r0 + j->tile_rows < j->dims[0] ? r0 + j->tile_rows : j->dims[0];
    int64_t off = r0 * j->row, n = (r1 - r0) * j->row;
    if (j->tile_is_x) {
      run(j->op, j->tile, 1, j->y + off, 1, j->z + off, n);
    } else {
      run(j->op, j->x + off, 1, j->tile, 1, j->z + off, n);
    }
  }
}

#define TILE_ROWS_FOR 32 /* rows shorter than this run in tiles */
#define TILE_ELEMENTS 512

static void flat_range(void* p, int64_t begin, int64_t end) {
  BinJob* j = (BinJob*)p;
  const int sx = j->xs[0] != 0, sy = j->ys[0] != 0;
  run(j->op, j->x + (sx ? begin : 0), sx, j->y + (sy ? begin : 0), sy, j->z + begin, end - begin);
}

static void binary_compute(void* state, TF_OpKernelContext* ctx) {
  Binary* k = (Binary*)state;
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *y = NULL, *z = NULL;
  char sx[128], sy[128];
  int64_t xd[MAX_RANK], yd[MAX_RANK];
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &y, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  int rx = TF_NumDims(x), ry = TF_NumDims(y);
  int rank = rx > ry ? rx : ry;
  BinJob j;
  memset(&j, 0, sizeof j);
  j.op = k->op;
  if (rank > MAX_RANK) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "broadcasting of rank %d is not supported by the native kernel", rank);
    goto done;
  }
  int same = rx == ry;
  for (int d = 0; d < rank; ++d) {
    xd[d] = d - (rank - rx) >= 0 ? TF_Dim(x, d - (rank - rx)) : 1;
    yd[d] = d - (rank - ry) >= 0 ? TF_Dim(y, d - (rank - ry)) : 1;
    same = same && xd[d] == yd[d];
    if (xd[d] != yd[d] && xd[d] != 1 && yd[d] != 1) {
      mtk_shape_str(x, sx, sizeof sx);
      mtk_shape_str(y, sy, sizeof sy);
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "Incompatible shapes: %s vs. %s", sx, sy);
      goto done;
    }
    j.dims[d] = xd[d] == 1 ? yd[d] : xd[d];
  }
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= j.dims[d];
  /* Release the handles so the runtime may give an operand's buffer to the output. The inputs' memory stays
     the runtime's for the whole call (the context holds the inputs; a forwarded one's memory is the output's),
     so their data pointers outlive the handles: no second TF_GetInput. */
  j.x = (const float*)TF_TensorData(x);
  j.y = (const float*)TF_TensorData(y);
  int64_t x_count = TF_TensorElementCount(x), y_count = TF_TensorElementCount(y);
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  x = y = NULL;
  int candidates[2], nc = 0, forwarded = -1;
  int x_full = rx == rank, y_full = ry == rank;
  for (int d = 0; d < rank; ++d) {
    x_full = x_full && xd[d] == j.dims[d];
    y_full = y_full && yd[d] == j.dims[d];
  }
  if (x_full) candidates[nc++] = 0;
  if (y_full) candidates[nc++] = 1;
  z = TF_ForwardInputOrAllocateOutput(ctx, candidates, nc, 0, j.dims, rank, &forwarded, s);
  if (TF_GetCode(s) != TF_OK) goto fail;
  if (total == 0) goto done;
  j.z = (float*)TF_TensorData(z);
  if (same || rank == 0 || x_count == 1 || y_count == 1) {
    j.xs[0] = x_count == total ? 1 : 0;
    j.ys[0] = y_count == total ? 1 : 0;
    mtk_parallel_for(total, MTK_GRAIN_CHEAP, flat_range, &j);
    goto done;
  }
  /* Collapse: size-1 output dimensions go, neighbours where each operand is alike (both stretched or both
     full) merge, so the rows get as long as the broadcast allows. */
  int cr = 0;
  int64_t cd[MAX_RANK], cxd[MAX_RANK], cyd[MAX_RANK];
  for (int d = 0; d < rank; ++d) {
    if (j.dims[d] == 1) continue;
    int xb = xd[d] == 1, yb = yd[d] == 1;
    if (cr > 0 && xb == (cxd[cr - 1] == 1) && yb == (cyd[cr - 1] == 1)) {
      cd[cr - 1] *= j.dims[d];
      cxd[cr - 1] *= xd[d];
      cyd[cr - 1] *= yd[d];
    } else {
      cd[cr] = j.dims[d];
      cxd[cr] = xd[d];
      cyd[cr] = yd[d];
      ++cr;
    }
  }
  j.rank = cr;
  int64_t sxs = 1, sys = 1;
  for (int d = cr - 1; d >= 0; --d) {
    j.dims[d] = cd[d];
    j.xs[d] = cxd[d] == 1 ? 0 : sxs;
    j.ys[d] = cyd[d] == 1 ? 0 : sys;
    sxs *= cxd[d];
    sys *= cyd[d];
  }
  j.row = j.dims[cr - 1];
  float tile[TILE_ELEMENTS + TILE_ROWS_FOR];
  if (cr == 2 && j.row < TILE_ROWS_FOR && (j.xs[0] == 0) != (j.ys[0] == 0) && j.xs[1] != 0 && j.ys[1] != 0) {
    /* [R, C] op [1, C] (or the reverse) with short rows: the row repeated into a tile, rows run tile by tile */
    j.tile_is_x = j.xs[0] == 0;
    const float* src = j.tile_is_x ? j.x : j.y;
    j.tile_rows = TILE_ELEMENTS / j.row;
    for (int64_t r = 0; r < j.tile_rows; ++r) memcpy(tile + r * j.row, src, sizeof(float) * (size_t)j.row);
    j.tile = tile;
    int64_t tasks = (j.dims[0] + j.tile_rows - 1) / j.tile_rows;
    mtk_parallel_for(tasks, MTK_GRAIN_CHEAP / TILE_ELEMENTS + 1, tiled_rows, &j);
    goto done;
  }
  mtk_parallel_for(total / j.row, MTK_GRAIN_CHEAP / j.row + 1, bin_rows, &j);
  goto done;
fail:
  TF_OpKernelContext_Failure(ctx, s);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteTensor(z);
  TF_DeleteStatus(s);
}

#define CREATE(NAME, OP)                                         \
  static void* NAME(TF_OpKernelConstruction* ctx) {              \
    (void)ctx;                                                   \
    Binary* k = (Binary*)calloc(1, sizeof(Binary));              \
    if (k != NULL) k->op = OP;                                   \
    return k;                                                    \
  }
CREATE(add_create, OP_ADD)
CREATE(sub_create, OP_SUB)
CREATE(mul_create, OP_MUL)
CREATE(div_create, OP_DIV)
CREATE(max_create, OP_MAX)
CREATE(min_create, OP_MIN)
CREATE(sqdiff_create, OP_SQDIFF)
static void binary_destroy(void* p) { free(p); }

void mtk_register_binary(TF_Status* s) {
  static const struct {
    const char *kernel, *op;
    void* (*create)(TF_OpKernelConstruction*);
  } ops[] = {
      {"MtkAddV2", "AddV2", add_create},       {"MtkAdd", "Add", add_create},
      {"MtkSub", "Sub", sub_create},           {"MtkMul", "Mul", mul_create},
      {"MtkRealDiv", "RealDiv", div_create},   {"MtkMaximum", "Maximum", max_create},
      {"MtkMinimum", "Minimum", min_create},   {"MtkSquaredDifference", "SquaredDifference", sqdiff_create},
  };
  for (size_t i = 0; i < sizeof ops / sizeof *ops && TF_GetCode(s) == TF_OK; ++i) {
    mtk_register(ops[i].kernel, ops[i].op, ops[i].create, binary_compute, binary_destroy, s);
  }
}
