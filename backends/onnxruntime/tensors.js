// Tensors between the exec protocol and ONNX Runtime: element types, request inputs, attribute
// values, and the NHWC <-> NCHW transposes (qspec's convolution is NHWC / OHWI, ONNX's NCHW / OIHW).
'use strict';

// Typed-array constructors of the protocol's dtypes (the data is little-endian; so is every host
// onnxruntime-node ships for).
const ARRAYS = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  int64: BigInt64Array, float32: Float32Array, float64: Float64Array,
};
const RANGES = { int8: [-128, 127], uint8: [0, 255], int16: [-32768, 32767], uint16: [0, 65535], int32: [-(2 ** 31), 2 ** 31 - 1] };

// A translation the model cannot express (a zero point its tensor's type cannot hold, a dtype the
// operator lacks): REJECTED on an invalid test (the spec's ERROR_IF is that very impossibility),
// UNSUPPORTED on a valid one.
class Inexpressible extends Error {}

// The request's input `name` as a typed array over a copy of its bytes, with its shape.
function input(request, data, name) {
  const t = request.inputs.find((i) => i.name === name);
  if (!t) return null;
  const Array_ = ARRAYS[t.dtype];
  if (!Array_) throw new Inexpressible(`input '${name}' has dtype ${t.dtype}`);
  const bytes = Buffer.from(data.subarray(t.offset, t.offset + t.size));  // aligned copy
  return { dtype: t.dtype, shape: t.shape, data: new Array_(bytes.buffer, bytes.byteOffset, t.size / Array_.BYTES_PER_ELEMENT) };
}

// Attribute values as the vector format gives them: floats as "0x..." bit patterns, integers
// beyond 2^53 as decimal strings.
const floatBits = (v) => Number(BigInt(v)) >>> 0;
function float32(v) {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(floatBits(v));
  return b.readFloatLE(0);
}
const integer = (v) => Number(v);

// The little-endian bytes of `values` as a tensor of `dtype`; a value the dtype cannot hold is
// Inexpressible (`what` names it).
function raw(dtype, values, what) {
  const range = RANGES[dtype];
  if (range) for (const v of values)
    if (v < range[0] || v > range[1]) throw new Inexpressible(`${what} ${v} does not fit ${dtype}, the type of its ONNX tensor`);
  const a = ARRAYS[dtype].from(values);
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}
// float32 values from their bit patterns.
function rawFloatBits(bitsList) {
  const b = Buffer.alloc(4 * bitsList.length);
  bitsList.forEach((v, i) => b.writeUInt32LE(floatBits(v), 4 * i));
  return b;
}

// Permutes a row-major tensor: out[i_perm[0], ...] = in[i_0, ...] with out's shape[k] = in's shape[perm[k]].
function transpose(t, perm) {
  const shape = perm.map((p) => t.shape[p]);
  const inStrides = strides(t.shape);
  const out = new t.data.constructor(t.data.length);
  const idx = new Array(shape.length).fill(0);
  for (let o = 0; o < out.length; ++o) {
    let src = 0;
    for (let k = 0; k < shape.length; ++k) src += idx[k] * inStrides[perm[k]];
    out[o] = t.data[src];
    for (let k = shape.length - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return { dtype: t.dtype, shape, data: out };
}
function strides(shape) {
  const s = new Array(shape.length).fill(1);
  for (let k = shape.length - 2; k >= 0; --k) s[k] = s[k + 1] * shape[k + 1];
  return s;
}
const NHWC_TO_NCHW = [0, 3, 1, 2], NCHW_TO_NHWC = [0, 2, 3, 1];

const bytesOf = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

module.exports = { ARRAYS, RANGES, Inexpressible, input, float32, floatBits, integer, raw, rawFloatBits, transpose, NHWC_TO_NCHW, NCHW_TO_NHWC, bytesOf };
