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
 * duration of the call; pushing and popping cost a few nanoseconds. The handler never touches
 * thread-local storage (the first access of a dlopen'ed library's TLS on a thread may call malloc,
 * which could deadlock in a crash inside malloc): a thread registers its record, with its kernel
 * thread id, in a global table at its first plugin call (and leaves it at exit), and the handler
 * looks its own id up there. For a synchronous fault the handler also names the library holding
 * the faulting instruction (dladdr, best effort: it is not async-signal-safe in theory, but the
 * process is ending). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include "mt_internal.h"

#define MT_CALL_DEPTH 8

typedef struct {
  const MT_CallSite* site;
  const char* what;
} MT_CallEntry;

typedef struct {
  MT_CallEntry calls[MT_CALL_DEPTH];
  volatile int depth;
} MT_ThreadCalls;

static _Thread_local MT_ThreadCalls t_state;
static _Thread_local int t_slot = -1; /* -1: not registered yet; -2: the table was full */
static atomic_int g_active_calls;
static atomic_int g_installed;

/* Threads that made a plugin call: kernel thread id -> that thread's record (cleared at thread exit). */
#define MT_MAX_THREADS 1024
typedef struct {
  _Atomic pid_t tid;
  MT_ThreadCalls* _Atomic state;
} MT_ThreadSlot;
static MT_ThreadSlot g_threads[MT_MAX_THREADS];
static pthread_key_t g_exit_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

static void forget_thread(void* value) {
  intptr_t slot = (intptr_t)value - 1;
  if (slot < 0 || slot >= MT_MAX_THREADS) return;
  atomic_store(&g_threads[slot].state, NULL);
  atomic_store(&g_threads[slot].tid, 0);
}

/* In a forked child only the forking thread lives, under a new thread id: start the table afresh. */
static void reset_after_fork(void) {
  for (int i = 0; i < MT_MAX_THREADS; ++i) {
    atomic_store(&g_threads[i].state, NULL);
    atomic_store(&g_threads[i].tid, 0);
  }
  t_slot = -1;
}

static void make_exit_key(void) {
  pthread_key_create(&g_exit_key, forget_thread);
  pthread_atfork(NULL, NULL, reset_after_fork);
}

static void register_thread(void) {
  pthread_once(&g_key_once, make_exit_key);
  pid_t tid = (pid_t)syscall(SYS_gettid);
  for (int i = 0; i < MT_MAX_THREADS; ++i) {
    pid_t expected = 0;
    if (atomic_compare_exchange_strong(&g_threads[i].tid, &expected, tid)) {
      atomic_store(&g_threads[i].state, &t_state);
      pthread_setspecific(g_exit_key, (void*)(intptr_t)(i + 1));
      t_slot = i;
      return;
    }
  }
  t_slot = -2; /* more threads than slots: this one's crashes are reported without its call */
}

/* The record of the calling thread, found by thread id (async-signal-safe: no TLS access). */
static MT_ThreadCalls* this_thread_calls(void) {
  pid_t tid = (pid_t)syscall(SYS_gettid);
  for (int i = 0; i < MT_MAX_THREADS; ++i) {
    if (atomic_load(&g_threads[i].tid) == tid) return atomic_load(&g_threads[i].state);
  }
  return NULL;
}

static const int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define MT_NUM_SIGNALS ((int)(sizeof kSignals / sizeof kSignals[0]))
static struct sigaction g_previous[MT_NUM_SIGNALS];

void MT_PushPluginCall(const MT_CallSite* site, const char* what) {
  if (t_slot == -1) register_thread();
  MT_ThreadCalls* state = &t_state;
  int depth = state->depth;
  if (depth < MT_CALL_DEPTH) {
    state->calls[depth].site = site;
    state->calls[depth].what = what;
  }
  state->depth = depth + 1; /* after the entry: a signal in between sees a complete record */
  atomic_fetch_add_explicit(&g_active_calls, 1, memory_order_relaxed);
}

void MT_PopPluginCall(void) {
  MT_ThreadCalls* state = &t_state;
  if (state->depth > 0) state->depth -= 1;
  atomic_fetch_sub_explicit(&g_active_calls, 1, memory_order_relaxed);
}

int MT_PluginCallDepth(void) { return t_state.depth; }

const MT_CallSite* MT_CurrentPluginCall(const char** what) {
  int depth = t_state.depth;
  if (depth <= 0 || depth > MT_CALL_DEPTH) return NULL;
  if (what != NULL) *what = t_state.calls[depth - 1].what;
  return t_state.calls[depth - 1].site;
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
  MT_ThreadCalls* state = this_thread_calls();
  int depth = state != NULL ? state->depth : 0;
  if (depth > 0) {
    put("\nmodtensor: fatal signal ");
    put(signal_name(sig));
    put(" inside plugin code\n");
    int top = depth > MT_CALL_DEPTH ? MT_CALL_DEPTH : depth;
    put_site(state->calls[top - 1].site, state->calls[top - 1].what);
    put_fault(sig, info, context);
    for (int i = top - 2; i >= 0; --i) {
      put("  inside:  ");
      put(state->calls[i].what);
      if (state->calls[i].site->library != NULL) {
        put(" of ");
        put(state->calls[i].site->library);
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
