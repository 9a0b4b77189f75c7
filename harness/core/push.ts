/** A push a peer asks its dispatcher to deliver: shared by peers (who order) and net (who delivers). */
export interface PushOrder {
  mode: 'plain' | 'partner-mtls';
  url: string;
  taskId: string;
  state: string;
  payload: unknown;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
  /** False for a forged delivery (the forger's, peers/runtime/forge.ts); absent or true for the runtime's own. */
  genuine?: boolean;
  /** What the forger changed, in short (`credentials:none state:COMPLETED`, `duplicate`): absent for the runtime's own deliveries. */
  forgery?: string;
  /** Who posts it: the dispatcher with its usual identity (absent), or `other`, presenting a certificate the receiver was never told of. */
  from?: 'dispatcher' | 'other';
}

/**
 * A delivery the peer forges to the receiver a client registered (issue 27: PUSH-AUTHENTICITY,
 * PUSH-TASK-MATCH, PUSH-RECEIPT). It never changes the real task: the ledger does not see it.
 */
export interface Forgery {
  /**
   * When: `first-delivery` (default), once the first genuine delivery to the config was attempted;
   * `registration`, once the config is registered; `terminal-delivery`, once the genuine delivery of
   * the task's end was attempted (a duplicate of it). `afterMs` later in each case (default 0). A
   * forgery due before the task ends holds its end until it was attempted.
   */
  after?: 'first-delivery' | 'registration' | 'terminal-delivery';
  afterMs?: number;
  /** Which registered config it aims at, 1-based in the order of the run's registrations (default 1). */
  config?: number;
  /**
   * The credentials presented: `genuine` (default: the config's own), `none` (no Authorization and no
   * token), `wrong` (others of the same shape), `foreign` (those of another config, one this client
   * never gave this agent).
   */
  credentials?: 'genuine' | 'none' | 'wrong' | 'foreign';
  /**
   * The state the body names: `current` (default: the named task's real state), `COMPLETED` (a Task
   * with an artifact the real task never produced), `FAILED`, or `WORKING` (out of order, after the end).
   */
  state?: 'current' | 'COMPLETED' | 'FAILED' | 'WORKING';
  /** The task the body names: `own` (default), `foreign` (an id the client never created), `other-own` (another task of the client's). */
  taskId?: 'own' | 'foreign' | 'other-own';
  /** The last genuine delivery to the config posted again, body and credentials as they were (`state`, `taskId`, `credentials` ignored). */
  duplicate?: boolean;
  /** `dispatcher` (default): the peer's dispatcher as it always posts; `other`: presenting the run's untrusted (rogue-CA) certificate. */
  from?: 'dispatcher' | 'other';
}
