// A C++ op library as third parties write them against TensorFlow's C API: the op is
// registered by a static initializer while the library is being loaded (no entry point).
// Its kernel comes from another library (kernel_semantics.c), loaded before or after.
#include "tensorflow/c/ops.h"

namespace {

void same_shape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* shape = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, shape, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, shape, status);
  TF_DeleteShapeHandle(shape);
}

void unary_op(const char* name, const char* types) {
  TF_Status* status = TF_NewStatus();
  TF_OpDefinitionBuilder* op = TF_NewOpDefinitionBuilder(name);
  TF_OpDefinitionBuilderAddInput(op, "x: T");
  TF_OpDefinitionBuilderAddOutput(op, "y: T");
  TF_OpDefinitionBuilderAddAttr(op, types);
  TF_OpDefinitionBuilderSetShapeInferenceFunction(op, &same_shape);
  TF_RegisterOpDefinition(op, status);
  TF_DeleteStatus(status);
}

struct Registrar {
  Registrar() {
    unary_op("MtSemLate", "T: {float, double}");
    unary_op("MtSemDup", "T: {float}");
  }
};

const Registrar registered_at_load_time;

}  // namespace
