/* modtensor's native CPU kernels: internal declarations shared by the kernel files.
 *
 * The library is a plugin like any other: it includes only TensorFlow's C API
 * headers, registers its kernels in TF_InitKernel (register.c) and is loaded by
 * the runtime at first use. Everything here is float32, NHWC-first. */
#ifndef MODTENSOR_CPU_KERNELS_MTK_H_
#define MODTENSOR_CPU_KERNELS_MTK_H_

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#define MTK_EXPORT __attribute__((visibility("default")))

/* Hot loops are compiled for AVX-512, AVX2+FMA and baseline x86-64, chosen at load time. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(MTK_NO_CLONES)
#define MTK_HOT __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MTK_HOT
#endif

/* ------------------------------------------------------------ thread pool */
/* fn(ctx, begin, end) over [0, n) in chunks of at least `grain` items, on up to the
 * configured number of threads (the caller is one of them). A call made while the
 * pool is busy with another op runs on the calling thread alone, so concurrent ops
 * never oversubscribe the cores. */
typedef void (*mtk_range_fn)(void* ctx, int64_t begin, int64_t end);
void mtk_parallel_for(int64_t n, int64_t grain, mtk_range_fn fn, void* ctx);
/* Elements per chunk of the elementwise kernels, so that a chunk is worth a thread handoff (~20 us of work; a
 * sleeping worker takes tens of microseconds to wake): vectorized arithmetic runs ~0.13 ns an element, the
 * vectorized exp/tanh/erf family ~0.6 ns. */
#define MTK_GRAIN_CHEAP 131072
#define MTK_GRAIN_MATH 32768
int mtk_num_threads(void);
MTK_EXPORT void modtensor_cpu_kernels_set_num_threads(int n);
MTK_EXPORT int modtensor_cpu_kernels_get_num_threads(void);

/* ------------------------------------------------------------ GEMM */
/* What a micro-kernel applies to its block of C as it stores it, on the last depth block of a product (the fused
 * epilogues bias / folded batch norm [+ residual add] [+ Relu or Relu6], TF's order, the same float operations as
 * mtk_epilogue_block): C = act(C * mul + shift + add). mul and shift point at the block's first column (per column;
 * mul NULL: none; shift NULL: neither), add at the block's first element (row stride ld_add) or NULL. A NULL post
 * is a plain store. */
typedef struct {
  const float* mul;
  const float* shift;
  const float* add;
  int64_t ld_add;
  int act; /* MTK_ACT_NONE, MTK_ACT_RELU or MTK_ACT_RELU6 */
} mtk_post;
/* A micro-kernel: C[m, n] (+)= A_panel[kc x MR] * B_panel[kc x NR], m <= MR, n <= NR (panels zero-padded). */
typedef void (*mtk_ukernel)(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int accumulate, int m,
                            int n, const mtk_post* post);
/* The same with A row-major in place (row stride lda), no A panel. */
typedef void (*mtk_ukernel_rows)(int64_t kc, const float* a, int64_t lda, const float* b, float* c, int64_t ldc,
                                 int accumulate, int m, int n, const mtk_post* post);
/* Implicit GEMM (convolution without a patch matrix): the depth is `ntaps` runs of `depth` values, and the MR rows of
 * A in run t start at ptrs[t * MR + i] (rows beyond m repeat a valid pointer; they are read, never stored). Run t's
 * `depth` rows of B start at b + boff[t] in one packed panel (a single depth block). Row i of the block goes to
 * c + rowidx[i] * ldc (and the epilogue's residual row to post->add + rowidx[i] * post->ld_add): the pixels of a
 * block need not be consecutive. The block is stored, not accumulated. */
typedef void (*mtk_ukernel_indirect)(int64_t ntaps, int64_t depth, const float* const* ptrs, const float* b,
                                     const int64_t* boff, float* c, int64_t ldc, const int64_t* rowidx, int m, int n,
                                     const mtk_post* post);
