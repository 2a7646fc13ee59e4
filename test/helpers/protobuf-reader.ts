// The OTLP decoder in tests reads the wire format with the bridge's own reader.
export {
  bytesOf,
  doubleOf,
  fixed64Of,
  packed64,
  readFields,
  stringOf,
  varintOf,
} from '../../src/dialects/protobuf-wire.js';
export type { Field } from '../../src/dialects/protobuf-wire.js';
