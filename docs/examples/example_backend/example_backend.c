/* Example qspec backend: gemmlowp/TFLite requantization (requantize / gemmlowp.double_round).
 *
 * A complete plugin in plain C against <qspec/backend.h> only; copy it to start a backend.
 * The harness calls run() once per vector test with:
 *   attrs   {"multiplier": M, "shift": s, "output_zero_point": zp, "out_dtype": "int8"}
 *           (integers beyond 2^53 would arrive as decimal strings; this reader accepts both)
 *   inputs  x: int32[...]
 *   outputs y: out_dtype[same shape], buffer allocated by the harness
 * and compares y bit for bit with the golden vectors (docs/vector-format.md).
 *
 * The arithmetic is gemmlowp's OutputStageScaleInt32ByFixedPointAndExponent
 * (spec/gemmlowp.md, requant.gemmlowp.scale_by_fixedpoint_and_exponent):
 *   y = saturate(RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x << max(s, 0), M), max(-s, 0)) + zp)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qspec/backend.h>

/* ---- the arithmetic ---- */

/* round_half_up(a * b / 2^31), with the single overflow case INT32_MIN * INT32_MIN saturated. */
static int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? (INT64_C(1) << 30) : (1 - (INT64_C(1) << 30));
  return (int32_t)((ab + nudge) / (INT64_C(1) << 31)); /* division truncates toward zero */
}

/* round_half_away_from_zero(x / 2^e), 0 <= e <= 31. */
static int32_t rounding_divide_by_pot(int32_t x, int e) {
  const int64_t mask = (INT64_C(1) << e) - 1;
  const int64_t remainder = (int64_t)x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (int32_t)(((int64_t)x >> e) + (remainder > threshold ? 1 : 0));
}

/* ---- reading the flat attribute object the harness passes ---- */

static int find_value(const char* json, const char* key, char* out, size_t out_size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char* p = strstr(json, pattern);
  if (!p) return 0;
  p += strlen(pattern);
  while (*p == ' ') ++p;
  size_t n = 0;
  const int quoted = *p == '"';
  if (quoted) ++p;
  while (*p && n + 1 < out_size && (quoted ? *p != '"' : (*p != ',' && *p != '}'))) out[n++] = *p++;
  out[n] = '\0';
  return 1;
}

static int attr_int(const char* json, const char* key, int64_t* v) {
  char buf[64], *end;
  if (!find_value(json, key, buf, sizeof buf)) return 0;
  *v = strtoll(buf, &end, 10);
  return end != buf && *end == '\0';
}

/* ---- the backend ---- */

static const char kCapabilities[] =
    "[{\"op\": \"requantize\", \"convention\": \"gemmlowp.double_round\","
    " \"note\": \"example plugin: scalar C, SRDHM + RoundingDivideByPOT\"}]";

static const char* capabilities_json(void* self) {
  (void)self;
  return kCapabilities;
}

static int supports(void* self, const char* op, const char* convention) {
  (void)self;
  return strcmp(op, "requantize") == 0 && strcmp(convention, "gemmlowp.double_round") == 0;
}

static qspec_status run(void* self, const char* op, const char* convention, const char* attrs, const qspec_tensor* inputs,
                        size_t n_inputs, qspec_tensor* outputs, size_t n_outputs, char* message, size_t message_size) {
  (void)self;
  if (!supports(self, op, convention)) {
    snprintf(message, message_size, "only requantize / gemmlowp.double_round");
    return QSPEC_STATUS_UNSUPPORTED;
  }
  int64_t multiplier, shift, zero_point;
  char out_dtype[16];
  if (!attr_int(attrs, "multiplier", &multiplier) || !attr_int(attrs, "shift", &shift) ||
      !attr_int(attrs, "output_zero_point", &zero_point) || !find_value(attrs, "out_dtype", out_dtype, sizeof out_dtype)) {
    snprintf(message, message_size, "cannot read attributes %s", attrs);
    return QSPEC_STATUS_ERROR;
  }
  if (n_inputs != 1 || inputs[0].dtype != QSPEC_DTYPE_INT32 || n_outputs != 1) {
    snprintf(message, message_size, "expected one int32 input and one output");
    return QSPEC_STATUS_ERROR;
  }
  int64_t lo, hi;
  switch (outputs[0].dtype) {
    case QSPEC_DTYPE_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
    case QSPEC_DTYPE_UINT8: lo = 0; hi = UINT8_MAX; break;
    case QSPEC_DTYPE_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
    case QSPEC_DTYPE_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    default: snprintf(message, message_size, "unsupported out_dtype %s", out_dtype); return QSPEC_STATUS_UNSUPPORTED;
  }
  if (multiplier < 0 || multiplier > INT32_MAX || shift < -31 || shift > 30) {
    snprintf(message, message_size, "multiplier/shift outside the Q31 range");
    return QSPEC_STATUS_UNSUPPORTED;
  }
  const int left = shift > 0 ? (int)shift : 0, right = shift > 0 ? 0 : (int)-shift;
  const size_t n = inputs[0].size_bytes / sizeof(int32_t);
  for (size_t i = 0; i < n; ++i) {
    int32_t x;
    memcpy(&x, (const char*)inputs[0].data + i * sizeof x, sizeof x);
    const int64_t shifted = (int64_t)x * (INT64_C(1) << left);
    if (shifted < INT32_MIN || shifted > INT32_MAX) {
      snprintf(message, message_size, "x << shift overflows int32 (outside the spec's REQUIRE)");
      return QSPEC_STATUS_ERROR;
    }
    int64_t v = (int64_t)rounding_divide_by_pot(saturating_rounding_doubling_high_mul((int32_t)shifted, (int32_t)multiplier), right) +
                zero_point;
    v = v < lo ? lo : v > hi ? hi : v;
    switch (outputs[0].dtype) {
      case QSPEC_DTYPE_INT8: ((int8_t*)outputs[0].data)[i] = (int8_t)v; break;
      case QSPEC_DTYPE_UINT8: ((uint8_t*)outputs[0].data)[i] = (uint8_t)v; break;
      case QSPEC_DTYPE_INT16: ((int16_t*)outputs[0].data)[i] = (int16_t)v; break;
      default: ((int32_t*)outputs[0].data)[i] = (int32_t)v; break;
    }
  }
  return QSPEC_STATUS_OK;
}

QSPEC_BACKEND_EXPORT int qspec_backend_create(uint32_t host_abi_version, qspec_backend* out) {
  if (host_abi_version != QSPEC_BACKEND_ABI_VERSION) return 1; /* built for another ABI */
  memset(out, 0, sizeof *out);
  out->abi_version = QSPEC_BACKEND_ABI_VERSION;
  out->name = "example";
  out->version = "1.0 (scalar C)";
  out->self = NULL;
  out->capabilities_json = capabilities_json;
  out->supports = supports;
  out->run = run;
  out->destroy = NULL;
  return 0;
}