typedef struct {
  int mr, nr;       /* register block */
  int64_t kc, mc;   /* cache blocks: depth of a packed panel pair, rows of a packed A block */
  mtk_ukernel kernel;
  mtk_ukernel_rows kernel_rows; /* NULL: A is always packed */
  mtk_ukernel_indirect kernel_indirect;
  const char* name;
} mtk_gemm_arch;
const mtk_gemm_arch* mtk_gemm_arch_get(void);
const mtk_gemm_arch* mtk_gemm_arch_generic(void);

/* B [K, N] (or its transpose, [N, K]) packed once into NR-column panels per KC-deep block, shared read-only by
 * every task of a product: the layout the micro-kernel reads. */
typedef struct {
  float* data;
  int64_t k, n, n_panels;
  int64_t kc; /* depth of a block: the arch's kc, or k for one block (the implicit-GEMM convolution) */
  const mtk_gemm_arch* arch;
} mtk_packed_b;
int mtk_pack_b(mtk_packed_b* pb, int trans_b, int64_t k, int64_t n, const float* b, int64_t ldb);
/* The same with blocks of depth kc (<= 0: the arch's). */
int mtk_pack_b_depth(mtk_packed_b* pb, int trans_b, int64_t k, int64_t n, const float* b, int64_t ldb, int64_t kc);
void mtk_packed_b_free(mtk_packed_b* pb);
/* C[rows, c0:c1] (+)= A[rows, K] * B[:, c0:c1] with B packed and A row-major (lda) or transposed; c0 a multiple of
 * NR. Single-threaded: one task of a product. */
void mtk_gemm_packed(int trans_a, int64_t m, const float* a, int64_t lda, const mtk_packed_b* pb, int64_t c0,
                     int64_t c1, float* c, int64_t ldc, int accumulate);
/* The same with the epilogue `ep` (NULL, or one mtk_post_of expresses) fused into the micro-kernels' stores; r0: the
 * row of the whole product where c starts (the addend's row). */
struct mtk_epilogue_args_s;
void mtk_gemm_packed_ep(int trans_a, int64_t m, const float* a, int64_t lda, const mtk_packed_b* pb, int64_t c0,
                        int64_t c1, float* c, int64_t ldc, int accumulate, const struct mtk_epilogue_args_s* ep,
                        int64_t r0);

/* C[M,N] (row stride ldc) = op(A)[M,K] * op(B)[K,N] (+ C when accumulate), row-major.
 * Single-threaded (packs B privately): callers split the work over the pool themselves. */
void mtk_sgemm(int trans_a, int trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
               int64_t ldb, float* c, int64_t ldc, int accumulate);
/* A product over the pool: C[m, n] = A * B (+ the epilogue per block), B packed once and shared. A is a
 * row-major matrix (a, lda, trans_a) or, when `rows` is set, produced tile by tile: rows(ctx, r0, r1, dst) fills
 * dst[r1 - r0, k] (the patch rows of a convolution). Returns -1 when out of memory. */
typedef struct {
  int64_t m, n, k;
  const float* a;
  int64_t lda;
  int trans_a;
  void (*rows)(void* ctx, int64_t r0, int64_t r1, float* dst);
  void* rows_ctx;
  const float* b;
  int64_t ldb;
  int trans_b;
  float* c;
  int64_t ldc;
  const struct mtk_epilogue_args_s* ep;
  const mtk_packed_b* packed; /* B already packed (constant weights), or NULL */
} mtk_gemm_desc;
int mtk_gemm_parallel(const mtk_gemm_desc* d);
/* How a product of m x n is split over `parallel` threads: `tiles` row tiles (whole micro-tiles of mr rows, at most
 * mc rows unless few_rows) times `col_blocks` column blocks (whole panels of align columns), the micro-tiles and
 * panels dealt out evenly. Task t (of tiles * col_blocks) covers the rows and columns mtk_grid_task gives; `grain`
 * is the tasks per chunk to hand mtk_parallel_for (all of them for parallel <= 1: a product too small to share
 * never wakes the pool). */
typedef struct {
  int64_t m, n, mr, align, units, panels; /* units: micro-tiles of mr rows; panels: of align columns */
  int64_t tiles, col_blocks, grain;
} mtk_grid;
void mtk_gemm_grid(int64_t m, int64_t n, int64_t parallel, int64_t mc, int64_t mr, int64_t align, int few_rows,
                   mtk_grid* g);
