/* The part of the fused_optimizer example that does not depend on the device: the graph
 * rewrite Relu(BiasAdd(MatMul(a, b), bias)) -> MyFusedMatMulBiasRelu(a, b, bias) (with its
 * small GraphDef codec), the optimizer's registration for one device type, the op definition
 * and the shape checks its kernels share. fused_optimizer.c adds a CPU kernel and the entry
 * points for a standalone CPU plugin; examples/plugins/demo_device/fused_kernel.c adds the
 * demo device's kernel and builds all of it into the device plugin (make WITH_FUSED_OPTIMIZER=1). */
#ifndef FUSED_REWRITE_H_
#define FUSED_REWRITE_H_

#include <stdint.h>

#include "tensorflow/c/experimental/grappler/grappler.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

#define FUSED_OP "MyFusedMatMulBiasRelu"

/* Internal to the plugin: only the TF_Init* entry points are exported. */
#define FUSED_INTERNAL __attribute__((visibility("hidden")))

/* Fills TF_InitGraph's params: an optimizer for `device_type` (a string that must outlive the
 * plugin) recommending `remapping` off. With `pinned_only` it fuses only chains whose nodes are
 * placed on `device_type` (a device plugin: its kernel exists only there); without it, any chain
 * whose three nodes name the same device (the CPU plugin, whose kernel runs wherever the CPU does). */
FUSED_INTERNAL void fused_optimizer_register(TP_OptimizerRegistrationParams* params, const char* device_type,
                                             int pinned_only, TF_Status* status);

/* Registers the op MyFusedMatMulBiasRelu(a: T, b: T, bias: T) -> product: T, T in {float},
 * transpose_a, transpose_b. */
FUSED_INTERNAL void fused_op_register(TF_Status* status);

/* The output shape [m, n] and the inner size k of the fused op, as MatMul + BiasAdd check them;
 * 0 with INVALID_ARGUMENT in `status` when a, b and bias do not fit together. */
FUSED_INTERNAL int fused_op_shapes(const TF_Tensor* a, const TF_Tensor* b, const TF_Tensor* bias, int transpose_a,
                                   int transpose_b, int64_t* m, int64_t* k, int64_t* n, TF_Status* status);

#endif /* FUSED_REWRITE_H_ */
