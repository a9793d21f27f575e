/* A deliberately wrong backend plugin: the harness's own tests must catch it (test262-style).
 *
 * Plain integer code, no qspec reference. Two bugs, both classic:
 *   1. rounding: the final division by a power of two rounds ties toward +inf (half up) where
 *      the spec says ties away from zero (gemmlowp RoundingDivideByPOT);
 *   2. saturation: values that reach the top of the output type clamp to max - 1.
 * Ops:
 *   requantize / gemmlowp.double_round   (attrs multiplier (Q31), shift (TFLite sign), output_zero_point, out_dtype)
 *   test.requantize / test.half_away     the harness tests' private op: y = sat(round(x * multiplier / 2^shift)
 *                                        + output_zero_point), shift >= 0 a right shift
 * It also reports QSPEC_STATUS_ERROR whenever an input element equals 12345 (an "internal
 * error" that must cost only that test) and rejects multiplier < 0 (the test op's ERROR_IF).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qspec/backend.h"

/* Minimal attribute reader for the flat JSON objects the harness passes: "key":number or
 * "key":"string" (numbers may also be decimal strings). Returns 0 if the key is absent. */
static int find_value(const char* json, const char* key, char* out, size_t out_size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char* p = strstr(json, pattern);
  if (!p) return 0;
  p += strlen(pattern);
  while (*p == ' ') ++p;
  size_t n = 0;
  if (*p == '"') {
    ++p;
    while (*p && *p != '"' && n + 1 < out_size) out[n++] = *p++;
  } else {
    while (*p && *p != ',' && *p != '}' && n + 1 < out_size) out[n++] = *p++;
  }
  out[n] = '\0';
  return 1;
}

static int attr_i64(const char* json, const char* key, int64_t* v) {
  char buf[64];
  if (!find_value(json, key, buf, sizeof buf)) return 0;
  *v = strtoll(buf, NULL, 10);
  return 1;
}

static int range_of(const char* dtype, int64_t* lo, int64_t* hi, qspec_dtype* code) {
  if (strcmp(dtype, "int8") == 0) { *lo = -128; *hi = 127; *code = QSPEC_DTYPE_INT8; return 1; }
  if (strcmp(dtype, "uint8") == 0) { *lo = 0; *hi = 255; *code = QSPEC_DTYPE_UINT8; return 1; }
  if (strcmp(dtype, "int16") == 0) { *lo = -32768; *hi = 32767; *code = QSPEC_DTYPE_INT16; return 1; }
  if (strcmp(dtype, "int32") == 0) { *lo = INT32_MIN; *hi = INT32_MAX; *code = QSPEC_DTYPE_INT32; return 1; }
  return 0;
}

/* BUG 1: ties toward +inf. (floor((v + 2^(e-1)) / 2^e) with an arithmetic shift.) */
static int64_t divide_by_pot_half_up(int64_t v, int e) {
  if (e == 0) return v;
  return (v + ((int64_t)1 << (e - 1))) >> e;
}

/* gemmlowp SaturatingRoundingDoublingHighMul, written out (this part is right). */
static int32_t srdhm(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* BUG 2: the upper clamp is one too low (and catches values equal to the maximum). */
static int64_t saturate_wrong(int64_t v, int64_t lo, int64_t hi) {
  if (v >= hi) return hi - 1;
  if (v < lo) return lo;
  return v;
}

static void store(qspec_dtype t, void* buf, size_t i, int64_t v) {
  switch (t) {
    case QSPEC_DTYPE_INT8: ((int8_t*)buf)[i] = (int8_t)v; break;
    case QSPEC_DTYPE_UINT8: ((uint8_t*)buf)[i] = (uint8_t)v; break;
    case QSPEC_DTYPE_INT16: ((int16_t*)buf)[i] = (int16_t)v; break;
    default: ((int32_t*)buf)[i] = (int32_t)v; break;
  }
}

static const char kCapabilities[] =
    "[{\"op\": \"requantize\", \"convention\": \"gemmlowp.double_round\", \"note\": \"WRONG on purpose: ties up, max-1 saturation\"},"
    " {\"op\": \"test.requantize\", \"convention\": \"test.half_away\", \"note\": \"WRONG on purpose\"}]";

static const char* capabilities_json(void* self) {
  (void)self;
  return kCapabilities;
}

static int supports(void* self, const char* op, const char* convention) {
  (void)self;
  return (strcmp(op, "requantize") == 0 && strcmp(convention, "gemmlowp.double_round") == 0) ||
         (strcmp(op, "test.requantize") == 0 && strcmp(convention, "test.half_away") == 0);
}

static qspec_status run(void* self, const char* op, const char* convention, const char* attrs, const qspec_tensor* inputs,
                        size_t n_inputs, qspec_tensor* outputs, size_t n_outputs, char* message, size_t message_size) {
  (void)self;
  (void)convention;
  int64_t m, shift, zp, lo, hi;
  char dtype[32];
  qspec_dtype out_code;
  if (!attr_i64(attrs, "multiplier", &m) || !attr_i64(attrs, "shift", &shift) || !attr_i64(attrs, "output_zero_point", &zp) ||
      !find_value(attrs, "out_dtype", dtype, sizeof dtype) || !range_of(dtype, &lo, &hi, &out_code)) {
    snprintf(message, message_size, "unsupported attributes %s", attrs);
    return QSPEC_STATUS_UNSUPPORTED;
  }
  const int test_op = strcmp(op, "test.requantize") == 0;
  if (test_op && m < 0) {
    snprintf(message, message_size, "multiplier must be >= 0");
    return QSPEC_STATUS_REJECTED;
  }
  if (n_inputs != 1 || inputs[0].dtype != QSPEC_DTYPE_INT32) {
    snprintf(message, message_size, "expected one int32 input");
    return QSPEC_STATUS_ERROR;
  }
  if (n_outputs != 1 || outputs[0].dtype != out_code) {
    snprintf(message, message_size, "expected one %s output", dtype);
    return QSPEC_STATUS_ERROR;
  }
  const size_t n = inputs[0].size_bytes / 4;
  const int32_t* x = (const int32_t*)inputs[0].data;
  for (size_t i = 0; i < n; ++i) {
    if (x[i] == 12345) {
      snprintf(message, message_size, "internal error: simulated crash on input 12345");
      return QSPEC_STATUS_ERROR;
    }
    int64_t v;
    if (test_op) {
      v = divide_by_pot_half_up((int64_t)x[i] * m, (int)shift);
    } else {
      const int left = shift > 0 ? (int)shift : 0, right = shift > 0 ? 0 : (int)-shift;
      const int64_t shifted = (int64_t)x[i] * ((int64_t)1 << left);
      if (shifted < INT32_MIN || shifted > INT32_MAX) {
        snprintf(message, message_size, "x * 2^shift overflows int32");
        return QSPEC_STATUS_ERROR;
      }
      v = divide_by_pot_half_up(srdhm((int32_t)shifted, (int32_t)m), right);
    }
    store(out_code, outputs[0].data, i, saturate_wrong(v + zp, lo, hi));
  }
  return QSPEC_STATUS_OK;
}

QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out) {
  if (host_abi_version != QSPEC_BACKEND_ABI_VERSION) return 1;
  memset(out, 0, sizeof *out);
  out->abi_version = QSPEC_BACKEND_ABI_VERSION;
  out->name = "testing.wrong_requantize";
  out->version = "1 (deliberately wrong)";
  out->capabilities_json = capabilities_json;
  out->supports = supports;
  out->run = run;
  return 0;
}
