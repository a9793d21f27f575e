// The client's protobuf encoder (onnx_proto.js) against encodings worked out by hand from the
// protobuf wire format and onnx.proto3's field numbers.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { tensor, valueInfo, varint } = require('../onnx_proto');

const hex = (b) => Buffer.from(b).toString('hex');

test('varints: 7 bits a byte, low bits first; negative int64s in ten bytes', () => {
  assert.strictEqual(hex(varint(0)), '00');
  assert.strictEqual(hex(varint(1)), '01');
  assert.strictEqual(hex(varint(300)), 'ac02');  // 300 = 0b10_0101100
  assert.strictEqual(hex(varint(-1)), 'ffffffffffffffffff01');
});

test('TensorProto: dims (1), data_type (2), name (8), raw_data (9)', () => {
  // int8 tensor "w" of shape [2, 1] holding [-1, 2], as field 5 of a GraphProto (initializer).
  const got = tensor(5, { name: 'w', dtype: 'int8', shape: [2, 1], raw: Buffer.from([0xff, 0x02]) });
  // 2a = field 5, length-delimited; 0d = 13 bytes: 08 02 | 08 01 | 10 03 (INT8) | 42 01 77 ("w") | 4a 02 ff 02
  assert.strictEqual(hex(got), '2a0d' + '0802' + '0801' + '1003' + '420177' + '4a02ff02');
});

test('a scalar TensorProto has no dims', () => {
  const got = tensor(5, { name: 's', dtype: 'float32', shape: [], raw: Buffer.from([0, 0, 0x80, 0x3f]) });
  assert.strictEqual(hex(got), '2a0b' + '1001' + '420173' + '4a040000803f');
});

test('ValueInfoProto: name (1), type (2) > tensor_type (1) > elem_type (1), shape (2) > dim (1) > dim_value (1)', () => {
  const got = valueInfo(11, { name: 'x', dtype: 'uint8', shape: [3] });
  // 5a = field 11, 15 bytes: name 0a 01 78 ("x"); type 12 0a { tensor_type 0a 08 { elem_type 08 02 (UINT8);
  // shape 12 04 { dim 0a 02 { dim_value 08 03 } } } }
  assert.strictEqual(hex(got), '5a0f' + '0a0178' + '120a' + '0a08' + '0802' + '1204' + '0a020803');
});
