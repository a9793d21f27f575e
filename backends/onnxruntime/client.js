#!/usr/bin/env node
// qspec backend for ONNX Runtime (onnxruntime-node, CPU execution provider / MLAS), speaking
// qspec's exec protocol (docs/exec-protocol.md) on stdin and stdout.
//
//     qspec run --backend backends/onnxruntime/onnxruntime.json
//
// For each test it builds the single-operator ONNX model of the test's op (ops_quantize.js,
// ops_qlinear.js, ops_integer.js), runs it in a cached InferenceSession and answers the outputs. Under
// --all-conventions it runs every convention of its ops with ONNX Runtime's own arithmetic.
// Diagnostics go to stderr; stdout carries frames only.
'use strict';

const { serve } = require('./frames');
const { Inexpressible } = require('./tensors');
const { loadOrt, runPlan, OrtRefusal } = require('./sessions');
const { QUANTIZE_OPS } = require('./ops_quantize');
const { QLINEAR_OPS } = require('./ops_qlinear');
const { INTEGER_OPS } = require('./ops_integer');
const { mlasIsa } = require('./isa');

const OPS = { ...QUANTIZE_OPS, ...QLINEAR_OPS, ...INTEGER_OPS };
let ort = null, allConventions = false;

function hello(request) {
  try {
    ort = loadOrt();
  } catch (e) {
    return [{ type: 'error', message: `onnxruntime-node is not installed (backends/onnxruntime/install.sh): ${e.message.split('\n')[0]}` }];
  }
  allConventions = Boolean(request.options && request.options.all_conventions);
  // Node.js's version is left out: it does not change the results, and a recorded measurement must
  // match on another machine with the same ONNX Runtime and ISA.
  const version = `onnxruntime-node ${ort.env.versions.node} (CPU EP, MLAS; isa: ${mlasIsa()})`;
  return [{
    type: 'hello', protocol: 1, name: 'onnxruntime', version, all_conventions: allConventions,
    claims: Object.entries(OPS).map(([op, e]) => ({ op, convention: e.convention })),
  }];
}

async function run(request, data) {
  const reply = { type: 'result', id: request.id, status: 'OK', message: '', outputs: [] };
  const invalid = request.outputs.length === 0;
  const entry = OPS[request.op];
  if (!entry || (!allConventions && request.convention !== entry.convention))
    return [{ ...reply, status: 'UNSUPPORTED', message: `not claimed: ${request.op} / ${request.convention}` }];
  try {
    const plan = entry.plan(request, data);
    const results = await runPlan(ort, plan);
    if (invalid) return [{ ...reply, message: 'ONNX Runtime accepted the input and ran' }];
    const buffers = plan.collect(results);
    let offset = 0;
    reply.outputs = request.outputs.map((o, i) => {
      const r = { name: o.name, offset, size: buffers[i].length };
      offset += buffers[i].length;
      return r;
    });
    return [reply, Buffer.concat(buffers)];
  } catch (e) {
    if (e instanceof OrtRefusal) return [{ ...reply, status: 'REJECTED', message: `ONNX Runtime: ${e.message}` }];
    if (e instanceof Inexpressible)
      return [{ ...reply, status: invalid ? 'REJECTED' : 'UNSUPPORTED', message: `not expressible in ONNX: ${e.message}` }];
    return [{ ...reply, status: 'ERROR', message: e.stack || String(e) }];
  }
}

serve(async (header, data) => (header.type === 'hello' ? hello(header) : run(header, data)));
