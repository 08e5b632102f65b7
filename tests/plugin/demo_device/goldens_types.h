/* One kernel case of goldens.h: the op, its inputs' shapes (values come from the harness's
 * formula), its attrs, and TensorFlow's output. */
#ifndef DEMO_DEVICE_GOLDENS_TYPES_H_
#define DEMO_DEVICE_GOLDENS_TYPES_H_
#include <stdint.h>

typedef struct GoldenCase {
  const char* op;
  const char* label;
  int num_inputs;
  int in_rank[2];
  int64_t in_dims[2][4];
  int transpose_a, transpose_b;
  int64_t strides[4];
  int64_t ksize[4];
  const char* padding;
  int out_rank;
  int64_t out_dims[4];
  int64_t out_count;
  const float* out;
} GoldenCase;

#endif
