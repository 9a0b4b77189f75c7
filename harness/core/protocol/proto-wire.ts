/**
 * The protobuf wire of A2A v1.0 (the gRPC binding, spec §10), built at run time from the data
 * model in proto-v1.ts: a file descriptor of package `lf.a2a.v1` is assembled from that table, and
 * @bufbuild/protobuf turns ProtoJSON into bytes and back. What travels over gRPC is so the same
 * object the JSON bindings carry (§5.5: ProtoJSON), with the same well-known types (Struct, Value,
 * Timestamp) and enums: a payload checked in one binding is the payload of every binding.
 */
import { create, fromBinary, fromJson, type JsonValue, toBinary, toJson } from '@bufbuild/protobuf';
import { createFileRegistry, type DescMessage, type FileRegistry } from '@bufbuild/protobuf';
import {
  type DescriptorProto,
  type FieldDescriptorProto,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
  anyPack,
  file_google_protobuf_any,
  file_google_protobuf_empty,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
} from '@bufbuild/protobuf/wkt';
import { type FieldSpec, fieldNumber, V1_ENUMS, V1_MESSAGES } from './proto-v1.js';

/** The proto package of A2A v1.0, and so the prefix of every gRPC method path (`/lf.a2a.v1.A2AService/SendMessage`). */
export const V1_PACKAGE = 'lf.a2a.v1';
export const V1_SERVICE = `${V1_PACKAGE}.A2AService`;

const WKT = {
  Struct: 'google/protobuf/struct.proto',
  Timestamp: 'google/protobuf/timestamp.proto',
  Empty: 'google/protobuf/empty.proto',
  Any: 'google/protobuf/any.proto',
};

/** camelCase (the table's JSON names) → snake_case (the proto's field names). */
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);

const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;
const T = FieldDescriptorProto_Type;

/** One field of the table as a field descriptor, with the map entry message a map field needs. */
function fieldDescriptor(message: string, name: string, f: FieldSpec): { field: Partial<FieldDescriptorProto>; entry?: Partial<DescriptorProto> } {
  const base = { name: snake(name), jsonName: name, number: fieldNumber(message, name), label: OPTIONAL };
  const ref = (of: string) => `.${V1_PACKAGE}.${of}`;
  switch (f.type.t) {
    case 'string':
      return { field: { ...base, type: T.STRING } };
    case 'bool':
      return { field: { ...base, type: T.BOOL } };
    case 'int':
      return { field: { ...base, type: T.INT32 } };
    case 'bytes':
      return { field: { ...base, type: T.BYTES } };
    case 'strings':
      return { field: { ...base, label: REPEATED, type: T.STRING } };
    case 'enum':
      return { field: { ...base, type: T.ENUM, typeName: ref(f.type.of) } };
    case 'message':
      return { field: { ...base, type: T.MESSAGE, typeName: ref(f.type.of) } };
    case 'messages':
      return { field: { ...base, label: REPEATED, type: T.MESSAGE, typeName: ref(f.type.of) } };
    case 'struct':
      return { field: { ...base, type: T.MESSAGE, typeName: '.google.protobuf.Struct' } };
    case 'value':
      return { field: { ...base, type: T.MESSAGE, typeName: '.google.protobuf.Value' } };
    case 'timestamp':
      return { field: { ...base, type: T.MESSAGE, typeName: '.google.protobuf.Timestamp' } };
    case 'stringMap':
    case 'messageMap': {
      // A map is a repeated entry message (key = 1, value = 2) nested in its message, as protoc writes it.
      const entryName = `${pascal(name)}Entry`;
      const value: Partial<FieldDescriptorProto> =
        f.type.t === 'stringMap'
          ? { name: 'value', jsonName: 'value', number: 2, label: OPTIONAL, type: T.STRING }
          : { name: 'value', jsonName: 'value', number: 2, label: OPTIONAL, type: T.MESSAGE, typeName: ref(f.type.of) };
      return {
        field: { ...base, label: REPEATED, type: T.MESSAGE, typeName: `${ref(message)}.${entryName}` },
        entry: {
          name: entryName,
          field: [{ name: 'key', jsonName: 'key', number: 1, label: OPTIONAL, type: T.STRING }, value] as FieldDescriptorProto[],
          options: { mapEntry: true } as DescriptorProto['options'],
        },
      };
    }
  }
}

/** The file descriptor of `lf.a2a.v1`: every message and enum of the table, and the service. */
function fileDescriptor(): FileDescriptorProto {
  const messageType: Partial<DescriptorProto>[] = [];
  for (const [name, spec] of Object.entries(V1_MESSAGES)) {
    const fields: Partial<FieldDescriptorProto>[] = [];
    const nested: Partial<DescriptorProto>[] = [];
    const oneofDecl: Array<{ name: string }> = [];
    const oneofIndex = spec.oneof ? oneofDecl.push({ name: 'payload' }) - 1 : undefined;
    for (const [field, f] of Object.entries(spec.fields)) {
      const d = fieldDescriptor(name, field, f);
      if (d.entry) nested.push(d.entry);
      if (oneofIndex !== undefined && spec.oneof!.includes(field)) d.field.oneofIndex = oneofIndex;
      // proto3 `optional`: explicit presence, declared as a synthetic oneof of its own (after the real ones).
      else if (f.optional) {
        d.field.proto3Optional = true;
        d.field.oneofIndex = oneofDecl.push({ name: `_${snake(field)}` }) - 1;
      }
      fields.push(d.field);
    }
    messageType.push({
      name,
      field: fields as FieldDescriptorProto[],
      nestedType: nested as DescriptorProto[],
      oneofDecl: oneofDecl as DescriptorProto['oneofDecl'],
    });
  }
  const enumType = Object.entries(V1_ENUMS).map(([name, values]) => ({ name, value: values.map((v, number) => ({ name: v, number })) }));
  return create(FileDescriptorProtoSchema, {
    name: 'lf/a2a/v1/a2a.proto',
    package: V1_PACKAGE,
    syntax: 'proto3',
    dependency: [WKT.Struct, WKT.Timestamp, WKT.Empty],
    messageType: messageType as DescriptorProto[],
    enumType: enumType as FileDescriptorProto['enumType'],
  });
}

