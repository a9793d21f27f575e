// A minimal protobuf encoder for the few ONNX messages a single-operator model needs.
//
// ONNX models are protobuf ModelProto messages (onnx/onnx.proto3). Writing them needs only the
// wire format's varints, length-delimited fields and fixed32 floats, so the client carries no
// protobuf package: each function below encodes one message with the field numbers of
// onnx.proto3 (IR version 10), and nothing else.
'use strict';

// ONNX TensorProto.DataType for the dtype names of qspec's exec protocol.
const ONNX_DTYPES = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, float64: 11 };

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));  // negative int64s are ten-byte two's complement
  const bytes = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    bytes.push(b);
  } while (v !== 0n);
  return Buffer.from(bytes);
}

const key = (field, wireType) => varint((field << 3) | wireType);
const int = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
const bytes = (field, data) => Buffer.concat([key(field, 2), varint(data.length), data]);
const string = (field, text) => bytes(field, Buffer.from(text, 'utf8'));
const message = (field, parts) => bytes(field, Buffer.concat(parts));

function float32(field, bits) {  // bits: the IEEE 754 pattern as an unsigned 32-bit number
  const b = Buffer.alloc(4);
  b.writeUInt32LE(bits >>> 0);
  return Buffer.concat([key(field, 5), b]);
}

function dtypeCode(dtype) {
  const code = ONNX_DTYPES[dtype];
  if (code === undefined) throw new Error(`no ONNX tensor type for dtype ${dtype}`);
  return code;
}

// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (little-endian elements).
function tensor(field, { name, dtype, shape, raw }) {
  return message(field, [...shape.map((d) => int(1, d)), int(2, dtypeCode(dtype)), string(8, name), bytes(9, raw)]);
}

// ValueInfoProto { name = 1, type = 2 { tensor_type = 1 { elem_type = 1, shape = 2 { dim = 1 { dim_value = 1 } } } } }.
// A shape of null leaves the shape unstated (ONNX Runtime infers it).
function valueInfo(field, { name, dtype, shape }) {
  const tensorType = [int(1, dtypeCode(dtype))];
  if (shape) tensorType.push(message(2, shape.map((d) => message(1, [int(1, d)]))));
  return message(field, [string(1, name), message(2, [message(1, tensorType)])]);
}

// AttributeProto: name = 1, f = 2, i = 3, ints = 8, type = 20 (FLOAT 1, INT 2, INTS 7).
function attribute(field, name, value) {
  if (Array.isArray(value)) return message(field, [string(1, name), ...value.map((v) => int(8, v)), int(20, 7)]);
  if (typeof value === 'object' && value.floatBits !== undefined)
    return message(field, [string(1, name), float32(2, value.floatBits), int(20, 1)]);
  return message(field, [string(1, name), int(3, value), int(20, 2)]);
}

// NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5, domain = 7.
function node(field, { opType, domain = '', inputs, outputs, attributes = {} }) {
  return message(field, [
    ...inputs.map((n) => string(1, n)),
    ...outputs.map((n) => string(2, n)),
    string(3, opType.toLowerCase()),
    string(4, opType),
    ...Object.entries(attributes).map(([n, v]) => attribute(5, n, v)),
    ...(domain ? [string(7, domain)] : []),
  ]);
}

// ModelProto: ir_version = 1, producer_name = 2, graph = 7 (GraphProto: node = 1, name = 2,
// initializer = 5, input = 11, output = 12), opset_import = 8 (domain = 1, version = 2).
// One node; `initializers` are the constant tensors (weights, scales, zero points), `inputs` the
// tensors fed at each run, `outputs` named with their dtypes.
function encodeModel({ node: n, initializers = [], inputs, outputs, opsets }) {
  const graph = [
    node(1, n),
    string(2, 'qspec'),
    ...initializers.map((t) => tensor(5, t)),
    ...inputs.map((v) => valueInfo(11, v)),
    ...outputs.map((v) => valueInfo(12, { ...v, shape: null })),
  ];
  return Buffer.concat([
    int(1, 10),
    string(2, 'qspec'),
    message(7, graph),
    ...Object.entries(opsets).map(([domain, version]) => message(8, [string(1, domain), int(2, version)])),
  ]);
}

module.exports = { encodeModel, tensor, valueInfo, varint, ONNX_DTYPES };
