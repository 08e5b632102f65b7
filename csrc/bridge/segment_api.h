/* The native bridge's segment runner, as the executor's C plan loop (csrc/plan) sees it.
 *
 * A segment is a straight run of plan steps that are all built-in native kernels on the host fast path. The
 * bridge runs it as TensorFlow's executor runs kernels: the values passed between its steps are C tensors,
 * allocated and forwarded by the shim, and the GIL is released once for the whole run instead of once per
 * kernel, so threads running plans at the same time (a parallel dataset map, inter-op work) compute at the
 * same time. Only the values the segment reads from the plan's slots and the ones read after it are Python
 * arrays. The API travels as the context pointer of the bridge's DIRECT_CALL capsule. */
#ifndef MODTENSOR_SEGMENT_API_H_
#define MODTENSOR_SEGMENT_API_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define MT_SEGMENT_API_VERSION 1

/* One step of a segment. */
typedef struct {
  PyObject* kernel; /* a bridge Kernel, borrowed (the plan holds it) */
  Py_ssize_t n_in;
  /* Per input: >= 0, the output of step arg[k] of this segment; < 0, external value -1 - arg[k]. */
  Py_ssize_t* arg;
  /* Bit k: no later step of the segment reads input k's value and nothing after the segment does (the step
     may write its output into that value's memory, as TensorFlow forwards an input nobody else reads). */
  uint64_t last;
  Py_ssize_t out; /* the output's slot */
  int out_use;    /* MT_OUT_* */
} MT_SegmentStep;

/* Who reads a step's output: only later steps of the segment (the last one lets it go), something after the
 * segment (stored into its slot at the end), or nothing (let go at once). */
enum { MT_OUT_SEGMENT = 0, MT_OUT_SLOT = 1, MT_OUT_NONE = 2 };

/* A segment: its steps, and the slots of the values it reads from outside (externals). */
typedef struct {
  Py_ssize_t n_steps;
  MT_SegmentStep* steps;
  Py_ssize_t n_ext;
  Py_ssize_t* ext_slot;
  unsigned char* ext_taken; /* 1: nothing after the segment reads it: its slot is cleared */
} MT_Segment;

/* Results of MT_SegmentAPI.run. */
enum { MT_SEGMENT_RAN = 0, MT_SEGMENT_FAILED = -1, MT_SEGMENT_DECLINED = 1 };

typedef struct {
  int version;
  /* 1 when `kernel` may be a segment step producing values of numpy dtype `expected` (NULL: any), else 0: a
   * bridge Kernel on the host fast path, one output, synchronous, reading inputs at any alignment, no string
   * or resource types. GIL held; never raises. */
  int (*eligible)(PyObject* kernel, PyObject* expected);
  /* Run `segment` on the plan's `values` list. MT_SEGMENT_RAN: slots updated (read-last externals cleared,
   * kept outputs stored); MT_SEGMENT_FAILED: a kernel failed (its OpError raised, *failed its step index);
   * MT_SEGMENT_DECLINED: an external value is not a plain numpy array: nothing changed, run the steps one by
   * one. GIL held on entry and exit. */
  int (*run)(const MT_Segment* segment, PyObject* values, Py_ssize_t* failed);
} MT_SegmentAPI;

#endif /* MODTENSOR_SEGMENT_API_H_ */
