// The engine operators (qspec's qlinear.* ops) as ONNX Runtime's QLinear* operators: one table
// entry per op, naming the ONNX operator, its inputs in ONNX's order (slots), its layout and its
// attributes. A new QLinear operator is one entry in QLINEAR_OPS.
'use strict';

const { Inexpressible, input, raw, rawFloatBits, integer, floatBits, transpose, NHWC_TO_NCHW, NCHW_TO_NHWC, RANGES, bytesOf } = require('./tensors');
const { tensorBytes, weightsFed } = require('./sessions');

const MS = 'com.microsoft';

// ---- Slots: each contributes ONNX inputs (fed tensors or constant initializers) in order. ----
// A plan under construction: `ctx` holds the request, its data, the layout and the output dtype.
const scaleTensor = (name, bits) => ({ name, dtype: 'float32', shape: [], raw: rawFloatBits([bits]) });
const zeroPointTensor = (name, dtype, zp) => ({ name, dtype, shape: [], raw: raw(dtype, [zp], name) });

// An activation fed at run time, with its per-tensor scale and zero point.
const activation = (name, scale, zeroPoint) => (ctx, plan) => {
  const t = ctx.layout.toOnnx(input(ctx.request, ctx.data, name));
  plan.feeds.push({ name, ...t });
  plan.initializers.push(scaleTensor(`${name}_scale`, ctx.attrs[scale]),
    zeroPointTensor(`${name}_zero_point`, t.dtype, integer(ctx.attrs[zeroPoint])));
  plan.node.inputs.push(name, `${name}_scale`, `${name}_zero_point`);
};

// Weights with one scale or one per output channel and a per-tensor zero point; constant (an
// initializer, as in a deployed model: ONNX Runtime prepacks them) unless weightsFed() (then fed
// at each run, the unpacked kernels' path). `perChannel(values, shape)` lays the per-channel
// scales (and the zero point, repeated) out as the ONNX operator wants them.
const weights = (name, scales, zeroPoint, perChannel) => (ctx, plan) => {
  const t = ctx.layout.weightsToOnnx(input(ctx.request, ctx.data, name));
  const s = ctx.attrs[scales], zp = integer(ctx.attrs[zeroPoint] ?? 0);
  const scale = s.length === 1 ? { shape: [], values: s } : perChannel(s, t.shape);
  const zeroPoints = s.length === 1 || !perChannel.zeroPointToo ? { shape: [], values: [zp] } : perChannel(s.map(() => zp), t.shape);
  if (weightsFed()) plan.feeds.push({ name, ...t });
  else plan.initializers.push({ name, dtype: t.dtype, shape: t.shape, raw: bytesOf(t.data) });
  plan.initializers.push({ name: `${name}_scale`, dtype: 'float32', shape: scale.shape, raw: rawFloatBits(scale.values) },
    { name: `${name}_zero_point`, dtype: t.dtype, shape: zeroPoints.shape, raw: raw(t.dtype, zeroPoints.values, `${name}_zero_point`) });
  plan.node.inputs.push(name, `${name}_scale`, `${name}_zero_point`);
};

// The output's scale and zero point (the zero point's type is the output's). A convention without
// output parameters (pytorch.* pooling: y keeps x's) translates to x's.
const requantized = (scale, zeroPoint) => (ctx, plan) => {
  const s = ctx.attrs[scale] ?? ctx.attrs.x_scale, z = ctx.attrs[zeroPoint] ?? ctx.attrs.x_zero_point;
  plan.initializers.push(scaleTensor('y_scale', s), zeroPointTensor('y_zero_point', ctx.outDtype, integer(z)));
  plan.node.inputs.push('y_scale', 'y_zero_point');
};

// An optional constant int32 bias.
const bias = (name) => (ctx, plan) => {
  const b = input(ctx.request, ctx.data, name);
  if (!b) return;
  plan.initializers.push({ name, dtype: 'int32', shape: b.shape, raw: bytesOf(b.data) });
  plan.node.inputs.push(name);
};

