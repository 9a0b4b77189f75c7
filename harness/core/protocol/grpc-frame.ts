/**
 * gRPC over HTTP/2 as bytes and names (the gRPC project's "gRPC over HTTP2" protocol document): a
 * message is a 5-byte prefix (a compressed flag, then the length as a big-endian uint32) and the
 * protobuf bytes; a call ends with trailers `grpc-status` (a code below), `grpc-message` (its text,
 * percent-encoded) and `grpc-status-details-bin` (a google.rpc.Status, base64). The peers' gRPC wire
 * writes them, the peer host's HTTP/2 listener reads them back for the transcript. Pure.
 */

/** The gRPC status codes (grpc/status.proto's Code), by name. */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** The content type of a gRPC request and answer (`application/grpc`, `application/grpc+proto`). */
export const isGrpcContentType = (value: string | null | undefined): boolean => /^application\/grpc(?:[+;]|$)/i.test((value ?? '').trim());

/** The trailers of a call, as the peers' gRPC Responses carry them among their headers until the listener sends them as trailers. */
export const GRPC_TRAILERS = ['grpc-status', 'grpc-message', 'grpc-status-details-bin'] as const;

/** One message as its length-prefixed frame (uncompressed). */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + message.length);
  new DataView(out.buffer).setUint32(1, message.length);
  out.set(message, 5);
  return out;
}

/**
 * Reads frames off a byte stream as it comes: `push` returns the messages complete so far.
 * A compressed frame (flag 1: no compression was negotiated) or a flag that is neither 0 nor 1 is
 * an error (`error` is then set and nothing more is read).
 */
export class FrameReader {
  private buf = new Uint8Array(0);
  error: string | undefined;
  /** The error is a compressed frame (flag 1): the caller answers it by gRPC's compression rules. */
  compressed = false;

  push(chunk: Uint8Array): Uint8Array[] {
    if (this.error) return [];
    const all = new Uint8Array(this.buf.length + chunk.length);
    all.set(this.buf);
    all.set(chunk, this.buf.length);
    const out: Uint8Array[] = [];
    let at = 0;
    while (all.length - at >= 5) {
      const flag = all[at]!;
      const length = new DataView(all.buffer, all.byteOffset + at + 1, 4).getUint32(0);
      if (flag !== 0) {
        this.compressed = flag === 1;
        this.error = flag === 1 ? 'a compressed message' : `a frame flag of ${flag}`;
        break;
      }
      if (all.length - at - 5 < length) break;
      out.push(all.slice(at + 5, at + 5 + length));
      at += 5 + length;
    }
    this.buf = all.slice(at);
    return out;
  }

  /** Bytes of an incomplete frame left over. */
  get pending(): number {
    return this.buf.length;
  }
}

/** The messages of a whole body, or why it is not a sequence of whole frames. */
export function readFrames(body: Uint8Array): { messages: Uint8Array[] } | { error: string; compressed?: true } {
  const reader = new FrameReader();
  const messages = reader.push(body);
  if (reader.error) return { error: reader.error, ...(reader.compressed ? { compressed: true as const } : {}) };
  if (reader.pending) return { error: `${reader.pending} bytes of an incomplete frame at the end` };
  return { messages };
}

/**
 * gRPC's mapping of an HTTP status that is not gRPC's own answer (a proxy's, a gate's) to the code a
 * client reports: 400 INTERNAL, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 UNIMPLEMENTED,
 * 429, 502, 503 and 504 UNAVAILABLE, anything else UNKNOWN.
 */
export function grpcStatusOfHttp(status: number): number {
  const map: Record<number, number> = {
    400: GRPC_STATUS.INTERNAL,
    401: GRPC_STATUS.UNAUTHENTICATED,
    403: GRPC_STATUS.PERMISSION_DENIED,
    404: GRPC_STATUS.UNIMPLEMENTED,
    429: GRPC_STATUS.UNAVAILABLE,
    502: GRPC_STATUS.UNAVAILABLE,
    503: GRPC_STATUS.UNAVAILABLE,
    504: GRPC_STATUS.UNAVAILABLE,
  };
  return map[status] ?? GRPC_STATUS.UNKNOWN;
}

/** `grpc-message`'s encoding: UTF-8, every byte outside printable ASCII (and `%`) as `%XX`. */
export function encodeGrpcMessage(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text))
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** A `grpc-message` value back to its text (an invalid escape is kept as it is). */
export function decodeGrpcMessage(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const hex = value[i] === '%' ? value.slice(i + 1, i + 3) : '';
    if (/^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...new TextEncoder().encode(value[i]!));
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Base64 of binary metadata (`-bin` headers: sent unpadded, read padded or not). */
export function binHeader(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/=+$/, '');
}
