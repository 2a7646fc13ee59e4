import type { HrTime } from '@opentelemetry/api';

/** Protobuf wire types. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH = 2;
export const WIRE_FIXED32 = 5;
/** Strings shorter than this are written character by character (a native call costs more). */
const SHORT_STRING = 64;

/**
 * Protobuf fields written into one growing buffer, in one pass: a length-delimited message gets
 * one length byte up front (`begin`), and is moved when its length needs more (`end`).
 */
export class ProtobufWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  varint(value: number): void {
    this.room(10);
    const buf = this.buf;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 127) {
        buf[this.pos++] = (v & 127) | 128;
        v >>>= 7;
      }
      buf[this.pos++] = v;
      return;
    }
    // 64-bit two's complement, as int64 values are (negative ones take 10 bytes).
    const abs = Math.abs(value);
    let low = abs >>> 0;
    let high = (abs / 4294967296) >>> 0;
    if (value < 0) {
      low = ~low >>> 0;
      high = ~high >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 127) {
      buf[this.pos++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low & 127;
  }

  fixed32(value: number): void {
    this.room(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  /** An HrTime as fixed64 nanoseconds, split into 32-bit halves exactly (no float rounding). */
  time(time: HrTime): void {
    const seconds = time[0];
    const nanos = time[1];
    const lowSeconds = seconds & 0xffff;
    const highSeconds = (seconds / 65536) >>> 0;
    const fromLow = lowSeconds * 1e9;
    const fromHigh = highSeconds * 1e9;
    const lowPart = fromLow >>> 0;
    const lowCarry = Math.floor(fromLow / 4294967296);
    const highPartLow = ((fromHigh & 0xffff) * 65536) >>> 0;
    const highPartHigh = (fromHigh / 65536) >>> 0;
    const sum = lowPart + highPartLow + nanos;
    this.room(8);
    this.buf.writeUInt32LE(sum >>> 0, this.pos);
    this.buf.writeUInt32LE(
      (lowCarry + highPartHigh + Math.floor(sum / 4294967296)) >>> 0,
      this.pos + 4,
    );
    this.pos += 8;
  }

  double(value: number): void {
    this.room(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  string(text: string): void {
    const length = text.length;
    if (length < SHORT_STRING) {
      // ASCII is written as it is checked, in one pass (its length is its byte length, one byte
      // of varint below 128); other text is written again from the start, encoded.
      this.room(length + 1);
      const buf = this.buf;
      const start = this.pos;
      buf[start] = length;
      let i = 0;
      for (; i < length; i += 1) {
        const code = text.charCodeAt(i);
        if (code > 127) break;
        buf[start + 1 + i] = code;
      }
      if (i === length) {
        this.pos = start + 1 + length;
        return;
      }
    }
    const bytes = Buffer.byteLength(text, 'utf8');
    this.varint(bytes);
    this.room(bytes);
    this.pos += this.buf.write(text, this.pos, bytes, 'utf8');
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.room(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** A hex id as bytes, decoded into the buffer (as the SDK's serializer decodes it). */
  hex(id: string): void {
    const length = id.length >>> 1;
    this.varint(length);
    this.room(length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < 2 * length; i += 2)
      buf[pos++] = (NIBBLES[id.charCodeAt(i) & 127]! << 4) | NIBBLES[id.charCodeAt(i + 1) & 127]!;
    this.pos = pos;
  }

  /**
   * Reserves two length bytes, for a message that mostly takes 128 to 16 383 bytes (a span):
   * `endWide` writes its length there, moving the message only when it takes another size.
   */
  beginWide(): number {
    this.room(2);
    const at = this.pos;
    this.pos += 2;
    return at;
  }

  endWide(at: number): void {
    const length = this.pos - at - 2;
    if (length >= 128 && length < 16384) {
      this.buf[at] = (length & 127) | 128;
      this.buf[at + 1] = length >>> 7;
      return;
    }
    // Another size: written as `begin` and `end` write it, from one length byte reserved.
    this.buf.copy(this.buf, at + 1, at + 2, this.pos);
    this.pos -= 1;
    this.end(at);
  }

  /** Reserves a length byte; `end` writes the length there (moving the message if it needs more). */
  begin(): number {
    this.room(1);
    return this.pos++;
  }

  end(at: number): void {
    const length = this.pos - at - 1;
    if (length < 128) {
      this.buf[at] = length;
      return;
    }
    let size = 2;
    while (length >= 2 ** (7 * size)) size += 1;
    this.room(size - 1);
    this.buf.copy(this.buf, at + size, at + 1, this.pos);
    this.pos += size - 1;
    let v = length;
    for (let i = 0; i < size - 1; i += 1) {
      this.buf[at + i] = (v & 127) | 128;
      v = Math.floor(v / 128);
    }
    this.buf[at + size - 1] = v;
  }
}

/** A hex digit's value by its character code, either case (ids are hex: another character means nothing). */
const NIBBLES = Uint8Array.from({ length: 128 }, (_, code) => {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return code - 55;
});