// ---- Layouts: how qspec's tensors become ONNX's and the output comes back. ----
const identity = (t) => t;
const LAYOUTS = {
  // Shapes as they are (matmul, elementwise).
  same: { toOnnx: identity, weightsToOnnx: identity, fromOnnx: identity },
  // qspec's NHWC activations and OHWI weights; ONNX's NCHW and OIHW (the same permutation).
  nhwc: {
    toOnnx: (t) => (t.shape.length === 4 ? transpose(t, NHWC_TO_NCHW) : t),
    weightsToOnnx: (t) => (t.shape.length === 4 ? transpose(t, NHWC_TO_NCHW) : t),
    fromOnnx: (t) => transpose(t, NCHW_TO_NHWC),
  },
  // Fully connected as a 1x1 convolution: x (N, K) -> (N, K, 1, 1), w (O, K) -> (O, K, 1, 1).
  fc: {
    toOnnx: (t) => ({ ...t, shape: [...t.shape, 1, 1] }),
    weightsToOnnx: (t) => ({ ...t, shape: [...t.shape, 1, 1] }),
    fromOnnx: (t) => ({ ...t, shape: t.shape.slice(0, 2) }),
  },
};

// ---- ONNX attributes of the ops. ----
const ints = (v) => v.map(integer);
function convAttributes(a) {
  const out = {};
  if (a.strides !== undefined) out.strides = ints(a.strides);
  if (a.dilations !== undefined) out.dilations = ints(a.dilations);
  if (a.pads !== undefined) out.pads = ints(a.pads);  // [top, left, bottom, right] is ONNX's order
  if (a.groups !== undefined) out.group = integer(a.groups);
  return out;
}

// Pooling windows: ONNX's kernel_shape, strides, pads, dilations (MaxPool) and count_include_pad
// (QLinearAveragePool, 0 or 1) from qspec's kernel, strides, pads, dilations, count_include_pad.
function poolAttributes(a) {
  const out = { kernel_shape: ints(a.kernel) };
  if (a.strides !== undefined) out.strides = ints(a.strides);
  if (a.pads !== undefined) out.pads = ints(a.pads);
  if (a.dilations !== undefined) out.dilations = ints(a.dilations);
  if (a.count_include_pad !== undefined) out.count_include_pad = a.count_include_pad ? 1 : 0;
  return out;
}

// An input without quantization parameters (MaxPool keeps the input's).
const plain = (name) => (ctx, plan) => {
  plan.feeds.push({ name, ...ctx.layout.toOnnx(input(ctx.request, ctx.data, name)) });
  plan.node.inputs.push(name);
};

// The variadic inputs x0, x1, ... of QLinearConcat, each followed by its scale (x_scales[i]) and
// zero point (x_zero_points[i]): ONNX Runtime's (X, X_scale, X_zero_point) tuples after Y's.
const concatInputs = (ctx, plan) => {
  const names = ctx.request.inputs.map((i) => i.name);
  const scales = ctx.attrs.x_scales, zeroPoints = ctx.attrs.x_zero_points;
  if (!Array.isArray(scales) || !Array.isArray(zeroPoints) || scales.length !== names.length || zeroPoints.length !== names.length)
    throw new Inexpressible(`QLinearConcat takes one scale and one zero point per input (${names.length} inputs, ${scales?.length} scales, ${zeroPoints?.length} zero points)`);
  names.forEach((name, i) => {
    const t = ctx.layout.toOnnx(input(ctx.request, ctx.data, name));
    plan.feeds.push({ name, ...t });
    plan.initializers.push(scaleTensor(`${name}_scale`, scales[i]), zeroPointTensor(`${name}_zero_point`, t.dtype, integer(zeroPoints[i])));
    plan.node.inputs.push(name, `${name}_scale`, `${name}_zero_point`);
  });
};

// Per-channel scales: QLinearConv takes a 1-D (O) tensor (and a scalar zero point).
const perOutputChannel = (values) => ({ shape: [values.length], values });
// QLinearMatMul takes per-column scales and zero points of b's shape with dimension -2 set to 1
// (IsBQuantParamSupported: "last to second dimension is 1"), the same for every batch.
function perColumn(values, bShape) {
  const shape = [...bShape.slice(0, -2), 1, values.length];
  const batches = bShape.slice(0, -2).reduce((a, b) => a * b, 1);
  return { shape, values: Array.from({ length: batches }, () => values).flat() };
}
perColumn.zeroPointToo = true;

