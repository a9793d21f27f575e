// The ONNX quantization operators: QuantizeLinear (per tensor and per axis), DequantizeLinear,
// DynamicQuantizeLinear, each as one table entry: the qspec op, the convention ONNX Runtime
// implements (spec/catalogue/<op>.json), and the plan that builds its one-node model.
'use strict';

const { Inexpressible, input, raw, rawFloatBits, integer } = require('./tensors');
const { tensorBytes } = require('./sessions');

// QuantizeLinear's output types in opset 21 (int4/uint4/float8 aside); int32 is in no opset.
const QUANTIZE_TYPES = ['int8', 'uint8', 'int16', 'uint16'];
// DequantizeLinear's input types in opset 21.
const DEQUANTIZE_TYPES = ['int8', 'uint8', 'int16', 'uint16', 'int32'];

// The output dtype: the request's output (a valid test), else the out_dtype attribute.
const outDtype = (request) => (request.outputs[0] && request.outputs[0].dtype) || request.attributes.out_dtype;

const single = (name) => (results) => [tensorBytes(results[name])];

function quantizePlan(request, data, { perAxis }) {
  const a = request.attributes, dtype = outDtype(request);
  if (!QUANTIZE_TYPES.includes(dtype)) throw new Inexpressible(`QuantizeLinear has no ${dtype} output type (opset 21: ${QUANTIZE_TYPES.join(', ')})`);
  const x = input(request, data, 'x');
  const scales = perAxis ? a.scales : [a.scale];
  const zeroPoints = perAxis ? a.zero_points.map(integer) : [integer(a.zero_point)];
  const shape = (n) => (perAxis ? [n] : []);
  return {
    node: { opType: 'QuantizeLinear', inputs: ['x', 'scale', 'zero_point'], outputs: ['y'], attributes: perAxis ? { axis: integer(a.axis) } : {} },
    initializers: [
      { name: 'scale', dtype: 'float32', shape: shape(scales.length), raw: rawFloatBits(scales) },
      { name: 'zero_point', dtype, shape: shape(zeroPoints.length), raw: raw(dtype, zeroPoints, 'zero point') },
    ],
    feeds: [{ name: 'x', ...x }],
    outputs: [{ name: 'y', dtype }],
    collect: single('y'),
  };
}

function dequantizePlan(request, data) {
  const a = request.attributes, x = input(request, data, 'x');
  if (!DEQUANTIZE_TYPES.includes(x.dtype)) throw new Inexpressible(`DequantizeLinear has no ${x.dtype} input type (opset 21: ${DEQUANTIZE_TYPES.join(', ')})`);
  return {
    node: { opType: 'DequantizeLinear', inputs: ['x', 'scale', 'zero_point'], outputs: ['y'] },
    initializers: [
      { name: 'scale', dtype: 'float32', shape: [], raw: rawFloatBits([a.scale]) },
      { name: 'zero_point', dtype: x.dtype, shape: [], raw: raw(x.dtype, [integer(a.zero_point)], 'zero point') },
    ],
    feeds: [{ name: 'x', ...x }],
    outputs: [{ name: 'y', dtype: 'float32' }],
    collect: single('y'),
  };
}

// DynamicQuantizeLinear of `inputName`, returning the outputs the request names in its order
// (`names` maps qspec's output names to the node's: y, y_scale, y_zero_point). ONNX Runtime's
// scale and zero point are scalars; qspec's are shape [1]: the same bytes.
function dynamicQuantizePlan(request, data, inputName, names) {
  const x = input(request, data, inputName);
  if (x.dtype !== 'float32') throw new Inexpressible(`DynamicQuantizeLinear takes float32, not ${x.dtype}`);
  for (const o of request.outputs) {
    const want = o.name === names.y_scale ? 'float32' : 'uint8';
    if (o.dtype !== want) throw new Inexpressible(`DynamicQuantizeLinear's ${o.name} is ${want}, not ${o.dtype}`);
  }
  const a = request.attributes;
  if (a.dtype !== undefined && a.dtype !== 'uint8') throw new Inexpressible(`DynamicQuantizeLinear quantizes to uint8 only, not ${a.dtype}`);
  if (a.narrow_range === true) throw new Inexpressible('DynamicQuantizeLinear has no narrow range');
  const node = { y: 'y', y_scale: 'y_scale', y_zero_point: 'y_zero_point' };
  const byQspecName = Object.fromEntries(Object.entries(names).map(([k, v]) => [v, node[k]]));
  return {
    node: { opType: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['y', 'y_scale', 'y_zero_point'] },
    initializers: [],
    feeds: [{ name: 'x', ...x }],
    outputs: [{ name: 'y', dtype: 'uint8' }, { name: 'y_scale', dtype: 'float32' }, { name: 'y_zero_point', dtype: 'uint8' }],
    collect: (results) => request.outputs.map((o) => tensorBytes(results[byQspecName[o.name]])),
  };
}

const QUANTIZE_OPS = {
  quantize: { convention: 'onnx.quantize_linear', plan: (r, d) => quantizePlan(r, d, { perAxis: false }) },
  quantize_per_channel: { convention: 'onnx.quantize_linear', plan: (r, d) => quantizePlan(r, d, { perAxis: true }) },
  dequantize: { convention: 'onnx.dequantize_linear', plan: dequantizePlan },
  'onnx.dynamic_quantize_linear': {
    convention: 'onnx',
    plan: (r, d) => dynamicQuantizePlan(r, d, 'x', { y: 'y', y_scale: 'y_scale', y_zero_point: 'y_zero_point' }),
  },
  // DynamicQuantizeLinear's parameter choice alone: its input is the range [min, max] itself
  // (ONNX Runtime takes min(0, min x) and max(0, max x), which a two-element x gives exactly).
  choose_quant_params: {
    convention: 'onnx.dynamic_quantize_linear',
    plan: (r, d) => {
      if (r.outputs.length === 0) throw new Inexpressible('no output requested');
      return dynamicQuantizePlan(r, d, 'range', { y_scale: 'scale', y_zero_point: 'zero_point' });
    },
  },
};

module.exports = { QUANTIZE_OPS };
