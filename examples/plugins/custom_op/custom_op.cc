// An example modtensor plugin: two ops with attributes and shape functions, and CPU
// kernels for float and double, written against TensorFlow's C API.
//
//   Polyval(x: T, coeffs: list(float), T: {float, double}) -> y: T
//       y = coeffs[0] * x^(n-1) + ... + coeffs[n-1], elementwise (numpy.polyval).
//       Kernels use the C API directly.
//   RowNorm(x: T, ord: int = 2, T: {float, double}) -> y: T
//       The 1- or 2-norm over the last dimension: y.shape = x.shape[:-1].
//       Kernels use modtensor's C++ convenience layer (modtensor/kernel_cpp.hpp).
//
// Build (see README.md):
//   FLAGS=$(python -c "import modtensor.sysconfig as s; print(' '.join(s.get_compile_flags()))")
//   g++ -std=c++17 -shared -fPIC -O2 custom_op.cc -o custom_op.so $FLAGS
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "modtensor/kernel_cpp.hpp"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

namespace {

// ------------------------------------------------------------------ shape functions

void UnchangedShape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* x = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, x, status);
  TF_DeleteShapeHandle(x);
}

// y.shape = x.shape[:-1]; x must have rank >= 1.
void RowNormShape(TF_ShapeInferenceContext* ctx, TF_Status* status) {
  TF_ShapeHandle* x = TF_NewShapeHandle();
  TF_ShapeHandle* rows = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextWithRankAtLeast(ctx, x, 1, x, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSubshape(ctx, x, 0, -1, rows, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, rows, status);
  TF_DeleteShapeHandle(rows);
  TF_DeleteShapeHandle(x);
}

// ------------------------------------------------------------------ Polyval: the plain C API

struct PolyvalState {
  std::vector<float> coeffs;
};

void* PolyvalCreate(TF_OpKernelConstruction* ctx) {
  auto* state = new PolyvalState;
  TF_Status* status = TF_NewStatus();
  int32_t list_size = 0, total_size = 0;
  TF_OpKernelConstruction_GetAttrSize(ctx, "coeffs", &list_size, &total_size, status);
  if (TF_GetCode(status) == TF_OK) {
    state->coeffs.resize(static_cast<size_t>(list_size));
    TF_OpKernelConstruction_GetAttrFloatList(ctx, "coeffs", state->coeffs.data(), list_size, status);
  }
  if (TF_GetCode(status) == TF_OK && list_size == 0) {
    TF_SetStatus(status, TF_INVALID_ARGUMENT, "Polyval needs at least one coefficient");
  }
  if (TF_GetCode(status) != TF_OK) TF_OpKernelConstruction_Failure(ctx, status);
  TF_DeleteStatus(status);
  return state;
}

template <typename T>
void PolyvalCompute(void* kernel, TF_OpKernelContext* ctx) {
  const auto* state = static_cast<const PolyvalState*>(kernel);
  TF_Status* status = TF_NewStatus();
  TF_Tensor* x = nullptr;
  TF_GetInput(ctx, 0, &x, status);
  std::vector<int64_t> dims(static_cast<size_t>(TF_NumDims(x)));
  for (size_t i = 0; i < dims.size(); ++i) dims[i] = TF_Dim(x, static_cast<int>(i));
  TF_Tensor* y = TF_AllocateOutput(ctx, 0, TF_ExpectedOutputDataType(ctx, 0), dims.data(),
                                   static_cast<int>(dims.size()), TF_TensorByteSize(x), status);
  if (TF_GetCode(status) == TF_OK) {
    const T* in = static_cast<const T*>(TF_TensorData(x));
    T* out = static_cast<T*>(TF_TensorData(y));
    for (int64_t i = 0; i < TF_TensorElementCount(x); ++i) {
      T acc = 0;
      for (float c : state->coeffs) acc = acc * in[i] + static_cast<T>(c);  // Horner
      out[i] = acc;
    }
  } else {
    TF_OpKernelContext_Failure(ctx, status);
  }
  TF_DeleteTensor(y);
  TF_DeleteTensor(x);
  TF_DeleteStatus(status);
}

void PolyvalDelete(void* kernel) { delete static_cast<PolyvalState*>(kernel); }

// ------------------------------------------------------------------ RowNorm: the C++ layer

template <typename T>
class RowNorm {
 public:
  explicit RowNorm(modtensor::OpKernelConstruction& ctx) {
    if (ctx.GetAttr("ord", &ord_) && ord_ != 1 && ord_ != 2) {
      ctx.Fail(TF_INVALID_ARGUMENT, "RowNorm: ord must be 1 or 2, got " + std::to_string(ord_));
    }
  }

  void Compute(modtensor::OpKernelContext& ctx) {
    modtensor::Tensor x = ctx.input(0);
    if (!ctx.ok()) return;
    std::vector<int64_t> shape = x.shape();
    if (shape.empty()) {
      ctx.Fail(TF_INVALID_ARGUMENT, "RowNorm: the input must have rank >= 1");
      return;
    }
    const int64_t row = shape.back();
    shape.pop_back();
    modtensor::Tensor y = ctx.allocate_output(0, shape);
    if (!ctx.ok()) return;
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (int64_t r = 0; r < y.num_elements(); ++r) {
      T acc = 0;
      for (int64_t j = 0; j < row; ++j) {
        const T v = in[r * row + j];
        acc += ord_ == 1 ? std::abs(v) : v * v;
      }
      out[r] = ord_ == 1 ? acc : std::sqrt(acc);
    }
  }

 private:
  int64_t ord_ = 2;
};

// TF_InitKernel cannot return an error: report it (modtensor also sees registration errors itself
// and rolls the whole plugin back, with a warning naming this file).
void Check(TF_Status* status, const char* what) {
  if (TF_GetCode(status) != TF_OK) std::fprintf(stderr, "custom_op: registering %s failed: %s\n", what, TF_Message(status));
}

}  // namespace