const QLINEAR_OPS = {
  'qlinear.add': {
    convention: 'onnxruntime', opType: 'QLinearAdd', domain: MS, layout: 'same',
    slots: [activation('a', 'a_scale', 'a_zero_point'), activation('b', 'b_scale', 'b_zero_point'), requantized('y_scale', 'y_zero_point')],
  },
  'qlinear.mul': {
    convention: 'onnxruntime', opType: 'QLinearMul', domain: MS, layout: 'same',
    slots: [activation('a', 'a_scale', 'a_zero_point'), activation('b', 'b_scale', 'b_zero_point'), requantized('y_scale', 'y_zero_point')],
  },
  'qlinear.conv2d': {
    convention: 'onnxruntime', opType: 'QLinearConv', layout: 'nhwc', attributes: convAttributes,
    slots: [activation('x', 'x_scale', 'x_zero_point'), weights('w', 'w_scales', 'w_zero_point', perOutputChannel), requantized('y_scale', 'y_zero_point'), bias('b')],
  },
  'qlinear.fully_connected': {
    convention: 'onnxruntime', opType: 'QLinearConv', layout: 'fc',
    slots: [activation('x', 'x_scale', 'x_zero_point'), weights('w', 'w_scales', 'w_zero_point', perOutputChannel), requantized('y_scale', 'y_zero_point'), bias('b')],
  },
  'qlinear.matmul': {
    convention: 'onnxruntime', opType: 'QLinearMatMul', layout: 'same',
    slots: [activation('a', 'a_scale', 'a_zero_point'), weights('b', 'b_scales', 'b_zero_point', perColumn), requantized('y_scale', 'y_zero_point')],
  },
  'qlinear.avg_pool2d': {
    convention: 'onnxruntime', opType: 'QLinearAveragePool', domain: MS, layout: 'nhwc', attributes: poolAttributes,
    slots: [activation('x', 'x_scale', 'x_zero_point'), requantized('y_scale', 'y_zero_point')],
  },
  'qlinear.global_avg_pool': {
    convention: 'onnxruntime', opType: 'QLinearGlobalAveragePool', domain: MS, layout: 'nhwc',
    slots: [activation('x', 'x_scale', 'x_zero_point'), requantized('y_scale', 'y_zero_point')],
  },
  'qlinear.concat': {
    convention: 'onnxruntime', opType: 'QLinearConcat', domain: MS, layout: 'same', attributes: (a) => ({ axis: integer(a.axis) }),
    slots: [requantized('y_scale', 'y_zero_point'), concatInputs],
  },
  'qlinear.max_pool2d': { convention: 'onnxruntime', opType: 'MaxPool', layout: 'nhwc', attributes: poolAttributes, slots: [plain('x')] },
  'qlinear.leaky_relu': {
    convention: 'onnxruntime', opType: 'QLinearLeakyRelu', domain: MS, layout: 'same', attributes: (a) => ({ alpha: { floatBits: floatBits(a.alpha) } }),
    slots: [activation('x', 'x_scale', 'x_zero_point'), requantized('y_scale', 'y_zero_point')],
  },
};

// Parameters the ONNX operators do not have: a fused clamp narrower than the dtype's range
// (other conventions' y_min / y_max) cannot be expressed.
function checkNoClamp(attrs, dtype) {
  const [lo, hi] = RANGES[dtype];
  if ((attrs.y_min !== undefined && integer(attrs.y_min) !== lo) || (attrs.y_max !== undefined && integer(attrs.y_max) !== hi))
    throw new Inexpressible(`ONNX Runtime's QLinear operators have no fused clamp (y_min ${attrs.y_min}, y_max ${attrs.y_max})`);
}

function qlinearPlan(entry, request, data) {
  const first = request.inputs[0];
  const outDtype = request.outputs.length ? request.outputs[0].dtype : first.dtype;
  const layout = LAYOUTS[entry.layout];
  const ctx = { request, data, attrs: request.attributes, layout, outDtype };
  checkNoClamp(ctx.attrs, outDtype);
  const plan = {
    node: { opType: entry.opType, domain: entry.domain, inputs: [], outputs: ['y'], attributes: entry.attributes ? entry.attributes(ctx.attrs) : {} },
    initializers: [], feeds: [], outputs: [{ name: 'y', dtype: outDtype }],
  };
  for (const slot of entry.slots) slot(ctx, plan);
  plan.collect = (results) => {
    const y = results.y;
    const t = layout.fromOnnx({ dtype: outDtype, shape: y.dims.map(Number), data: y.data });
    return [tensorBytes(t)];
  };
  return plan;
}

const QLINEAR_TABLE = Object.fromEntries(Object.entries(QLINEAR_OPS).map(([op, e]) => [op, { convention: e.convention, plan: (r, d) => qlinearPlan(e, r, d) }]));

module.exports = { QLINEAR_OPS: QLINEAR_TABLE, MS };
