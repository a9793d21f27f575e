// Builds each test's single-operator model and runs it through ONNX Runtime's CPU execution
// provider, with one InferenceSession kept per distinct model (op, shapes, attributes, constants).
'use strict';

const crypto = require('crypto');
const { encodeModel } = require('./onnx_proto');
const { bytesOf } = require('./tensors');

// ONNX opsets: the default domain at 21 (QuantizeLinear/DequantizeLinear with int16/uint16, the
// newest QLinearConv/QLinearMatMul type lists), com.microsoft for the contrib operators.
const OPSETS = { '': 21, 'com.microsoft': 1 };
// Single-threaded: the result must not depend on how MLAS splits the work, and 2 cores are shared.
// ONNX Runtime's own error log is off: each refusal's message is in the test's reply.
const SESSION_OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ['cpu'], logSeverityLevel: 4 };
const CACHE_LIMIT = 256;

class OrtRefusal extends Error {}

// QSPEC_ORT_WEIGHTS=fed feeds the weights (QLinearConv's w, QLinearMatMul's b, MatMulInteger's
// and ConvInteger's second operand) at each run instead of making them constant initializers:
// ONNX Runtime prepacks constant weights (and runs MLAS's symmetric int8 convolution kernels on
// them), so the two are different code paths a user's model can take.
const weightsFed = () => process.env.QSPEC_ORT_WEIGHTS === 'fed';  // ONNX Runtime refused the model or the run: its own message

function loadOrt() {
  return require('onnxruntime-node');
}

const cache = new Map();  // sha256 of the model -> session, least recently used first

async function session(ort, model) {
  const key = crypto.createHash('sha256').update(model).digest('hex');
  let s = cache.get(key);
  if (s) {
    cache.delete(key);
  } else {
    try {
      s = await ort.InferenceSession.create(model, SESSION_OPTIONS);
    } catch (e) {
      throw new OrtRefusal(`InferenceSession.create: ${e.message}`);
    }
    if (cache.size >= CACHE_LIMIT) {
      const [oldKey, old] = cache.entries().next().value;
      cache.delete(oldKey);
      await old.release();
    }
  }
  cache.set(key, s);
  return s;
}

// Runs a plan (ops_*.js): its node, constant initializers and fed inputs; returns ONNX Runtime's
// output tensors by name.
async function runPlan(ort, plan) {
  const model = encodeModel({
    node: plan.node,
    initializers: plan.initializers,
    inputs: plan.feeds.map(({ name, dtype, shape }) => ({ name, dtype, shape })),
    outputs: plan.outputs,
    opsets: OPSETS,
  });
  const s = await session(ort, model);
  const feeds = {};
  for (const f of plan.feeds) feeds[f.name] = new ort.Tensor(f.dtype, f.data, f.shape);
  try {
    return await s.run(feeds);
  } catch (e) {
    throw new OrtRefusal(`run: ${e.message}`);
  }
}

// The raw little-endian bytes of an ONNX Runtime output tensor.
const tensorBytes = (t) => bytesOf(t.data);

module.exports = { loadOrt, runPlan, tensorBytes, weightsFed, OrtRefusal, OPSETS };
