import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { V1_MESSAGES, validateCardV1 } from '../harness/core/card-validator.js';
import { makeCard } from './fixtures/cards.js';
import { PROTO, protoMessages, protoMethods } from './helpers/proto.js';
import { fieldNumber, V1_METHODS, type FieldType } from '../harness/core/protocol/proto-v1.js';

/** Our field type as the proto writes it. */
function protoTypeOf(t: FieldType): string {
  switch (t.t) {
    case 'string':
      return 'string';
    case 'bool':
      return 'bool';
    case 'strings':
      return 'repeated string';
    case 'message':
    case 'enum':
      return t.of;
    case 'messages':
      return `repeated ${t.of}`;
    case 'messageMap':
      return `map<string, ${t.of}>`;
    case 'stringMap':
      return 'map<string, string>';
    case 'struct':
      return 'google.protobuf.Struct';
    case 'int':
      return 'int32';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'bytes':
      return 'bytes';
    case 'value':
      return 'google.protobuf.Value';
  }
}

describe('A2A v1.0 card validator (proto lf.a2a.v1)', () => {
  it.skipIf(!existsSync(PROTO))('matches the proto: same fields, same REQUIRED and `optional` fields, for every message it knows', () => {
    // Arrange
    const proto = protoMessages(readFileSync(PROTO, 'utf8'));
    // Act + Assert
    for (const [name, spec] of Object.entries(V1_MESSAGES)) {
      const p = proto.get(name);
      expect(p, `proto has message ${name}`).toBeDefined();
      const ours = Object.entries(spec.fields);
      expect(ours.map(([f]) => f).sort(), `${name} fields`).toEqual([...p!.fields].sort());
      expect(
        ours
          .filter(([, f]) => f.required)
          .map(([f]) => f)
          .sort(),
        `${name} REQUIRED`,
      ).toEqual([...p!.required].sort());
      expect(
        ours
          .filter(([, f]) => f.optional)
          .map(([f]) => f)
          .sort(),
        `${name} optional`,
      ).toEqual([...p!.optional].sort());
      // The numbers and the types the protobuf wire (gRPC) is written from.
      for (const f of p!.declared) {
        expect(fieldNumber(name, f.name), `${name}.${f.name} number`).toBe(f.number);
        expect(protoTypeOf(spec.fields[f.name]!.type), `${name}.${f.name} type`).toBe(f.label === 'repeated' ? `repeated ${f.type}` : f.type);
      }
    }
    // Every message the proto declares is in the table, and the service's methods are the proto's.
    expect(Object.keys(V1_MESSAGES).sort()).toEqual([...proto.keys()].sort());
    expect([...V1_METHODS]).toEqual(protoMethods(readFileSync(PROTO, 'utf8')));
  });

  it('knows where a field number is not its place (the one such message), and refuses a field it does not have', () => {
    expect(fieldNumber('ListTaskPushNotificationConfigsRequest', 'tenant')).toBe(4);
    expect(fieldNumber('ListTaskPushNotificationConfigsRequest', 'taskId')).toBe(1);
    expect(fieldNumber('Task', 'status')).toBe(3);
    expect(() => fieldNumber('Task', 'nope')).toThrow(/no field nope in Task/);
  });
  if (!existsSync(PROTO)) console.log(`skipped the proto cross-check: ${PROTO} is absent (it lives in ../shared/spec)`);

  it('accepts a complete card', () => {
    expect(validateCardV1(makeCard())).toEqual([]);
  });

  const required = ['name', 'description', 'supportedInterfaces', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'];
  it.each(required)('refuses a card without REQUIRED %s', (field) => {
    const card = makeCard();
    delete card[field];
    expect(validateCardV1(card).map((i) => i.pointer)).toContain(`/${field}`);
  });

  it.each([
    ['supportedInterfaces/0', 'protocolVersion'],
    ['skills/0', 'tags'],
    ['skills/0', 'id'],
  ])('refuses a nested REQUIRED field removed: %s/%s', (at, field) => {
    const card = makeCard();
    const [list, idx] = at.split('/') as [string, string];
    delete (card[list] as Array<Record<string, unknown>>)[Number(idx)]![field];
    expect(validateCardV1(card).map((i) => i.pointer)).toContain(`/${at}/${field}`);
  });

  it('refuses a string where the proto has a bool', () => {
    const card = makeCard({ capabilities: { streaming: 'false' } });
    expect(validateCardV1(card)).toEqual([{ pointer: '/capabilities/streaming', message: 'AgentCapabilities.streaming must be a boolean' }]);
  });

  it('refuses a string where the proto has a list', () => {
    const card = makeCard({ defaultInputModes: 'text/plain' });
    expect(validateCardV1(card).map((i) => i.pointer)).toEqual(['/defaultInputModes']);
  });

  it('refuses a v0.3-style `type` security scheme', () => {
    const card = makeCard({ securitySchemes: { m: { type: 'mutualTLS' } } });
    const issues = validateCardV1(card);
    expect(issues.map((i) => i.message)).toContain('unknown field "type" in SecurityScheme');
    expect(issues.some((i) => i.message.includes('exactly one of'))).toBe(true);
  });

  it('accepts the v1.0 wrapped mTLS scheme with its requirement', () => {
    const card = makeCard({ securitySchemes: { m: { mtlsSecurityScheme: {} } }, securityRequirements: [{ schemes: { m: { list: [] } } }] });
    expect(validateCardV1(card)).toEqual([]);
  });

  it('refuses an unknown top-level field, as ProtoJSON does', () => {
    const card = makeCard({ resubscribeOnlyOutputModes: ['audio/pcm'] });
    expect(validateCardV1(card)).toEqual([{ pointer: '/resubscribeOnlyOutputModes', message: 'unknown field "resubscribeOnlyOutputModes" in AgentCard' }]);
  });

  it('refuses v0.3 top-level fields (url, protocolVersion)', () => {
    const issues = validateCardV1(makeCard({ url: 'https://x', protocolVersion: '0.3.0' }));
    expect(issues.map((i) => i.pointer).sort()).toEqual(['/protocolVersion', '/url']);
  });
});
