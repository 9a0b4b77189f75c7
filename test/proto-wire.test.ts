/**
 * The protobuf wire of A2A v1.0 (harness/core/protocol/proto-wire.ts), built from the data model
 * table: every valid card of the built-in catalogue, and a task with every kind of part, go to bytes
 * and back unchanged; the service's messages all exist; what is not ProtoJSON is refused, saying so.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { asProtoJson } from '../harness/core/card-canonical.js';
import { validateCardV1 } from '../harness/core/card-validator.js';
import { V1_METHODS } from '../harness/core/protocol/proto-v1.js';
import { decodeV1, encodeV1, v1Message } from '../harness/core/protocol/proto-wire.js';
import { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue } from '../harness/runner/load/catalogue.js';

const roundTrip = (name: string, json: unknown) => decodeV1(name, encodeV1(name, json));

describe('the protobuf wire of A2A v1.0', () => {
  it('every valid v1.0 card of the catalogue goes to bytes and back as the proto maps it to JSON (an explicit false of an `optional` field kept; of a plain one dropped)', async () => {
    const catalogue = await loadCatalogue(await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT));
    // As the card travels: JSON (a field set to undefined in a scenario file is not there).
    const cards = catalogue
      .filter((e) => (e.scenario.peer.dialect ?? 'a2a-v1') === 'a2a-v1')
      .map((e) => JSON.parse(JSON.stringify(e.scenario.peer.card)) as Record<string, unknown>);
    const valid = cards.filter((c) => validateCardV1(c).length === 0);
    expect(valid.length).toBeGreaterThan(40);
    // The protobuf wire has no "explicitly false" for a field without presence (`AgentExtension.required`):
    // what comes back is the proto's own JSON mapping of the card, which a JSON binding's reader sees alike.
    let changed = 0;
    for (const card of valid) {
      const back = roundTrip('AgentCard', card);
      expect(back).toEqual(asProtoJson(card, 'AgentCard'));
      if (!isDeepStrictEqual(back, card)) changed++;
    }
    expect(changed).toBeLessThan(valid.length / 2);
  });

  it('a task with every kind of part, a status message and a timestamp; a stream event; a request with its tenant', () => {
    const task = {
      id: 'task-1',
      contextId: 'ctx-1',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'which city?' }] },
        timestamp: '2026-12-02T07:00:00.123Z',
      },
      artifacts: [
        {
          artifactId: 'a-1',
          parts: [
            { raw: 'AAECAw==', mediaType: 'application/octet-stream', filename: 'x.bin' },
            { url: 'https://127.0.0.1:1/f', mediaType: 'audio/wav' },
            { data: { rows: [1, 'two', null, true, { nested: [] }] } },
          ],
        },
      ],
      history: [{ messageId: 'm-0', role: 'ROLE_USER', parts: [{ text: 'weather' }], metadata: { skillId: 'forecast' }, extensions: ['https://x/ext'] }],
      metadata: { k: 'v' },
    };
    expect(roundTrip('Task', task)).toEqual(task);
    const event = { statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_WORKING' } } };
    expect(roundTrip('StreamResponse', event)).toEqual(event);
    const list = { tenant: 'acme', taskId: 'task-1', pageSize: 10 };
    expect(roundTrip('ListTaskPushNotificationConfigsRequest', list)).toEqual(list);
  });

  it("the service's request and response messages all exist in the wire's registry", () => {
    for (const m of V1_METHODS) {
      expect(v1Message(m.request).typeName, m.name).toMatch(/^lf\.a2a\.v1\./);
      expect(v1Message(m.response).typeName, m.name).toMatch(/^(lf\.a2a\.v1|google\.protobuf)\./);
    }
  });

  it('refuses what is not ProtoJSON of the message: an unknown field, an enum value it does not have, a string where a number goes', () => {
    expect(() => encodeV1('Task', { id: 't', bogus: 1 })).toThrow(/key "bogus" is unknown/);
    expect(() => encodeV1('TaskStatus', { state: 'DONE' })).toThrow(/DONE/);
    expect(() => encodeV1('ListTasksRequest', { pageSize: 'ten' })).toThrow(/pageSize|page_size/);
  });
});
