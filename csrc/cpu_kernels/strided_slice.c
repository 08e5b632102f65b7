/* StridedSlice (float32): TF's slice spec (begin/end/strides vectors and the five bit masks) expanded to one
 * (start, step, size) per input dim, then the selected elements gathered over the pool.
 *
 * Why native: the numpy kernel copies on one thread into memory numpy allocates fresh, while the op sits between
 * convolutions (Keras's Cropping2D after ZeroPadding2D in NASNet: four slices of up to 12.6 MB at batch 8 took
 * 3 ms of a 77 ms step on two threads, TF's kernel ~1.9 on one). The spec rules and messages are those of the
 * numpy kernel (kernels/cpu/strided_slice.py, checked against TF); other dtypes stay with it. An identity slice
 * returns its input, as TF's kernel does. */
#include <stdlib.h>
#include <string.h>

#include "mtk.h"

#define MAX_SPEC 64 /* entries of the sparse spec, the implied ellipsis included */
#define MAX_DIMS 64

typedef struct {
  const float* x;
  float* y;
  int dims;                                 /* leading dims iterated per row */
  int64_t start[MAX_DIMS], step[MAX_DIMS], size[MAX_DIMS], in_stride[MAX_DIMS];
  int64_t extra;                            /* input offset of a row's first element beyond its dims' */
  int64_t run;                              /* elements per row */
  int64_t run_step;                         /* the input step between a row's elements: 1 when contiguous */
  int64_t rows;
} SliceJob;

static void slice_rows(void* p, int64_t begin, int64_t end) {
  const SliceJob* j = (const SliceJob*)p;
  for (int64_t r = begin; r < end; ++r) {
    int64_t rem = r, offset = j->extra;
    for (int d = j->dims - 1; d >= 0; --d) {
      int64_t k = rem % j->size[d];
      rem /= j->size[d];
      offset += (j->start[d] + k * j->step[d]) * j->in_stride[d];
    }
    float* out = j->y + r * j->run;
    const float* in = j->x + offset;
    if (j->run_step == 1) {
      memcpy(out, in, (size_t)j->run * sizeof(float));
    } else {
      for (int64_t k = 0; k < j->run; ++k) out[k] = in[k * j->run_step];
    }
  }
}

static void* slice_create(TF_OpKernelConstruction* ctx) {
  int64_t* masks = (int64_t*)calloc(5, sizeof(int64_t));
  static const char* const names[] = {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                      "shrink_axis_mask"};
  if (masks == NULL) {
    mtk_fail_construction(ctx, TF_RESOURCE_EXHAUSTED, "out of memory creating a StridedSlice kernel");
    return NULL;
  }
  TF_Status* s = TF_NewStatus();
  for (int i = 0; i < 5; ++i) {
    int64_t v = 0;
    TF_OpKernelConstruction_GetAttrInt64(ctx, names[i], &v, s);
    masks[i] = TF_GetCode(s) == TF_OK ? v : 0;
    TF_SetStatus(s, TF_OK, "");
  }
  TF_DeleteStatus(s);
  return masks;
}

static void slice_destroy(void* p) { free(p); }

/* The entry i of a spec vector (int32 or int64). */
static int64_t spec_at(const TF_Tensor* t, int64_t i) { return mtk_int_at(TF_TensorData(t), TF_TensorType(t), i); }

