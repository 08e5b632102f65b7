// modtensor: a header-only C++17 convenience layer over TensorFlow's kernel C API (Apache-2.0).
//
// RAII owners for the C API's handles (Status, Tensor), thin wrappers of the
// construction and call contexts (OpKernelConstruction, OpKernelContext), and a
// KernelBuilder that registers a C++ class as a kernel:
//
//   class MyKernel {
//    public:
//     explicit MyKernel(modtensor::OpKernelConstruction& ctx) { ctx.GetAttr("alpha", &alpha_); }
//     void Compute(modtensor::OpKernelContext& ctx) {
//       modtensor::Tensor x = ctx.input(0);
//       modtensor::Tensor y = ctx.allocate_output(0, x.shape());
//       if (!ctx.ok()) return;
//       ...
//     }
//    private:
//     float alpha_ = 0;
//   };
//   modtensor::KernelBuilder<MyKernel>("MyOp", "CPU").TypeConstraint<float>("T").Register("MyOpCpu");
//
// Everything here is inline and uses only the C API, as the kernel design
// document proposes: a plugin built with it still only depends on the TF_*
// symbols, and works with TensorFlow's C API as well as with modtensor's.
// Errors never cross the C boundary as exceptions: the first error of a call is
// recorded on the context (TF_OpKernelContext_Failure), and an exception thrown
// by a kernel is turned into an INTERNAL failure.
#ifndef MODTENSOR_INCLUDE_MODTENSOR_KERNEL_CPP_HPP_
#define MODTENSOR_INCLUDE_MODTENSOR_KERNEL_CPP_HPP_

#ifndef __cplusplus
#error "modtensor/kernel_cpp.hpp is a C++ header; C plugins use tensorflow/c/kernels.h directly"
#endif

#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"

namespace modtensor {

// TF_DataType of a C++ element type: DataTypeFor<float>() == TF_FLOAT.
template <typename T>
constexpr TF_DataType DataTypeFor();
template <> constexpr TF_DataType DataTypeFor<float>() { return TF_FLOAT; }
template <> constexpr TF_DataType DataTypeFor<double>() { return TF_DOUBLE; }
template <> constexpr TF_DataType DataTypeFor<int32_t>() { return TF_INT32; }
template <> constexpr TF_DataType DataTypeFor<int64_t>() { return TF_INT64; }
template <> constexpr TF_DataType DataTypeFor<uint8_t>() { return TF_UINT8; }
template <> constexpr TF_DataType DataTypeFor<int8_t>() { return TF_INT8; }
template <> constexpr TF_DataType DataTypeFor<int16_t>() { return TF_INT16; }
template <> constexpr TF_DataType DataTypeFor<uint16_t>() { return TF_UINT16; }
template <> constexpr TF_DataType DataTypeFor<uint32_t>() { return TF_UINT32; }
template <> constexpr TF_DataType DataTypeFor<uint64_t>() { return TF_UINT64; }
template <> constexpr TF_DataType DataTypeFor<bool>() { return TF_BOOL; }

// An owned TF_Status.
class Status {
 public:
  Status() : status_(TF_NewStatus()) {}
  Status(TF_Code code, const std::string& message) : Status() { TF_SetStatus(status_, code, message.c_str()); }
  ~Status() {
    if (status_ != nullptr) TF_DeleteStatus(status_);
  }
  Status(const Status& other) : Status(other.code(), other.message()) {}
  Status& operator=(const Status& other) {
    if (this != &other) TF_SetStatus(status_, other.code(), other.message());
    return *this;
  }
  Status(Status&& other) noexcept : status_(std::exchange(other.status_, nullptr)) {}
  Status& operator=(Status&& other) noexcept {
    std::swap(status_, other.status_);
    return *this;
  }

