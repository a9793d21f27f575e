/* Deliberately faulty backend plugins: each build (one compile definition QSPEC_FAULT_<NAME>)
 * misbehaves in one way that `qspec run`'s worker isolation must contain and name.
 *
 * The arithmetic is the documented example plugin's (docs/examples/example_backend: requantize /
 * gemmlowp.double_round, correct on every vector), included here with its entry point renamed.
 * The fault strikes only on tests whose first input element is odd, so each run mixes faulty
 * tests with correct ones and the CTest tests can check that every other test still passes and
 * none is lost (fault_driver.cc computes the same set from the vector file):
 *   SEGV      writes through a wild pointer (SIGSEGV)
 *   ABORT     prints a line to stderr, then abort() (SIGABRT)
 *   EXIT      exit(3)
 *   HANG      sleeps forever
 *   HANG_ALL  sleeps forever on every test (a backend that hangs on everything: the circuit breaker)
 *   SHAPE     changes the output's qspec_tensor (shape and size_bytes) after writing it
 *   OVERRUN   writes one element past the end of the output buffer
 *   UNDERRUN  writes one element before the start of the output buffer
 *   LEAK      mallocs 64 MiB per call and never frees it
 *   THROW     (with faulty_throw.cc) a C++ exception; see there
 *   FORGE     writes a forged reply header announcing an 8 GiB frame into the worker's socket,
 *             then 1 GiB of zeros (a backend must not grow qspec's memory without bound)
 *   SLOW      no fault: every call sleeps QSPEC_SLOW_MS milliseconds (interrupt/resume tests)
 *   FORK      forks a grandchild that sleeps 60 s (keeping the worker's descriptors) and logs
 *             "WORKER_PID CHILD_PID" to $QSPEC_TESTING_FORK_LOG; with QSPEC_TESTING_FORK_THEN_ABORT
 *             set it then abort()s. Every call first checks that no process logged by an earlier
 *             worker still runs (ERROR naming it: qspec must end a worker's whole process group).
 *             QSPEC_TESTING_FORK_SLOW_MS: every call sleeps that long (a run that lasts).
 */
#define _DEFAULT_SOURCE /* usleep */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qspec/backend.h"

#include "example_private.h" /* the example plugin's arithmetic, its entry point private */

#ifdef QSPEC_FAULT_HANG_ALL
#define QSPEC_FAULT_HANG
#define QSPEC_FAULT_EVERY_TEST
#endif

#if defined(QSPEC_FAULT_SEGV)
#define FAULT_NAME "segv"
#elif defined(QSPEC_FAULT_ABORT)
#define FAULT_NAME "abort"
#elif defined(QSPEC_FAULT_EXIT)
#define FAULT_NAME "exit"
#elif defined(QSPEC_FAULT_HANG)
#define FAULT_NAME "hang"
#elif defined(QSPEC_FAULT_SHAPE)
#define FAULT_NAME "shape"
#elif defined(QSPEC_FAULT_OVERRUN)
#define FAULT_NAME "overrun"
#elif defined(QSPEC_FAULT_UNDERRUN)
#define FAULT_NAME "underrun"
#elif defined(QSPEC_FAULT_LEAK)
#define FAULT_NAME "leak"
#elif defined(QSPEC_FAULT_THROW)
#define FAULT_NAME "throw"
#elif defined(QSPEC_FAULT_FORGE)
#define FAULT_NAME "forge"
#elif defined(QSPEC_FAULT_FORK)
#define FAULT_NAME "fork"
#elif defined(QSPEC_FAULT_SLOW)
#define FAULT_NAME "slow"
#ifndef QSPEC_SLOW_MS
#define QSPEC_SLOW_MS 50
#endif
#else
#error "define one QSPEC_FAULT_<NAME>"
#endif

static qspec_backend g_inner;
static void* volatile g_leak_sink;

/* The tests that fault: a valid test (it has an output) whose first int32 input element is odd. */
static int faulty_test(const qspec_tensor* inputs, size_t n_inputs, size_t n_outputs) {
#ifdef QSPEC_FAULT_EVERY_TEST
  (void)inputs;
  (void)n_inputs;
  (void)n_outputs;
  return 1;
#endif
  int32_t x0;
  if (n_inputs < 1 || n_outputs < 1 || inputs[0].dtype != QSPEC_DTYPE_INT32 || inputs[0].size_bytes < sizeof x0) return 0;
  memcpy(&x0, inputs[0].data, sizeof x0);
  return (x0 & 1) != 0;
}

static size_t element_size(qspec_dtype t) {
  switch (t) {
    case QSPEC_DTYPE_INT8: case QSPEC_DTYPE_UINT8: return 1;
    case QSPEC_DTYPE_INT16: case QSPEC_DTYPE_UINT16: return 2;
    case QSPEC_DTYPE_INT32: case QSPEC_DTYPE_FLOAT32: return 4;
    default: return 8;
  }
}

#ifdef QSPEC_FAULT_FORGE
/* The worker's socket to qspec is the one socket among its descriptors. A frame header as the
 * worker protocol has it (harness/src/worker_frames.h: u32 magic "QSPW", u32 kind 3 = result,
 * u64 payload size), announcing 8 GiB, then 1 GiB of payload, 1 MiB at a time. */
