// The exec protocol's framing (docs/exec-protocol.md): reads request frames from stdin one at a
// time and writes reply frames to stdout.
//
// A frame is the bytes "QSPX", the JSON header's size (u32 little-endian), the data's size (u64
// little-endian), the JSON header and the data. qspec sends one request and waits for its reply,
// but ONNX Runtime answers asynchronously, so frames are queued and handled strictly in order.
'use strict';

function writeFrame(header, data = Buffer.alloc(0)) {
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(16);
  head.write('QSPX', 0, 'latin1');
  head.writeUInt32LE(json.length, 4);
  head.writeBigUInt64LE(BigInt(data.length), 8);
  process.stdout.write(Buffer.concat([head, json, data]));
}

// Calls `handle(header, data)` (async, returning [replyHeader, replyData]) for each frame, one
// after the other; exits when qspec closes the stream.
function serve(handle) {
  let pending = Buffer.alloc(0);
  const queue = [];
  let busy = false, ended = false;
  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length > 0) {
      const [header, data] = queue.shift();
      writeFrame(...(await handle(header, data)));
    }
    busy = false;
    if (ended) process.exit(0);
  }
  process.stdin.on('data', (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 16) {
      if (pending.toString('latin1', 0, 4) !== 'QSPX') {
        console.error('onnxruntime client: qspec sent something that is not a frame');
        process.exit(1);
      }
      const jsonSize = pending.readUInt32LE(4), dataSize = Number(pending.readBigUInt64LE(8));
      if (pending.length < 16 + jsonSize + dataSize) break;
      const header = JSON.parse(pending.toString('utf8', 16, 16 + jsonSize));
      // Copied: the next chunk may reuse the buffer the frame arrived in.
      const data = Buffer.from(pending.subarray(16 + jsonSize, 16 + jsonSize + dataSize));
      pending = pending.subarray(16 + jsonSize + dataSize);
      queue.push([header, data]);
    }
    drain();
  });
  process.stdin.on('end', () => {
    ended = true;
    if (!busy && queue.length === 0) process.exit(0);
  });
}

module.exports = { serve, writeFrame };