static inline void mtk_grid_task(const mtk_grid* g, int64_t t, int64_t* r0, int64_t* r1, int64_t* c0, int64_t* c1) {
  int64_t tile = t / g->col_blocks, block = t % g->col_blocks;
  int64_t a = tile * g->units / g->tiles * g->mr, b = (tile + 1) * g->units / g->tiles * g->mr;
  *r0 = a < g->m ? a : g->m;
  *r1 = b < g->m ? b : g->m;
  a = block * g->panels / g->col_blocks * g->align;
  b = (block + 1) * g->panels / g->col_blocks * g->align;
  *c0 = a < g->n ? a : g->n;
  *c1 = b < g->n ? b : g->n;
}

/* Packed constant weights kept by a kernel instance between calls. Only for inputs the graph optimizer marked
 * constant (attr _modtensor_const_weights): a Const's buffer never changes, so the packing is reused while the
 * input is the same buffer (and repacked when it is not). Thread-safe; the packed copy lives while the kernel
 * holds the lock's result, which it does for the duration of one call (calls of one kernel do not free it while
 * another call uses it: it is replaced only on a different source buffer, which a constant input never is). */
typedef struct {
  pthread_mutex_t lock;
  const float* source;
  int trans_b;
  int64_t ldb, kc;
  mtk_packed_b packed;
} mtk_weights_cache;
void mtk_weights_cache_init(mtk_weights_cache* cache);
void mtk_weights_cache_destroy(mtk_weights_cache* cache);
/* kc: the packing's block depth (<= 0: the arch's). */
const mtk_packed_b* mtk_weights_cache_get(mtk_weights_cache* cache, int trans_b, int64_t k, int64_t n, const float* b,
                                          int64_t ldb, int64_t kc);

/* Sets numpy's OpenBLAS (when loaded) to one thread. */
void mtk_blas_init(void);
/* The micro-kernel in use ("avx512", "avx2", "generic"); forcing the portable one (tests of that path). */
MTK_EXPORT const char* modtensor_cpu_kernels_gemm(void);
MTK_EXPORT void modtensor_cpu_kernels_force_generic_gemm(int on);
/* True while the portable code paths are forced (tests of those paths). */
int mtk_generic_forced(void);

/* A whole depthwise convolution with depth multiplier 1 over the pool (depthwise.c): y[n, oh, ow, c] = the taps of
 * x[n, h, wd, c] times w[kh, kw, c], plus bias (or NULL) and bias_act (MTK_ACT_NONE, RELU or RELU6) in registers,
 * then `ep` (or NULL) on each output row. Returns 1 when done, 0 when this CPU takes the row path
 * (mtk_depthwise_row) instead, -1 when out of memory. */
typedef struct {
  const float* x;
  const float* w;
  float* y;
  int64_t n, h, wd, c, kh, kw, oh, ow, sh, sw, dh, dw, ph, pw;
  const float* bias;
  int bias_act;
  const struct mtk_epilogue_args_s* ep;
} mtk_dw_job;
int mtk_depthwise_fast(const mtk_dw_job* j);
/* One output row of a depthwise convolution with depth multiplier 1 (portable path); `bias` (or NULL) and `act`
 * (MTK_ACT_NONE, RELU or RELU6) are applied in registers. */
void mtk_depthwise_row(const float* x, const float* w, float* out, int64_t h, int64_t wd, int64_t c, int64_t kh,
                       int64_t kw, int64_t ow, int64_t oy, int64_t sh, int64_t sw, int64_t dh, int64_t dw, int64_t ph,
                       int64_t pw, const float* bias, int act);

/* ------------------------------------------------------------ fused epilogues */
enum { MTK_ACT_NONE = 0, MTK_ACT_RELU, MTK_ACT_RELU6, MTK_ACT_ELU, MTK_ACT_LEAKY_RELU, MTK_ACT_SIGMOID, MTK_ACT_TANH,
       MTK_ACT_GELU_EXACT, MTK_ACT_GELU_APPROX, MTK_ACT_SWISH };