static void forge_frame(void) {
  static char zeros[1 << 20];
  const uint32_t head[2] = {0x57505351u, 3u};
  const uint64_t size = (uint64_t)1 << 33;
  for (int fd = 3; fd < 1024; ++fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    if (write(fd, head, sizeof head) != (ssize_t)sizeof head || write(fd, &size, sizeof size) != (ssize_t)sizeof size) return;
    for (int mib = 0; mib < 1024; ++mib) {
      size_t left = sizeof zeros;
      while (left > 0) {
        const ssize_t k = write(fd, zeros + (sizeof zeros - left), left);
        if (k <= 0) return;
        left -= (size_t)k;
      }
    }
  }
}
#endif

#ifdef QSPEC_FAULT_FORK
/* Whether process `pid` exists and is not a zombie. */
static int process_runs(long pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  const size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char* paren = strrchr(buf, ')');
  return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* A process logged by an earlier worker that still runs (waiting up to 1 s for it to die), or 0. */
static long survivor_of_earlier_worker(void) {
  const char* log = getenv("QSPEC_TESTING_FORK_LOG");
  FILE* f = log ? fopen(log, "r") : NULL;
  if (!f) return 0;
  long worker, child, found = 0;
  while (!found && fscanf(f, "%ld %ld", &worker, &child) == 2)
    if (worker != (long)getpid())
      for (int i = 0; i < 100 && process_runs(child); ++i) {
        if (i == 99) found = child;
        usleep(10000);
      }
  fclose(f);
  return found;
}

static void fork_grandchild(void) {
  const pid_t child = fork();
  if (child == 0) {
    sleep(60);
    _exit(0);
  }
  const char* log = getenv("QSPEC_TESTING_FORK_LOG");
  FILE* f = log ? fopen(log, "a") : NULL;
  if (f) {
    fprintf(f, "%ld %ld\n", (long)getpid(), (long)child);
    fclose(f);
  }
}
#endif

#ifdef QSPEC_FAULT_THROW
/* faulty_throw.cc: throws a std::runtime_error (through a noexcept frame unless
 * QSPEC_THROW_CATCHABLE, so it ends in std::terminate). */
void qspec_testing_throw(const char* what);
#endif

static qspec_status faulty_run(void* self, const char* op, const char* convention, const char* attrs, const qspec_tensor* inputs,
                               size_t n_inputs, qspec_tensor* outputs, size_t n_outputs, char* message, size_t message_size) {
#ifdef QSPEC_FAULT_SLOW
  usleep(QSPEC_SLOW_MS * 1000);
#endif
#ifdef QSPEC_FAULT_FORK
  const char* slow = getenv("QSPEC_TESTING_FORK_SLOW_MS");
  if (slow) usleep((useconds_t)atoi(slow) * 1000);
  const long survivor = survivor_of_earlier_worker();
  if (survivor) {
    snprintf(message, message_size, "process %ld forked by an earlier worker still runs", survivor);
    return QSPEC_STATUS_ERROR;
  }
#endif
  const int fault = faulty_test(inputs, n_inputs, n_outputs);
  if (fault) {
#if defined(QSPEC_FAULT_SEGV)
    int* volatile wild = (int*)(uintptr_t)16;
    *wild = 1;
#elif defined(QSPEC_FAULT_ABORT)
    fprintf(stderr, "faulty backend: internal consistency check failed\n");
    abort();
#elif defined(QSPEC_FAULT_EXIT)
    exit(3);
#elif defined(QSPEC_FAULT_HANG)
    for (;;) sleep(1);
#elif defined(QSPEC_FAULT_THROW)
    qspec_testing_throw("faulty backend: odd first element");
#elif defined(QSPEC_FAULT_FORGE)
    forge_frame();
#elif defined(QSPEC_FAULT_FORK)
    fork_grandchild();
    if (getenv("QSPEC_TESTING_FORK_THEN_ABORT")) abort();
#elif defined(QSPEC_FAULT_LEAK)
    g_leak_sink = malloc((size_t)64 << 20);
    if (g_leak_sink) ((volatile char*)g_leak_sink)[0] = 1;
#endif
  }
  const qspec_status st = g_inner.run(self, op, convention, attrs, inputs, n_inputs, outputs, n_outputs, message, message_size);
  if (fault && st == QSPEC_STATUS_OK) {
#if defined(QSPEC_FAULT_SHAPE)
    static int64_t fake_shape[1];
    fake_shape[0] = 1;
    outputs[0].shape = fake_shape;
    outputs[0].size_bytes = element_size(outputs[0].dtype);
#elif defined(QSPEC_FAULT_OVERRUN)
    memset((char*)outputs[0].data + outputs[0].size_bytes, 0, element_size(outputs[0].dtype));
#elif defined(QSPEC_FAULT_UNDERRUN)
    memset((char*)outputs[0].data - element_size(outputs[0].dtype), 0, element_size(outputs[0].dtype));
#else
    (void)element_size;
#endif
  }
  return st;
}

#ifdef QSPEC_FAULTY_INNER
/* faulty_throw.cc wraps this one. */
int qspec_testing_faulty_create(uint32_t host_abi_version, qspec_backend* out);
int qspec_testing_faulty_create(uint32_t host_abi_version, qspec_backend* out)
#else
QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out)
#endif
{
  const int rc = qspec_testing_example_create(host_abi_version, &g_inner);
  if (rc != 0) return rc;
  *out = g_inner;
  out->name = "testing.faulty." FAULT_NAME;
  out->version = "1 (deliberately faulty)";
  out->run = faulty_run;
  return 0;
}
