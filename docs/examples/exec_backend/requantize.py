#!/usr/bin/env python3
"""A qspec backend in Python, standard library only: requantize / gemmlowp.double_round.

qspec starts it once and talks to it over its stdin and stdout (docs/exec-protocol.md):

    qspec run --backend exec:'python3 docs/examples/exec_backend/requantize.py'

Every message is a frame: the bytes "QSPX", the JSON header's size (u32 little-endian), the
data's size (u64 little-endian), the JSON header, the data (tensor elements, little-endian).
Diagnostics go to stderr (qspec quotes its last lines when the backend crashes); stdout carries
frames only.
"""
import json
import struct
import sys

FRAME = struct.Struct("<4sIQ")
STDIN, STDOUT = sys.stdin.buffer, sys.stdout.buffer
OP, CONVENTION = "requantize", "gemmlowp.double_round"
INT_FORMATS = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "int64": "q"}
INT_RANGES = {"int8": (-128, 127), "uint8": (0, 255), "int16": (-32768, 32767), "int32": (-2**31, 2**31 - 1)}


def read_frame():
    """The next (header, data), or (None, None) once qspec closed the stream."""
    head = STDIN.read(FRAME.size)
    if len(head) < FRAME.size:
        return None, None
    magic, json_size, data_size = FRAME.unpack(head)
    if magic != b"QSPX":
        sys.exit("requantize.py: qspec sent something that is not a frame")
    return json.loads(STDIN.read(json_size)), STDIN.read(data_size)


def write_frame(header, data=b""):
    text = json.dumps(header).encode()
    STDOUT.write(FRAME.pack(b"QSPX", len(text), len(data)) + text + data)
    STDOUT.flush()


def srdhm(a, b):
    """gemmlowp's SaturatingRoundingDoublingHighMul: round_half_away(a * b / 2^31), saturated."""
    if a == b == -2**31:
        return 2**31 - 1
    ab = a * b
    n = ab + (1 << 30 if ab >= 0 else 1 - (1 << 30))
    return abs(n) >> 31 if n >= 0 else -(abs(n) >> 31)  # C's division truncates toward zero


def rdbpot(x, e):
    """gemmlowp's RoundingDivideByPOT: round_half_away(x / 2^e)."""
    mask = (1 << e) - 1
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if (x & mask) > threshold else 0)


def requantize(attrs, x, out_dtype):
    """y = saturate(rdbpot(srdhm(x << left, M), right) + zp) (spec/gemmlowp.md)."""
    m, shift, zp = int(attrs["multiplier"]), int(attrs["shift"]), int(attrs["output_zero_point"])
    lo, hi = INT_RANGES[out_dtype]
    left, right = max(shift, 0), max(-shift, 0)
    return [min(max(rdbpot(srdhm(v << left, m), right) + zp, lo), hi) for v in x]


def run(request, data):
    """The reply header and data for one test."""
    reply = {"type": "result", "id": request["id"], "status": "OK", "message": "", "outputs": []}
    if (request["op"], request["convention"]) != (OP, CONVENTION):
        return dict(reply, status="UNSUPPORTED", message="only requantize / gemmlowp.double_round"), b""
    if not request["outputs"]:  # an invalid test: this convention has no ERROR_IF to detect
        return dict(reply, status="ERROR", message="no invalid inputs expected for this convention"), b""
    x_desc, y_desc = request["inputs"][0], request["outputs"][0]
    x = struct.unpack_from("<%di" % (x_desc["size"] // 4), data, x_desc["offset"])
    y = requantize(request["attributes"], x, y_desc["dtype"])
    out = struct.pack("<%d%s" % (len(y), INT_FORMATS[y_desc["dtype"]]), *y)
    reply["outputs"] = [{"name": y_desc["name"], "offset": 0, "size": len(out)}]
    return reply, out


def main():
    hello, _ = read_frame()
    if hello is None or hello.get("type") != "hello":
        sys.exit("requantize.py: expected qspec's hello")
    write_frame({"type": "hello", "protocol": 1, "name": "example.python", "version": "1.0 (Python %d.%d)"
                 % sys.version_info[:2], "claims": [{"op": OP, "convention": CONVENTION}], "all_conventions": False})
    while True:
        request, data = read_frame()
        if request is None:
            return  # qspec closed the stream: the run is over
        write_frame(*run(request, data))


if __name__ == "__main__":
    main()
