/** A push a peer asks its dispatcher to deliver: shared by peers (who order) and net (who delivers). */
export interface PushOrder {
  mode: 'plain' | 'partner-mtls';
  url: string;
  taskId: string;
  state: string;
  payload: unknown;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}
