/* Shared declarations of modtensor._plan_runner (csrc/plan): the plan loop (plan_runner.c) and the host scalar
 * kernels it calls without leaving C (scalar_ops.c). */
#ifndef MODTENSOR_PLAN_H_
#define MODTENSOR_PLAN_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
/* One numpy C-API table for the extension's files: plan_runner.c imports it, the others use it. */
#define PY_ARRAY_UNIQUE_SYMBOL MT_PLAN_RUNNER_ARRAY_API
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef MT_PLAN_IMPORTS_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "../bridge/segment_api.h" /* the bridge's segment runner, as seen from here */

/* A C entry point: call(target, args, nargs, given) -> output (new reference) or NULL with an exception; bit i
 * of `given`: argument i is given up by the caller (csrc/bridge/bridge.h, MT_DirectCallFunction). */
typedef PyObject* (*DirectCallFunction)(PyObject* target, PyObject* const* args, Py_ssize_t nargs, uint64_t given);

/* The capsule names a step's C entry point may carry: the native bridge's, and this extension's own. */
#define DIRECT_CALL_CAPSULE "modtensor.plugin.native._bridge.DIRECT_CALL"
#define SCALAR_CALL_CAPSULE "modtensor.runtime._plan_runner.SCALAR_CALL"

/* scalar_ops.c: the ScalarOp type (a binary elementwise numpy kernel with a C path for 0-d operands) and its
 * entry point. mt_scalar_ops_add registers both in the module (ScalarOp, SCALAR_CALL, SCALAR_OPS). */
PyObject* mt_scalar_call(PyObject* target, PyObject* const* args, Py_ssize_t nargs, uint64_t given);
int mt_scalar_ops_add(PyObject* module);
/* The native kernel a ScalarOp calls for operands that are not 0-d (borrowed), or NULL. */
PyObject* mt_scalar_op_native_kernel(PyObject* op);

/* plan_runner.c: the bridge's segment runner, learnt from the context of a DIRECT_CALL capsule (NULL until one
 * was seen). */
extern const MT_SegmentAPI* mt_segment_api_seen;
void mt_note_segment_api(PyObject* direct_call_capsule);

#endif /* MODTENSOR_PLAN_H_ */
