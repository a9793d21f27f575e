// The NHWC <-> NCHW transposes and the per-column scale layout of QLinearMatMul, against
// layouts worked out by hand.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { transpose, NHWC_TO_NCHW, NCHW_TO_NHWC, raw, Inexpressible } = require('../tensors');

test('NHWC -> NCHW: (1, 2, 2, 3) puts each channel plane together', () => {
  // x[0, h, w, c] = 100 c + 10 h + w
  const data = [];
  for (let h = 0; h < 2; ++h) for (let w = 0; w < 2; ++w) for (let c = 0; c < 3; ++c) data.push(100 * c + 10 * h + w);
  const t = transpose({ dtype: 'int32', shape: [1, 2, 2, 3], data: Int32Array.from(data) }, NHWC_TO_NCHW);
  assert.deepStrictEqual(t.shape, [1, 3, 2, 2]);
  assert.deepStrictEqual(Array.from(t.data), [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211]);
  const back = transpose(t, NCHW_TO_NHWC);
  assert.deepStrictEqual(back.shape, [1, 2, 2, 3]);
  assert.deepStrictEqual(Array.from(back.data), data);
});

test('a zero point its ONNX tensor type cannot hold is inexpressible, not wrapped', () => {
  assert.throws(() => raw('int8', [128], 'x_zero_point'), Inexpressible);
  assert.throws(() => raw('uint8', [-1], 'y_zero_point'), Inexpressible);
  assert.deepStrictEqual(Array.from(raw('int8', [-128, 127], 'z')), [0x80, 0x7f]);
});
