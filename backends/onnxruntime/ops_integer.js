// ONNX's integer operators, MatMulInteger and ConvInteger: the exact int32 accumulation with zero
// points and no requantization. The catalogue ops they compute are TVM's qnn.dense and qnn.conv2d
// with out_dtype int32 (spec/operators_tvm.md: the accumulator is returned, no convention-specific
// arithmetic); their requantized forms (int8/uint8 outputs, TVM's rounding) are no ONNX operator.
'use strict';

const { Inexpressible, input, raw, integer, transpose, NHWC_TO_NCHW, NCHW_TO_NHWC, bytesOf } = require('./tensors');
const { tensorBytes, weightsFed } = require('./sessions');

const HWIO_TO_OIHW = [3, 2, 0, 1];

function requireInt32Output(request) {
  const out = request.attributes.out_dtype;
  if (out !== 'int32')
    throw new Inexpressible(`MatMulInteger / ConvInteger return the int32 accumulator only; out_dtype ${out} is requantized with TVM's rounding, which no ONNX operator does`);
}

// The weights: a constant initializer, or fed at each run under weightsFed() (sessions.js).
const weightsInto = (plan, name, t) => {
  if (weightsFed()) plan.feeds.push({ name, ...t });
  else plan.initializers.push({ name, dtype: t.dtype, shape: t.shape, raw: bytesOf(t.data) });
  return plan;
};
const zeroPoint = (name, dtype, v) => ({ name, dtype, shape: [], raw: raw(dtype, [integer(v ?? 0)], name) });

// tvm.qnn.dense: data (N, K) x weight (M, K)^T = MatMulInteger(data, weight^T).
function densePlan(request, data) {
  requireInt32Output(request);
  const a = request.attributes;
  const x = input(request, data, 'data'), w = input(request, data, 'weight');
  const wt = w.shape.length === 2 ? transpose(w, [1, 0]) : w;
  return weightsInto({
    node: { opType: 'MatMulInteger', inputs: ['a', 'b', 'a_zero_point', 'b_zero_point'], outputs: ['y'] },
    initializers: [zeroPoint('a_zero_point', x.dtype, a.input_zero_point), zeroPoint('b_zero_point', w.dtype, a.kernel_zero_point)],
    feeds: [{ name: 'a', ...x }],
    outputs: [{ name: 'y', dtype: 'int32' }],
    collect: (results) => [tensorBytes(results.y)],
  }, 'b', wt);
}

// tvm.qnn.conv2d: NCHW/OIHW as ONNX's, or NHWC/HWIO transposed to it and back; symmetric padding
// [PH, PW] is ONNX's pads [PH, PW, PH, PW], padded with the input zero point as ConvInteger does.
function convPlan(request, data) {
  requireInt32Output(request);
  const a = request.attributes, nhwc = a.data_layout === 'NHWC';
  let x = input(request, data, 'data'), w = input(request, data, 'kernel');
  if (nhwc) {
    x = transpose(x, NHWC_TO_NCHW);
    w = transpose(w, HWIO_TO_OIHW);
  }
  const attributes = {};
  if (a.strides) attributes.strides = a.strides.map(integer);
  if (a.dilation) attributes.dilations = a.dilation.map(integer);
  if (a.padding) attributes.pads = [...a.padding, ...a.padding].map(integer);
  if (a.groups !== undefined) attributes.group = integer(a.groups);
  return weightsInto({
    node: { opType: 'ConvInteger', inputs: ['x', 'w', 'x_zero_point', 'w_zero_point'], outputs: ['y'], attributes },
    initializers: [zeroPoint('x_zero_point', x.dtype, a.input_zero_point), zeroPoint('w_zero_point', w.dtype, a.kernel_zero_point)],
    feeds: [{ name: 'x', ...x }],
    outputs: [{ name: 'y', dtype: 'int32' }],
    collect: (results) => {
      const y = { dtype: 'int32', shape: results.y.dims.map(Number), data: results.y.data };
      return [tensorBytes(nhwc ? transpose(y, NCHW_TO_NHWC) : y)];
    },
  }, 'w', w);
}

const INTEGER_OPS = {
  'tvm.qnn.dense': { convention: 'tvm', plan: densePlan },
  'tvm.qnn.conv2d': { convention: 'tvm', plan: convPlan },
};

module.exports = { INTEGER_OPS };