/* What follows a contraction: per-channel bias or folded batch norm (scale, shift),
 * an optional residual addend of the output's shape, an optional activation. */
typedef struct {
  int has_bias;      /* BiasAdd: args[0] */
  int has_bn;        /* FusedBatchNorm: args[0..3] = scale, offset, mean, variance */
  int has_add;       /* Add: the next arg, same shape as the output */
  int activation;    /* MTK_ACT_* */
  float alpha;       /* leakyrelu_alpha */
  float epsilon;     /* batch norm epsilon */
  int num_args;      /* args the fused ops read */
} mtk_epilogue;

/* Parses TF's fused_ops list; returns 0, or -1 with a message in `error`. */
int mtk_parse_fused_ops(TF_OpKernelConstruction* ctx, const char* op, int allow_add, int allow_bn, int allow_gelu,
                        mtk_epilogue* ep, char* error, size_t error_len);

/* Per-call resolved epilogue: channel vectors (length N) and the addend. */
typedef struct mtk_epilogue_args_s {
  const mtk_epilogue* ep;
  const float* mul;    /* per-channel multiplier (batch norm) or NULL */
  const float* shift;  /* per-channel shift (bias or batch norm) or NULL */
  const float* addend; /* [rows, N] with row stride ld_add, or NULL */
  int64_t ld_add;
  float* owned;        /* storage for mul/shift when computed here */
  float* owned_addend; /* a broadcast copy of the Add operand */
} mtk_epilogue_args;

/* Reads the args of the fused ops from the kernel inputs (starting at input `first`), checks their
 * shapes for `channels` output channels and `out_elems` output elements; 0 or -1 with a failure set. */
/* out_dims: the output's shape in the layout the epilogue runs on; an Add operand of another shape is
 * broadcast to it (into owned memory) when it broadcasts, else the call fails. */
int mtk_epilogue_bind(TF_OpKernelContext* ctx, const mtk_epilogue* ep, int first, int64_t channels,
                      const int64_t* out_dims, int out_rank, mtk_epilogue_args* args, TF_Tensor** held,
                      TF_Status* status);
void mtk_epilogue_release(mtk_epilogue_args* args);
/* Applies the epilogue to rows [r0, r1), columns [c0, c1) of out (row stride ldc). */
void mtk_epilogue_block(const mtk_epilogue_args* args, float* out, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                        int64_t c1);
/* The micro-kernel store form of `args` for the block at row r, column c0 (0: it has none, then
 * mtk_epilogue_block runs instead): bias / batch norm, residual add, Relu, Relu6 or no activation. */
int mtk_post_of(const mtk_epilogue_args* args, int64_t r, int64_t c0, mtk_post* post);
/* One activation over a contiguous run (used by the elementwise kernels too). */
void mtk_activation(int act, float alpha, float* x, int64_t n);

