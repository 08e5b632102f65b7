/* The fake runtime of the demo device harness (see fake_tf.c). */
#ifndef DEMO_DEVICE_FAKE_TF_H_
#define DEMO_DEVICE_FAKE_TF_H_

#include "tensorflow/c/experimental/stream_executor/stream_executor.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/kernels_experimental.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

struct TF_Tensor {
  TF_DataType dtype;
  int nd;
  int64_t dims[8];
  void* data;
  size_t len;
};

struct TF_KernelBuilder {
  char op[32], device[32];
  void* (*create)(TF_OpKernelConstruction*);
  void (*compute)(void*, TF_OpKernelContext*);
  void (*destroy)(void*);
  int constrained_float;
};

enum { FAKE_BOOL = 1, FAKE_STRING, FAKE_INTS };

typedef struct FakeAttr {
  const char* name;
  int kind;
  int b;
  const char* s;
  int n;
  int64_t ints[4];
} FakeAttr;

struct TSL_Status {
  TF_Code code;
  char msg[512];
};

struct TF_OpKernelConstruction {
  const FakeAttr* attrs; /* terminated by an entry with name NULL */
  int failed;
  TF_Status status; /* what TF_OpKernelConstruction_Failure reported */
};

struct TF_OpKernelContext {
  SP_Stream stream;
  const SP_Device* device;
  const SP_StreamExecutor* se;
  TF_Tensor* inputs[2];
  int num_inputs;
  TF_Tensor* output;             /* set by TF_AllocateOutput (owned by the context) */
  SP_DeviceMemoryBase output_mem; /* its device memory (deallocated by the harness) */
  int failed;
  TF_Status status; /* what TF_OpKernelContext_Failure reported */
};

TF_Tensor* fake_tensor(TF_DataType dtype, const int64_t* dims, int nd, void* data, size_t len);
const TF_KernelBuilder* fake_find_kernel(const char* op, const char* device);
int fake_num_kernels(void);
void fake_free_kernels(void);

#endif