  bool ok() const { return code() == TF_OK; }
  TF_Code code() const { return status_ == nullptr ? TF_OK : TF_GetCode(status_); }
  const char* message() const { return status_ == nullptr ? "" : TF_Message(status_); }
  void Update(TF_Code code, const std::string& message) {
    if (ok()) TF_SetStatus(get(), code, message.c_str());  // the first error wins
  }
  TF_Status* get() {
    if (status_ == nullptr) status_ = TF_NewStatus();
    return status_;
  }

 private:
  TF_Status* status_;
};

// An owned TF_Tensor handle (the buffer is shared and reference-counted by the runtime).
class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TF_Tensor* tensor) : tensor_(tensor) {}
  ~Tensor() { reset(); }
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  Tensor(Tensor&& other) noexcept : tensor_(std::exchange(other.tensor_, nullptr)) {}
  Tensor& operator=(Tensor&& other) noexcept {
    if (this != &other) {
      reset();
      tensor_ = std::exchange(other.tensor_, nullptr);
    }
    return *this;
  }

  explicit operator bool() const { return tensor_ != nullptr; }
  TF_Tensor* get() const { return tensor_; }
  TF_Tensor* release() { return std::exchange(tensor_, nullptr); }
  void reset(TF_Tensor* tensor = nullptr) {
    if (tensor_ != nullptr) TF_DeleteTensor(tensor_);
    tensor_ = tensor;
  }

  TF_DataType dtype() const { return TF_TensorType(tensor_); }
  int dims() const { return TF_NumDims(tensor_); }
  int64_t dim(int i) const { return TF_Dim(tensor_, i); }
  int64_t num_elements() const { return TF_TensorElementCount(tensor_); }
  size_t byte_size() const { return TF_TensorByteSize(tensor_); }
  std::vector<int64_t> shape() const {
    std::vector<int64_t> out(static_cast<size_t>(dims()));
    for (int i = 0; i < dims(); ++i) out[static_cast<size_t>(i)] = dim(i);
    return out;
  }
  // Typed access to the (contiguous, row-major) elements; T must match dtype().
  template <typename T>
  T* data() const {
    return static_cast<T*>(TF_TensorData(tensor_));
  }

 private:
  TF_Tensor* tensor_ = nullptr;
};

// What a kernel's constructor sees: the node's attributes. Errors are recorded
// on the construction (the kernel is then not created) and returned.
class OpKernelConstruction {
 public:
  explicit OpKernelConstruction(TF_OpKernelConstruction* ctx) : ctx_(ctx) {}

  std::string name() const {
    TF_StringView view = TF_OpKernelConstruction_GetName(ctx_);
    return std::string(view.data, view.len);
  }
  bool HasAttr(const char* attr) const {
    Status s;
    return TF_OpKernelConstruction_HasAttr(ctx_, attr, s.get());
  }

  bool GetAttr(const char* attr, int64_t* value) { return Check(Get(TF_OpKernelConstruction_GetAttrInt64, attr, value)); }
  bool GetAttr(const char* attr, int32_t* value) { return Check(Get(TF_OpKernelConstruction_GetAttrInt32, attr, value)); }
  bool GetAttr(const char* attr, float* value) { return Check(Get(TF_OpKernelConstruction_GetAttrFloat, attr, value)); }
  bool GetAttr(const char* attr, TF_DataType* value) {
    return Check(Get(TF_OpKernelConstruction_GetAttrType, attr, value));
  }
  bool GetAttr(const char* attr, bool* value) {
    TF_Bool b = 0;
    bool ok = Check(Get(TF_OpKernelConstruction_GetAttrBool, attr, &b));
    if (ok) *value = b != 0;
    return ok;
  }
  bool GetAttr(const char* attr, std::string* value) {
    int32_t list_size = 0, total_size = 0;
    if (!Size(attr, &list_size, &total_size)) return false;
    std::string out(static_cast<size_t>(total_size > 0 ? total_size : 0), '\0');
    Status s;
    TF_OpKernelConstruction_GetAttrString(ctx_, attr, out.data(), out.size(), s.get());
    if (s.ok()) *value = std::move(out);
    return Check(s);
  }
  bool GetAttr(const char* attr, std::vector<int64_t>* value) {
    return GetList(TF_OpKernelConstruction_GetAttrInt64List, attr, value);
  }
  bool GetAttr(const char* attr, std::vector<float>* value) {
    return GetList(TF_OpKernelConstruction_GetAttrFloatList, attr, value);
  }
  bool GetAttr(const char* attr, std::vector<TF_DataType>* value) {
    return GetList(TF_OpKernelConstruction_GetAttrTypeList, attr, value);
  }

