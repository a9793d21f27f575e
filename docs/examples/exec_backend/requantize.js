#!/usr/bin/env node
// A qspec backend in Node.js, standard library only: requantize / gemmlowp.double_round.
//
// qspec starts it once and talks to it over its stdin and stdout (docs/exec-protocol.md):
//
//     qspec run --backend exec:'node docs/examples/exec_backend/requantize.js'
//
// Every message is a frame: the bytes "QSPX", the JSON header's size (u32 little-endian), the
// data's size (u64 little-endian), the JSON header, the data (tensor elements, little-endian).
// Diagnostics go to stderr (qspec quotes its last lines when the backend crashes); stdout carries
// frames only. Integer arithmetic is done in BigInt: the products need 62 bits.
'use strict';

const OP = 'requantize', CONVENTION = 'gemmlowp.double_round';
const RANGES = { int8: [-128n, 127n], uint8: [0n, 255n], int16: [-32768n, 32767n], int32: [-(2n ** 31n), 2n ** 31n - 1n] };
const WRITERS = { int8: 'writeInt8', uint8: 'writeUInt8', int16: 'writeInt16LE', int32: 'writeInt32LE' };
const WIDTHS = { int8: 1, uint8: 1, int16: 2, int32: 4 };

function writeFrame(header, data = Buffer.alloc(0)) {
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(16);
  head.write('QSPX', 0, 'latin1');
  head.writeUInt32LE(json.length, 4);
  head.writeBigUInt64LE(BigInt(data.length), 8);
  process.stdout.write(Buffer.concat([head, json, data]));
}

// gemmlowp's SaturatingRoundingDoublingHighMul: round_half_away(a * b / 2^31), saturated.
function srdhm(a, b) {
  if (a === -(2n ** 31n) && b === -(2n ** 31n)) return 2n ** 31n - 1n;
  const ab = a * b;
  return (ab + (ab >= 0n ? 1n << 30n : 1n - (1n << 30n))) / (1n << 31n);  // BigInt division truncates
}

// gemmlowp's RoundingDivideByPOT: round_half_away(x / 2^e).
function rdbpot(x, e) {
  const mask = (1n << e) - 1n;
  const threshold = (mask >> 1n) + (x < 0n ? 1n : 0n);
  return (x >> e) + ((x & mask) > threshold ? 1n : 0n);
}

// The reply header and data for one test.
function run(request, data) {
  const reply = { type: 'result', id: request.id, status: 'OK', message: '', outputs: [] };
  if (request.op !== OP || request.convention !== CONVENTION)
    return [{ ...reply, status: 'UNSUPPORTED', message: 'only requantize / gemmlowp.double_round' }];
  if (request.outputs.length === 0)  // an invalid test: this convention has no ERROR_IF to detect
    return [{ ...reply, status: 'ERROR', message: 'no invalid inputs expected for this convention' }];
  const x = request.inputs[0], y = request.outputs[0], a = request.attributes;
  const m = BigInt(a.multiplier), shift = BigInt(a.shift), zp = BigInt(a.output_zero_point);
  const [lo, hi] = RANGES[y.dtype];
  const left = shift > 0n ? shift : 0n, right = shift > 0n ? 0n : -shift;
  const n = x.size / 4, out = Buffer.alloc(n * WIDTHS[y.dtype]);
  for (let i = 0; i < n; ++i) {
    let v = rdbpot(srdhm(BigInt(data.readInt32LE(x.offset + 4 * i)) << left, m), right) + zp;
    v = v < lo ? lo : v > hi ? hi : v;
    out[WRITERS[y.dtype]](Number(v), i * WIDTHS[y.dtype]);
  }
  reply.outputs = [{ name: y.name, offset: 0, size: out.length }];
  return [reply, out];
}

function answer(header, data) {
  if (header.type === 'hello')
    return writeFrame({ type: 'hello', protocol: 1, name: 'example.node', version: `1.0 (Node.js ${process.version})`,
                        claims: [{ op: OP, convention: CONVENTION }], all_conventions: false });
  writeFrame(...run(header, data));
}

// Frames arrive in chunks of any size: collect them and answer every complete frame.
let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 16) {
    if (pending.toString('latin1', 0, 4) !== 'QSPX') {
      console.error('requantize.js: qspec sent something that is not a frame');
      process.exit(1);
    }
    const jsonSize = pending.readUInt32LE(4), dataSize = Number(pending.readBigUInt64LE(8));
    if (pending.length < 16 + jsonSize + dataSize) break;
    const header = JSON.parse(pending.toString('utf8', 16, 16 + jsonSize));
    const data = pending.subarray(16 + jsonSize, 16 + jsonSize + dataSize);
    pending = pending.subarray(16 + jsonSize + dataSize);
    answer(header, data);
  }
});
process.stdin.on('end', () => process.exit(0));  // qspec closed the stream: the run is over
