/** The task ledger rebuilt from a transcript's task events, so an edited transcript stays self-consistent. */
import type { TaskRecord, WireEvent } from '../../harness/core/transcript.js';

export function ledgerOf(events: WireEvent[]): TaskRecord[] {
  const tasks = new Map<string, TaskRecord>();
  for (const e of events) {
    if (e.kind !== 'task') continue;
    const t = tasks.get(e.taskId) ?? { id: e.taskId, contextId: 'ctx', state: e.state, mintedSeq: e.seq, history: [] };
    t.state = e.state;
    t.history.push({ seq: e.seq, state: e.state });
    tasks.set(e.taskId, t);
  }
  return [...tasks.values()];
}