extern "C" void TF_InitKernel() {
  TF_Status* status = TF_NewStatus();

  TF_OpDefinitionBuilder* polyval = TF_NewOpDefinitionBuilder("Polyval");
  TF_OpDefinitionBuilderAddInput(polyval, "x: T");
  TF_OpDefinitionBuilderAddOutput(polyval, "y: T");
  TF_OpDefinitionBuilderAddAttr(polyval, "coeffs: list(float)");
  TF_OpDefinitionBuilderAddAttr(polyval, "T: {float, double}");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(polyval, &UnchangedShape);
  TF_RegisterOpDefinition(polyval, status);
  Check(status, "Polyval");

  TF_OpDefinitionBuilder* row_norm = TF_NewOpDefinitionBuilder("RowNorm");
  TF_OpDefinitionBuilderAddInput(row_norm, "x: T");
  TF_OpDefinitionBuilderAddOutput(row_norm, "y: T");
  TF_OpDefinitionBuilderAddAttr(row_norm, "ord: int = 2");
  TF_OpDefinitionBuilderAddAttr(row_norm, "T: {float, double}");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(row_norm, &RowNormShape);
  TF_RegisterOpDefinition(row_norm, status);
  Check(status, "RowNorm");

  TF_KernelBuilder* polyval_float =
      TF_NewKernelBuilder("Polyval", "CPU", &PolyvalCreate, &PolyvalCompute<float>, &PolyvalDelete);
  TF_KernelBuilder_TypeConstraint(polyval_float, "T", TF_FLOAT, status);
  TF_RegisterKernelBuilder("PolyvalCpuFloat", polyval_float, status);
  Check(status, "PolyvalCpuFloat");
  TF_KernelBuilder* polyval_double =
      TF_NewKernelBuilder("Polyval", "CPU", &PolyvalCreate, &PolyvalCompute<double>, &PolyvalDelete);
  TF_KernelBuilder_TypeConstraint(polyval_double, "T", TF_DOUBLE, status);
  TF_RegisterKernelBuilder("PolyvalCpuDouble", polyval_double, status);
  Check(status, "PolyvalCpuDouble");

  modtensor::Status s1 = modtensor::KernelBuilder<RowNorm<float>>("RowNorm", "CPU").TypeConstraint<float>("T").Register(
      "RowNormCpuFloat");
  Check(s1.get(), "RowNormCpuFloat");
  modtensor::Status s2 =
      modtensor::KernelBuilder<RowNorm<double>>("RowNorm", "CPU").TypeConstraint<double>("T").Register(
          "RowNormCpuDouble");
  Check(s2.get(), "RowNormCpuDouble");

  TF_DeleteStatus(status);
}