static void slice_compute(void* state, TF_OpKernelContext* ctx) {
  const int64_t* masks = (const int64_t*)state;
  const int64_t begin_mask = masks[0], end_mask = masks[1], new_axis_mask = masks[3], shrink_mask = masks[4];
  int64_t ellipsis_mask = masks[2];
  TF_Status* s = TF_NewStatus();
  TF_Tensor *x = NULL, *b = NULL, *e = NULL, *st = NULL, *y = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 1, &b, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 2, &e, s);
  if (TF_GetCode(s) == TF_OK) TF_GetInput(ctx, 3, &st, s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  int same = TF_NumDims(b) == 1 && TF_NumDims(e) == 1 && TF_NumDims(st) == 1 && TF_Dim(e, 0) == TF_Dim(b, 0) &&
             TF_Dim(st, 0) == TF_Dim(b, 0);
  if (!same) {
    char sb[128], se[128], ss[128];
    mtk_shape_str(b, sb, sizeof sb);
    mtk_shape_str(e, se, sizeof se);
    mtk_shape_str(st, ss, sizeof ss);
    mtk_fail(ctx, TF_INVALID_ARGUMENT,
             "Expected begin, end, and strides to be 1D equal size tensors, but got shapes %s, %s, and %s instead.",
             sb, se, ss);
    goto done;
  }
  const int ndim = TF_NumDims(x);
  int n = (int)TF_Dim(b, 0);
  if (n >= MAX_SPEC || ndim > MAX_DIMS) {
    mtk_fail(ctx, TF_UNIMPLEMENTED, "StridedSlice with %d spec entries on a rank-%d input is not supported", n, ndim);
    goto done;
  }
  if (ellipsis_mask & (ellipsis_mask - 1)) {
    mtk_fail(ctx, TF_INVALID_ARGUMENT, "Multiple ellipses in slice spec not allowed");
    goto done;
  }
  /* the sparse spec over the input's dims: the ellipsis (an entry's, or implied after the last entry when no
     entry is one: mask bits past the entries do not count) covers the dims no entry names; new axes take no
     input dim */
  int implied = ((uint64_t)ellipsis_mask & (((uint64_t)1 << n) - 1)) == 0;
  if (implied) ellipsis_mask = (int64_t)((uint64_t)ellipsis_mask | (uint64_t)1 << n);
  const int entries = n + implied;
  int ellipsis_at = 0;
  while (!((ellipsis_mask >> ellipsis_at) & 1)) ++ellipsis_at;
  int new_after = 0;
  for (int i = ellipsis_at + 1; i < entries; ++i) new_after += (int)((new_axis_mask >> i) & 1);
  int64_t lo[MAX_DIMS], hi[MAX_DIMS], step[MAX_DIMS];
  unsigned char lo_m[MAX_DIMS], hi_m[MAX_DIMS], shrink[MAX_DIMS];
  int final_kind[MAX_SPEC + MAX_DIMS]; /* per final-shape slot: a dense dim, -1 a new axis, -2 shrunk */
  int dense = 0, slots = 0;
  for (int i = 0; i < entries; ++i) {
    if ((ellipsis_mask >> i) & 1) {
      int stop = ndim - (entries - i) + 1 + new_after;
      if (stop > ndim) stop = ndim;
      while (dense < stop) {
        lo[dense] = hi[dense] = 0;
        step[dense] = 1;
        lo_m[dense] = hi_m[dense] = 1;
        shrink[dense] = 0;
        final_kind[slots++] = dense++;
      }
    } else if ((new_axis_mask >> i) & 1) {
      final_kind[slots++] = -1;
    } else {
      if (dense == ndim) {
        if (ndim == 0) {
          mtk_fail(ctx, TF_INVALID_ARGUMENT, "Attempting to slice scalar input.");
        } else {
          mtk_fail(ctx, TF_INVALID_ARGUMENT, "Index out of range using input dim %d; input has only %d dims", dense,
                   ndim);
        }
        goto done;
      }
      lo[dense] = spec_at(b, i);
      hi[dense] = spec_at(e, i);
      step[dense] = spec_at(st, i);
      lo_m[dense] = (unsigned char)((begin_mask >> i) & 1);
      hi_m[dense] = (unsigned char)((end_mask >> i) & 1);
      shrink[dense] = (unsigned char)((shrink_mask >> i) & 1);
      final_kind[slots++] = shrink[dense] ? -2 : dense;
      ++dense;
    }
  }
  /* per dense dim: its first index, step and count (TF's canonicalization and clamping) */
  SliceJob j;
  memset(&j, 0, sizeof j);
  int identity = dense == ndim;
  for (int i = 0; i < dense; ++i) {
    const int64_t dim = TF_Dim(x, i), stride = step[i];
    if (stride == 0) {
      mtk_fail(ctx, TF_INVALID_ARGUMENT, "strides[%d] must be non-zero", i);
      goto done;
    }
    if (shrink[i]) { /* TF's kernel checks the stride first and names the index counted from the start */
      if (stride <= 0) {
        mtk_fail(ctx, TF_INVALID_ARGUMENT, "only stride 1 allowed on non-range indexing.");
        goto done;
      }
      int64_t pos = lo[i] < 0 ? lo[i] + dim : lo[i];
      if (pos < 0 || pos >= dim) {
        mtk_fail(ctx, TF_INVALID_ARGUMENT, "slice index %lld of dimension %d out of bounds.", (long long)pos, i);
        goto done;
      }
      j.start[i] = pos;
      j.step[i] = 1;
      j.size[i] = 1;
    } else {
      const int64_t lower = stride > 0 ? 0 : -1, upper = stride > 0 ? dim : dim - 1;
      int64_t first, last;
      if (lo_m[i]) {
        first = stride > 0 ? lower : upper;
      } else {
        first = lo[i] < 0 ? lo[i] + dim : lo[i];
        first = first < lower ? lower : (first > upper ? upper : first);
      }
      if (hi_m[i]) {
        last = stride > 0 ? upper : lower;
      } else {
        last = hi[i] < 0 ? hi[i] + dim : hi[i];
        last = last < lower ? lower : (last > upper ? upper : last);
      }
      /* elements from first toward last, one every |stride| (unsigned: any int64 stride, INT64_MIN included) */
      const int64_t span = stride > 0 ? last - first : first - last;
      const uint64_t every = stride > 0 ? (uint64_t)stride : (uint64_t)0 - (uint64_t)stride;
      j.start[i] = first;
      j.step[i] = stride;
      j.size[i] = span > 0 ? (int64_t)(((uint64_t)span - 1) / every + 1) : 0;
    }
    identity = identity && j.start[i] == 0 && j.step[i] == 1 && j.size[i] == dim;
  }
  int64_t out_dims[MAX_SPEC + MAX_DIMS];
  int out_rank = 0;
  int64_t total = 1;
  for (int k = 0; k < slots; ++k) {
    if (final_kind[k] == -2) continue;
    out_dims[out_rank] = final_kind[k] == -1 ? 1 : j.size[final_kind[k]];
    total *= out_dims[out_rank++];
  }
  if (identity) { /* the input itself, as TF's kernel forwards it (only 1-dims may come or go) */
    y = TF_AllocateTensor(TF_FLOAT, out_dims, out_rank, 0);
    if (y != NULL) TF_TensorBitcastFrom(x, TF_FLOAT, y, out_dims, out_rank, s);
    if (y != NULL && TF_GetCode(s) == TF_OK) TF_SetOutput(ctx, 0, y, s);
    if (y == NULL || TF_GetCode(s) != TF_OK) {
      if (y == NULL) TF_SetStatus(s, TF_RESOURCE_EXHAUSTED, "out of memory");
      TF_OpKernelContext_Failure(ctx, s);
    }
    goto done;
  }
  y = TF_AllocateOutput(ctx, 0, TF_FLOAT, out_dims, out_rank, (size_t)total * sizeof(float), s);
  if (TF_GetCode(s) != TF_OK) {
    TF_OpKernelContext_Failure(ctx, s);
    goto done;
  }
  if (total == 0) goto done;
  /* Rows of the output: the dims before a contiguous run of the input. Whole trailing dims (tail ..) are one run;
     a partial dim before them read at step 1 extends it; else that dim is iterated too, or, when the last dim
     itself is read at another step, its elements are gathered at that step. */
  int64_t in_stride = 1;
  for (int i = dense - 1; i >= 0; --i) {
    j.in_stride[i] = in_stride;
    in_stride *= TF_Dim(x, i);
  }
  int tail = dense;
  while (tail > 0 && j.start[tail - 1] == 0 && j.step[tail - 1] == 1 && j.size[tail - 1] == TF_Dim(x, tail - 1))
    --tail;
  j.run_step = 1;
  if (tail == 0) { /* every dim whole: the identity, returned above */
    j.dims = 0;
    j.run = total;
  } else if (j.step[tail - 1] == 1) {
    j.dims = tail - 1;
    j.extra = j.start[tail - 1] * j.in_stride[tail - 1];
    j.run = j.size[tail - 1] * j.in_stride[tail - 1];
  } else if (tail < dense) {
    j.dims = tail;
    j.run = j.in_stride[tail - 1];
  } else {
    j.dims = dense - 1;
    j.extra = j.start[dense - 1];
    j.run = j.size[dense - 1];
    j.run_step = j.step[dense - 1];
  }
  j.x = (const float*)TF_TensorData(x);
  j.y = (float*)TF_TensorData(y);
  j.rows = 1;
  for (int i = 0; i < j.dims; ++i) j.rows *= j.size[i];
  mtk_parallel_for(j.rows, 32768 / (j.run + 1) + 1, slice_rows, &j);
done:
  TF_DeleteTensor(x);
  TF_DeleteTensor(b);
  TF_DeleteTensor(e);
  TF_DeleteTensor(st);
  TF_DeleteTensor(y);
  TF_DeleteStatus(s);
}

void mtk_register_strided_slice(TF_Status* s) {
  mtk_register("MtkStridedSlice", "StridedSlice", slice_create, slice_compute, slice_destroy, s);
}
