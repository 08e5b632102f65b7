/* modtensor shim: naming the plugin code a fatal signal came from.
 *
 * A crash inside a plugin (a segfault in a kernel, an abort() from a failed CHECK) cannot be
 * recovered: the process ends. Before it does, modtensor says where it was: the runtime records
 * the plugin call in progress on each thread (MT_PushPluginCall / MT_PopPluginCall around every
 * call into plugin code: entry points, kernel construction and compute, shape functions, the
 * StreamExecutor and graph optimizer functions), and the handler installed by
 * MT_InstallCrashHandler prints that record for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT with
 * async-signal-safe writes, then gives the signal to the handler that was there before (Python's
 * faulthandler, which prints the Python stack, or the default action, which ends the process).
 *
 * The record is a small per-thread stack of pointers to call sites the caller keeps alive for the
 * duration of the call; pushing and popping cost a few nanoseconds. For a synchronous fault the
 * handler also names the library holding the faulting instruction (dladdr, best effort: it is not
 * async-signal-safe in theory, but the process is ending). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "mt_internal.h"

#define MT_CALL_DEPTH 8

typedef struct {
  const MT_CallSite* site;
  const char* what;
} MT_CallEntry;

static _Thread_local MT_CallEntry t_calls[MT_CALL_DEPTH];
static _Thread_local int t_depth;
static atomic_int g_active_calls;
static atomic_int g_installed;

static const int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define MT_NUM_SIGNALS ((int)(sizeof kSignals / sizeof kSignals[0]))
static struct sigaction g_previous[MT_NUM_SIGNALS];

void MT_PushPluginCall(const MT_CallSite* site, const char* what) {
  int depth = t_depth;
  if (depth < MT_CALL_DEPTH) {
    t_calls[depth].site = site;
    t_calls[depth].what = what;
  }
  t_depth = depth + 1;
  atomic_fetch_add_explicit(&g_active_calls, 1, memory_order_relaxed);
}

void MT_PopPluginCall(void) {
  if (t_depth > 0) t_depth -= 1;
  atomic_fetch_sub_explicit(&g_active_calls, 1, memory_order_relaxed);
}

int MT_PluginCallDepth(void) { return t_depth; }

const MT_CallSite* MT_CurrentPluginCall(const char** what) {
  int depth = t_depth;
  if (depth <= 0 || depth > MT_CALL_DEPTH) return NULL;
  if (what != NULL) *what = t_calls[depth - 1].what;
  return t_calls[depth - 1].site;
}

/* ---- async-signal-safe output ---- */

static void put(const char* text) {
  if (text == NULL) return;
  size_t len = strlen(text);
  while (len > 0) {
    ssize_t n = write(STDERR_FILENO, text, len);
    if (n <= 0) return;
    text += n;
    len -= (size_t)n;
  }
}

static void put_unsigned(unsigned long value, int base) {
  char digits[32];
  int i = (int)sizeof digits - 1;
  digits[i] = '\0';
  do {
    unsigned long d = value % (unsigned long)base;
    digits[--i] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
    value /= (unsigned long)base;
  } while (value != 0 && i > 0);
  if (base == 16) put("0x");
  put(&digits[i]);
}

static const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a fatal signal";
  }
}

static void put_field(const char* label, const char* value) {
  if (value == NULL || value[0] == '\0') return;
  put(label);
  put(value);
  put("\n");
}

static void put_site(const MT_CallSite* site, const char* what) {
  put_field("  plugin:  ", site->library);
  if (what != NULL && what[0] != '\0') {
    put("  call:    ");
    put(what);
    if (site->op != NULL && site->op[0] != '\0') {
      put(" for op '");
      put(site->op);
      put("'");
    }
    put("\n");
  } else {
    put_field("  op:      ", site->op);
  }
  if (site->node != NULL && site->node[0] != '\0') {
    put("  node:    {{node ");
    put(site->node);
    put("}}\n");
  }
  put_field("  device:  ", site->device);
}

static void* fault_pc(void* context) {
  ucontext_t* uc = (ucontext_t*)context;
  if (uc == NULL) return NULL;
#if defined(__x86_64__)
  return (void*)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (void*)uc->uc_mcontext.pc;
#else
  return NULL;
#endif
}

static void put_fault(int sig, siginfo_t* info, void* context) {
  if (sig == SIGABRT || info == NULL || info->si_code <= 0) return; /* sent, not a fault */
  if (sig == SIGSEGV || sig == SIGBUS) {
    put("  address: ");
    put_unsigned((unsigned long)info->si_addr, 16);
    put("\n");
  }
  void* pc = fault_pc(context);
  Dl_info where;
  if (pc != NULL && dladdr(pc, &where) != 0 && where.dli_fname != NULL) {
    put("  faulting instruction in ");
    put(where.dli_fname);
    if (where.dli_sname != NULL) {
      put(" (");
      put(where.dli_sname);
      put(")");
    }
    put("\n");
  }
}

static void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  int saved_errno = errno;
  int depth = t_depth;
  if (depth > 0) {
    put("\nmodtensor: fatal signal ");
    put(signal_name(sig));
    put(" inside plugin code\n");
    int top = depth > MT_CALL_DEPTH ? MT_CALL_DEPTH : depth;
    put_site(t_calls[top - 1].site, t_calls[top - 1].what);
    put_fault(sig, info, context);
    for (int i = top - 2; i >= 0; --i) {
      put("  inside:  ");
      put(t_calls[i].what);
      if (t_calls[i].site->library != NULL) {
        put(" of ");
        put(t_calls[i].site->library);
      }
      put("\n");
    }
    put("modtensor: the process ends here (a crash in native code cannot be caught; run untrusted plugins in a "
        "separate process, e.g. `modtensor check PLUGIN.so`)\n");
  } else {
    int others = atomic_load_explicit(&g_active_calls, memory_order_relaxed);
    put("\nmodtensor: fatal signal ");
    put(signal_name(sig));
    put(" (no plugin call in progress on this thread");
    if (others > 0) {
      put("; ");
      put_unsigned((unsigned long)others, 10);
      put(" on other threads");
    }
    put(")\n");
    put_fault(sig, info, context);
  }
  /* Hand the signal on: the previous handler (faulthandler's Python stack, or the default action). */
  for (int i = 0; i < MT_NUM_SIGNALS; ++i) {
    if (kSignals[i] == sig) sigaction(sig, &g_previous[i], NULL);
  }
  errno = saved_errno;
  raise(sig); /* blocked until this handler returns, then delivered to the previous handler */
}

int MT_InstallCrashHandler(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&g_installed, &expected, 1)) return 0;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < MT_NUM_SIGNALS; ++i) sigaction(kSignals[i], &action, &g_previous[i]);
  return 1;
}