  // Fail construction (the first failure wins); the runtime raises it for the node.
  void Fail(TF_Code code, const std::string& message) {
    Status s(code, message);
    Fail(s);
  }
  void Fail(Status& s) {
    if (!s.ok() && status_.ok()) {
      status_.Update(s.code(), s.message());
      TF_OpKernelConstruction_Failure(ctx_, s.get());
    }
  }
  bool ok() const { return status_.ok(); }
  TF_OpKernelConstruction* get() const { return ctx_; }

 private:
  template <typename F, typename T>
  Status Get(F getter, const char* attr, T* value) {
    Status s;
    getter(ctx_, attr, value, s.get());
    return s;
  }
  bool Size(const char* attr, int32_t* list_size, int32_t* total_size) {
    Status s;
    TF_OpKernelConstruction_GetAttrSize(ctx_, attr, list_size, total_size, s.get());
    return Check(s);
  }
  template <typename F, typename T>
  bool GetList(F getter, const char* attr, std::vector<T>* value) {
    int32_t list_size = 0, total_size = 0;
    if (!Size(attr, &list_size, &total_size)) return false;
    std::vector<T> out(static_cast<size_t>(list_size > 0 ? list_size : 0));
    Status s;
    getter(ctx_, attr, out.data(), list_size, s.get());
    if (s.ok()) *value = std::move(out);
    return Check(s);
  }
  bool Check(Status s) {
    Fail(s);
    return s.ok();
  }

  TF_OpKernelConstruction* ctx_;
  Status status_;
};

// What a kernel's Compute sees. Calls that can fail record the first failure on
// the context (ok() turns false) and return an empty Tensor.
class OpKernelContext {
 public:
  explicit OpKernelContext(TF_OpKernelContext* ctx) : ctx_(ctx) {}

  int num_inputs() const { return TF_NumInputs(ctx_); }
  int num_outputs() const { return TF_NumOutputs(ctx_); }
  TF_DataType input_dtype(int i) const { return TF_InputDatatype(ctx_, i); }
  TF_DataType expected_output_dtype(int i) const { return TF_ExpectedOutputDataType(ctx_, i); }
  int64_t step_id() const { return TF_StepId(ctx_); }
  std::string op_kernel_name() const {
    TF_StringView view = TF_GetOpKernelName(ctx_);
    return std::string(view.data, view.len);
  }

  Tensor input(int i) {
    Status s;
    TF_Tensor* t = nullptr;
    TF_GetInput(ctx_, i, &t, s.get());
    return Checked(s, t);
  }
  Tensor allocate_output(int i, const std::vector<int64_t>& shape) {
    Status s;
    TF_Tensor* t = TF_AllocateOutput(ctx_, i, expected_output_dtype(i), shape.data(), static_cast<int>(shape.size()),
                                     0, s.get());
    return Checked(s, t);
  }
  // Reuse one of `candidates` (input indices) for output `i` when nothing else sees it.
  Tensor forward_input_or_allocate_output(const std::vector<int>& candidates, int i,
                                          const std::vector<int64_t>& shape, int* forwarded = nullptr) {
    Status s;
    int fwd = -1;
    TF_Tensor* t = TF_ForwardInputOrAllocateOutput(ctx_, candidates.data(), static_cast<int>(candidates.size()), i,
                                                   shape.data(), static_cast<int>(shape.size()), &fwd, s.get());
    if (forwarded != nullptr) *forwarded = fwd;
    return Checked(s, t);
  }
  Tensor allocate_temp(TF_DataType dtype, const std::vector<int64_t>& shape, bool on_host = false) {
    Status s;
    TF_AllocatorAttributes attrs{TF_ALLOCATOR_ATTRIBUTES_STRUCT_SIZE, static_cast<TF_Bool>(on_host)};
    TF_Tensor* t = TF_AllocateTemp(ctx_, dtype, shape.data(), static_cast<int>(shape.size()), &attrs, s.get());
    return Checked(s, t);
  }
  void set_output(int i, const Tensor& tensor) {
    Status s;
    TF_SetOutput(ctx_, i, tensor.get(), s.get());
    Fail(s);
  }

