/* qspec backend C ABI, version 2: how the harness drives a backend (built in or a plugin .so).
 *
 * C only, no qspec C++ types: a third party implements it in a shared library that exports
 * qspec_backend_create (or qspec_backend_create2, which also receives the run's options). The
 * harness loads the library, checks the ABI version, and for every
 * vector test calls run() with the op name, the convention, the test's attributes as a JSON
 * object string (the group's attributes with the test's merged over them; docs/vector-format.md:
 * integers as numbers or decimal strings, floats as "0x..." bit patterns), the input tensors,
 * and output tensors whose name, dtype, shape and buffer the harness has prepared from the
 * vector's expected outputs. The backend fills the output buffers and returns a status.
 *
 * Contract details (docs/backend-abi.md):
 *  - For a test whose vector says "result": "invalid" (an ERROR_IF input) the harness passes no
 *    outputs (n_outputs == 0, outputs == NULL): the backend must return QSPEC_STATUS_REJECTED.
 *  - Output buffers are pre-filled with a 0xA5 byte pattern; every element must be written.
 *  - message is never NULL and message_size >= 1 (4096 today); the harness NUL-terminates it.
 *  - Thread safety: the harness calls one backend from one thread. A built-in backend written in
 *    C++ may throw; the harness turns that into QSPEC_STATUS_ERROR for that one test, but a
 *    plugin must not let exceptions cross the C boundary.
 *  - Versioning: QSPEC_BACKEND_ABI_VERSION changes whenever a struct layout, a signature or the
 *    meaning of a field changes; a backend returns nonzero from qspec_backend_create for a host
 *    version it was not built for, and the harness refuses a backend reporting another version.
 *  - Version 2 (compatibility note): adds the run options (qspec_backend_options) and the optional
 *    entry point qspec_backend_create2 that receives them; qspec_backend and qspec_tensor are
 *    unchanged. A version-1 plugin keeps loading: the harness calls qspec_backend_create with
 *    version 2, and when the backend refuses it (as a version-1 backend must), again with version
 *    1, and accepts a backend reporting version 1 or 2. Only a backend exporting
 *    qspec_backend_create2 can be given options: `qspec run --all-conventions` refuses, with a
 *    message saying so, a backend that cannot be asked (docs/backend-abi.md, "Run options").
 */
#ifndef QSPEC_BACKEND_H_
#define QSPEC_BACKEND_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QSPEC_BACKEND_ABI_VERSION 2u

#if defined(_WIN32)
#define QSPEC_BACKEND_EXPORT __declspec(dllexport)
#else
#define QSPEC_BACKEND_EXPORT __attribute__((visibility("default")))
#endif

/* Element types. Integers are stored in native byte order at their own width; float32/float64
 * are IEEE binary32/binary64. Values compare bitwise. */
typedef enum qspec_dtype {
  QSPEC_DTYPE_INT8 = 0,
  QSPEC_DTYPE_UINT8 = 1,
  QSPEC_DTYPE_INT16 = 2,
  QSPEC_DTYPE_UINT16 = 3,
  QSPEC_DTYPE_INT32 = 4,
  QSPEC_DTYPE_INT64 = 5,
  QSPEC_DTYPE_FLOAT32 = 6,
  QSPEC_DTYPE_FLOAT64 = 7
} qspec_dtype;

typedef enum qspec_status {
  QSPEC_STATUS_OK = 0,          /* outputs written */
  QSPEC_STATUS_REJECTED = 1,    /* input rejected as invalid (the spec's ERROR_IF) */
  QSPEC_STATUS_UNSUPPORTED = 2, /* this op/convention/parameter set is not implemented; say why in message */
  QSPEC_STATUS_ERROR = 3        /* internal failure; message says what */
} qspec_status;

/* A dense row-major tensor. For inputs every field is read-only. For outputs the harness sets
 * name, dtype, rank, shape and an allocated buffer of size_bytes; the backend writes data. */
typedef struct qspec_tensor {
  const char* name;
  qspec_dtype dtype;
  int32_t rank;
  const int64_t* shape;
  void* data;
  size_t size_bytes;
} qspec_tensor;

typedef struct qspec_backend {
  uint32_t abi_version;    /* QSPEC_BACKEND_ABI_VERSION the backend was built with (1 or 2) */
  const char* name;        /* short identifier, e.g. "avx2" */
  const char* version;     /* free text, e.g. "1.2.0 (AVX2, VNNI)" */
  void* self;              /* backend state passed back to every call */

  /* JSON array describing what the backend implements, for `qspec backends`:
   * [{"op": "requantize", "convention": "gemmlowp.double_round", "note": "..."}, ...].
   * The string stays valid until destroy(). May be NULL (no description). */
  const char* (*capabilities_json)(void* self);

  /* Nonzero if the backend implements (op, convention) at all. Tests of unclaimed pairs are
   * reported UNSUPPORTED without calling run(). */
  int (*supports)(void* self, const char* op, const char* convention);

  /* Runs one test. message (message_size bytes, NUL-terminated by the backend) explains any
   * status other than OK and may be left empty on OK. */
  qspec_status (*run)(void* self, const char* op, const char* convention, const char* attrs_json,
                      const qspec_tensor* inputs, size_t n_inputs, qspec_tensor* outputs, size_t n_outputs,
                      char* message, size_t message_size);

  void (*destroy)(void* self); /* may be NULL */
} qspec_backend;

/* Every backend library exports qspec_backend_create or qspec_backend_create2 (or both; the
 * harness prefers qspec_backend_create2). host_abi_version is the harness's
 * QSPEC_BACKEND_ABI_VERSION; return 0 and fill *out on success, nonzero if the versions are
 * incompatible or creation failed. */
typedef int (*qspec_backend_create_fn)(uint32_t host_abi_version, qspec_backend* out);
QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out);

/* Run options (ABI version 2): what the user asked of this run that changes what the backend
 * claims or computes. Bits of `flags`: */
#define QSPEC_BACKEND_OPTION_ALL_CONVENTIONS 1u /* `qspec run --all-conventions`: claim every convention of
                                                 * the ops the backend implements, and compute each with
                                                 * its own arithmetic (parameters translated as a user
                                                 * porting a model would) */

typedef struct qspec_backend_options {
  uint32_t struct_size; /* sizeof(qspec_backend_options) of the harness: read no field beyond it */
  uint32_t flags;       /* QSPEC_BACKEND_OPTION_* bits; a backend ignores bits it does not know */
} qspec_backend_options;

/* The entry point of a backend that takes run options. `options` is never NULL and lives only
 * during the call (copy what you need). Exporting it is a promise to honour every option the
 * header the backend was built with defines: a backend without an all-conventions mode exports
 * only qspec_backend_create, and `--all-conventions` then tells the user it cannot be asked. */
typedef int (*qspec_backend_create2_fn)(uint32_t host_abi_version, const qspec_backend_options* options,
                                        qspec_backend* out);
QSPEC_BACKEND_EXPORT int qspec_backend_create2(uint32_t host_abi_version, const qspec_backend_options* options,
                                               qspec_backend* out);

#ifdef __cplusplus
}
#endif

#endif /* QSPEC_BACKEND_H_ */