/* ------------------------------------------------------------ helpers */
void mtk_fail(TF_OpKernelContext* ctx, TF_Code code, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
void mtk_fail_construction(TF_OpKernelConstruction* ctx, TF_Code code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reads a list(int) attr into `out` (up to max); returns its length or -1 (failure set). */
int mtk_attr_ints(TF_OpKernelConstruction* ctx, const char* name, int64_t* out, int max);
int mtk_has_attr(TF_OpKernelConstruction* ctx, const char* name);
/* A bool attr that may be absent (then 0). */
int mtk_attr_flag(TF_OpKernelConstruction* ctx, const char* name);
/* Reads a string attr into buf; returns 0 or -1 (failure set). */
int mtk_attr_string(TF_OpKernelConstruction* ctx, const char* name, char* buf, size_t len);
/* Thread-local scratch memory, grown as needed (never freed while the thread lives). `slot` picks one of a few
 * independent buffers. Returns NULL when out of memory. */
float* mtk_scratch(int slot, size_t count);
void* mtk_aligned_alloc(size_t bytes);

/* NCHW <-> NHWC copies of a [N, C, H*W] / [N, H*W, C] array. */
void mtk_nchw_to_nhwc(const float* src, float* dst, int64_t n, int64_t c, int64_t hw);
void mtk_nhwc_to_nchw(const float* src, float* dst, int64_t n, int64_t c, int64_t hw);

/* Windowed-op geometry along one spatial axis with TF's padding rules. */
typedef struct {
  int64_t in, out, k, stride, dilation, pad_before;
} mtk_axis;
enum { MTK_PAD_VALID = 0, MTK_PAD_SAME = 1, MTK_PAD_EXPLICIT = 2 };
/* 0, or -1 with TF's message in `error` (bad stride/dilation/padding, negative output size). */
int mtk_axis_init(mtk_axis* a, int64_t in, int64_t k, int64_t stride, int64_t dilation, int padding,
                  int64_t explicit_before, int64_t explicit_after, char* error, size_t error_len);

/* The attrs of a 2-D window op (conv or pool), read at construction; errors are reported at compute, as the
 * numpy kernels report them. */
typedef struct {
  int64_t strides[4], dilations[4], ksize[4], explicit_pad[8];
  int n_strides, n_dilations, n_ksize, n_explicit;
  int padding, nchw;
  TF_Code error_code;
  char error[320];
} mtk_window_attrs;
/* Reads strides, padding, data_format and (when present) dilations, explicit_paddings and ksize. -1 when the
 * attrs cannot be read at all (a construction failure is set). */
int mtk_window_attrs_read(TF_OpKernelConstruction* ctx, mtk_window_attrs* w);
/* Validates the attrs and computes the (H, W) axes for input [H, W] and kernel [KH, KW]; -1 with the failure set. */
int mtk_window_axes(TF_OpKernelContext* ctx, const mtk_window_attrs* w, int64_t h, int64_t wd, int64_t kh,
                    int64_t kw, int use_dilations, mtk_axis* ah, mtk_axis* aw);
/* "[1,2,3]" as TF prints shapes. */
void mtk_shape_str(const TF_Tensor* t, char* buf, size_t len);
int mtk_parse_padding(const char* s);

/* registration entry points, one per kernel file */
void mtk_register_conv(TF_Status* s);
void mtk_register_matmul(TF_Status* s);
void mtk_register_pooling(TF_Status* s);
void mtk_register_eltwise(TF_Status* s);
void mtk_register_pad(TF_Status* s);
void mtk_register_strided_slice(TF_Status* s);
void mtk_register_binary(TF_Status* s);
void mtk_register_concat(TF_Status* s);
void mtk_register_unary(TF_Status* s);
void mtk_register_reduce(TF_Status* s);
void mtk_register_transpose(TF_Status* s);
void mtk_register_einsum(TF_Status* s);
void mtk_register_image(TF_Status* s);
void mtk_register_select(TF_Status* s);
void mtk_register_layer_norm(TF_Status* s);
void mtk_register_random(TF_Status* s);
void mtk_register_cast(TF_Status* s);
void mtk_register_gather_scatter_nd(TF_Status* s);
void mtk_register_segment_sum(TF_Status* s);
void mtk_register_top_k(TF_Status* s);

/* Element i of the data of an integer tensor of `type` (index, shape, axis and count inputs: int16, int32 or
 * int64) as int64. */
static inline int64_t mtk_int_at(const void* data, TF_DataType type, int64_t i) {
  switch (type) {
    case TF_INT16: return ((const int16_t*)data)[i];
    case TF_INT32: return ((const int32_t*)data)[i];
    default: return ((const int64_t*)data)[i];
  }
}

/* Registers builder with float32 constraint on attr T and the library's priority. */
void mtk_register(const char* kernel_name, const char* op, void* (*create)(TF_OpKernelConstruction*),
                  void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*), TF_Status* s);

/* Registers a kernel for `op` with one type constraint per attr (attrs[i] must be types[i]) at the library's
 * priority, named after the op and the types (one registration per combination of dtypes). */
void mtk_register_types(const char* op, void* (*create)(TF_OpKernelConstruction*),
                        void (*compute)(void*, TF_OpKernelContext*), void (*destroy)(void*), const char* const* attrs,
                        const TF_DataType* types, int n, TF_Status* s);

#endif /* MODTENSOR_CPU_KERNELS_MTK_H_ */
