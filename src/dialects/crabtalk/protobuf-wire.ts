// The protobuf wire format, read without a schema: varints, fixed widths and length-delimited
// fields. Enough for the crabtalk daemon feed (and any message whose field numbers we know).

export type Field =
  | { readonly no: number; readonly wire: 0; readonly value: bigint }
  | { readonly no: number; readonly wire: 1; readonly value: Buffer }
  | { readonly no: number; readonly wire: 2; readonly value: Buffer }
  | { readonly no: number; readonly wire: 5; readonly value: Buffer };

/** Splits a message into its fields. Throws on truncated or unsupported input. */
export function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      if (shift > 63n) throw new Error('varint longer than 64 bits');
      const byte = buf[pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  const take = (length: number): Buffer => {
    if (length < 0 || pos + length > buf.length)
      throw new Error('field runs past the end of the message');
    const value = buf.subarray(pos, pos + length);
    pos += length;
    return value;
  };
  while (pos < buf.length) {
    const key = varint();
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (no === 0) throw new Error('field number 0');
    if (wire === 0) fields.push({ no, wire, value: varint() });
    else if (wire === 1) fields.push({ no, wire, value: take(8) });
    else if (wire === 2) fields.push({ no, wire, value: take(Number(varint())) });
    else if (wire === 5) fields.push({ no, wire, value: take(4) });
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return fields;
}

export const bytesOf = (f: Field): Buffer => (f.wire === 2 ? f.value : Buffer.alloc(0));
export const stringOf = (f: Field): string => bytesOf(f).toString('utf8');
export const varintOf = (f: Field): bigint => (f.wire === 0 ? f.value : 0n);
export const fixed64Of = (f: Field): bigint => (f.wire === 1 ? f.value.readBigUInt64LE(0) : 0n);
export const doubleOf = (f: Field): number => (f.wire === 1 ? f.value.readDoubleLE(0) : 0);

/** Packed repeated fixed64 / double, or the unpacked single value. */
export function packed64(
  f: Field,
  read: (b: Buffer, offset: number) => number | bigint,
): (number | bigint)[] {
  if (f.wire === 1) return [read(f.value, 0)];
  const b = bytesOf(f);
  const out: (number | bigint)[] = [];
  for (let i = 0; i + 8 <= b.length; i += 8) out.push(read(b, i));
  return out;
}