  void Fail(TF_Code code, const std::string& message) {
    Status s(code, message);
    Fail(s);
  }
  void Fail(Status& s) {
    if (!s.ok() && status_.ok()) {
      status_.Update(s.code(), s.message());
      TF_OpKernelContext_Failure(ctx_, s.get());
    }
  }
  bool ok() const { return status_.ok(); }
  TF_OpKernelContext* get() const { return ctx_; }

 private:
  Tensor Checked(Status& s, TF_Tensor* t) {
    if (s.ok()) return Tensor(t);
    if (t != nullptr) TF_DeleteTensor(t);
    Fail(s);
    return Tensor();
  }

  TF_OpKernelContext* ctx_;
  Status status_;
};

// Registers class K as a kernel: K(OpKernelConstruction&) reads attrs, K::Compute(OpKernelContext&) runs.
template <class K>
class KernelBuilder {
 public:
  KernelBuilder(const char* op, const char* device)
      : builder_(TF_NewKernelBuilder(op, device, &Create, &Compute, &Delete)) {}
  ~KernelBuilder() {
    if (builder_ != nullptr) TF_DeleteKernelBuilder(builder_);
  }
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  template <typename T>
  KernelBuilder& TypeConstraint(const char* attr) {
    return TypeConstraint(attr, DataTypeFor<T>());
  }
  KernelBuilder& TypeConstraint(const char* attr, TF_DataType dtype) {
    TF_KernelBuilder_TypeConstraint(builder_, attr, dtype, status_.get());
    return *this;
  }
  KernelBuilder& HostMemory(const char* arg) {
    TF_KernelBuilder_HostMemory(builder_, arg);
    return *this;
  }
  KernelBuilder& Priority(int32_t priority) {
    TF_KernelBuilder_Priority(builder_, priority);
    return *this;
  }
  KernelBuilder& Label(const char* label) {
    TF_KernelBuilder_Label(builder_, label);
    return *this;
  }
  // Register under `name`; returns the first error of the whole chain.
  Status Register(const char* name) {
    if (status_.ok()) TF_RegisterKernelBuilder(name, std::exchange(builder_, nullptr), status_.get());
    return std::move(status_);
  }

 private:
  static void* Create(TF_OpKernelConstruction* c) {
    OpKernelConstruction ctx(c);
    try {
      return new K(ctx);
    } catch (const std::exception& e) {
      ctx.Fail(TF_INTERNAL, std::string("kernel constructor threw: ") + e.what());
    } catch (...) {
      ctx.Fail(TF_INTERNAL, "kernel constructor threw an exception");
    }
    return nullptr;
  }
  static void Compute(void* kernel, TF_OpKernelContext* c) {
    OpKernelContext ctx(c);
    if (kernel == nullptr) return;  // construction failed; the runtime never gets here
    try {
      static_cast<K*>(kernel)->Compute(ctx);
    } catch (const std::exception& e) {
      ctx.Fail(TF_INTERNAL, std::string("kernel threw: ") + e.what());
    } catch (...) {
      ctx.Fail(TF_INTERNAL, "kernel threw an exception");
    }
  }
  static void Delete(void* kernel) { delete static_cast<K*>(kernel); }

  TF_KernelBuilder* builder_;
  Status status_;
};

}  // namespace modtensor

#endif  // MODTENSOR_INCLUDE_MODTENSOR_KERNEL_CPP_HPP_