/**
 * google.rpc.Status and google.rpc.ErrorInfo (googleapis' google/rpc/status.proto and
 * error_details.proto): how a gRPC error carries its A2A error type (§10.6), in the
 * `grpc-status-details-bin` trailer.
 */
function rpcStatusDescriptor(): FileDescriptorProto {
  const f = (name: string, number: number, type: FieldDescriptorProto_Type, extra: Partial<FieldDescriptorProto> = {}) =>
    ({ name, jsonName: name, number, label: OPTIONAL, type, ...extra }) as FieldDescriptorProto;
  return create(FileDescriptorProtoSchema, {
    name: 'google/rpc/status.proto',
    package: 'google.rpc',
    syntax: 'proto3',
    dependency: [WKT.Any],
    messageType: [
      {
        name: 'Status',
        field: [f('code', 1, T.INT32), f('message', 2, T.STRING), f('details', 3, T.MESSAGE, { label: REPEATED, typeName: '.google.protobuf.Any' })],
      },
      {
        name: 'ErrorInfo',
        field: [
          f('reason', 1, T.STRING),
          f('domain', 2, T.STRING),
          f('metadata', 3, T.MESSAGE, { label: REPEATED, typeName: '.google.rpc.ErrorInfo.MetadataEntry' }),
        ],
        nestedType: [{ name: 'MetadataEntry', field: [f('key', 1, T.STRING), f('value', 2, T.STRING)], options: { mapEntry: true } }],
      },
    ] as DescriptorProto[],
  });
}

/** The well-known types the two files import. */
const wkt = (file: string) =>
  ({
    [WKT.Struct]: file_google_protobuf_struct,
    [WKT.Timestamp]: file_google_protobuf_timestamp,
    [WKT.Empty]: file_google_protobuf_empty,
    [WKT.Any]: file_google_protobuf_any,
  })[file];

let registry: FileRegistry | undefined;

/** The registry of `lf.a2a.v1`, google.rpc's Status and ErrorInfo, and the well-known types they use, built once. */
function v1Registry(): FileRegistry {
  registry ??= createFileRegistry(createFileRegistry(fileDescriptor(), wkt), createFileRegistry(rpcStatusDescriptor(), wkt));
  return registry;
}

/** An A2A error as a gRPC status's details (§10.6): google.rpc.Status with one google.rpc.ErrorInfo of domain a2a-protocol.org. */
export function encodeGrpcStatus(code: number, message: string, reason: string, metadata: Record<string, string> = {}): Uint8Array {
  const reg = v1Registry();
  const info = reg.getMessage('google.rpc.ErrorInfo')!;
  const status = reg.getMessage('google.rpc.Status')!;
  const detail = anyPack(info, fromJson(info, { reason, domain: 'a2a-protocol.org', metadata }));
  return toBinary(status, create(status, { code, message, details: [detail] } as never));
}

/** A gRPC status's details back: its code, message and the ErrorInfo it carries, if any. */
export function decodeGrpcStatus(bytes: Uint8Array): {
  code: number;
  message: string;
  errorInfo?: { reason: string; domain: string; metadata: Record<string, string> };
} {
  const reg = v1Registry();
  const status = reg.getMessage('google.rpc.Status')!;
  const json = toJson(status, fromBinary(status, bytes), { registry: reg }) as { code?: number; message?: string; details?: Array<Record<string, unknown>> };
  const info = json.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  return {
    code: json.code ?? 0,
    message: json.message ?? '',
    ...(info
      ? { errorInfo: { reason: String(info.reason ?? ''), domain: String(info.domain ?? ''), metadata: (info.metadata ?? {}) as Record<string, string> } }
      : {}),
  };
}

/** A message's descriptor by its name in the table (`Task`), or google.protobuf.Empty for `Empty`. */
export function v1Message(name: string): DescMessage {
  const d = v1Registry().getMessage(name === 'Empty' ? 'google.protobuf.Empty' : `${V1_PACKAGE}.${name}`);
  if (!d) throw new Error(`[harness] no message ${name} in ${V1_PACKAGE}`);
  return d;
}

/** ProtoJSON → protobuf bytes. A value that is not the message's ProtoJSON throws, saying where. */
export function encodeV1(name: string, json: unknown): Uint8Array {
  const d = v1Message(name);
  return toBinary(d, fromJson(d, json as JsonValue));
}

/** Protobuf bytes → ProtoJSON, as the JSON bindings write it (camelCase, enums by name, defaults left out). */
export function decodeV1(name: string, bytes: Uint8Array): unknown {
  const d = v1Message(name);
  return toJson(d, fromBinary(d, bytes));
}
