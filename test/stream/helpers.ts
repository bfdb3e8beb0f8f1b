/** Shared fixtures for the stream tests: call rows inserted directly (no call engine needed), extra tenants. */
import WebSocket from 'ws';
import type { AppDeps } from '../../src/api/deps.js';
import { newId } from '../../src/ids.js';

export async function insertCall(deps: Pick<AppDeps, 'db'>, tenantId: string, opts: { status?: string; conversationId?: string } = {}): Promise<string> {
  const id = newId('call');
  await deps.db.query(
    `INSERT INTO calls (id, tenant_id, agent_id, agent, to_number, language, status, conversation_id)
     VALUES ($1, $2, 'default', '{}'::jsonb, '+14155550100', 'en-US', $3, $4)`,
    [id, tenantId, opts.status ?? 'in_progress', opts.conversationId ?? null]);
  return id;
}

/** A second tenant with an operator JWT (of a real user: tokens of users that do not exist are refused) and an API key. */
export async function otherTenant(deps: Pick<AppDeps, 'repos' | 'tokens'>) {
  const tenantId = await deps.repos.tenants.createTenant(`other-${Date.now()}`);
  const user = await deps.repos.tenants.createUser({ tenantId, email: `op-${newId('usr')}@other.test`, passwordHash: 'unused', role: 'operator' });
  const token = await deps.tokens.issue({ sub: user!.id, tenantId, role: 'operator' });
  const { key: apiKey } = await deps.repos.tenants.createApiKey(tenantId, 'stream-test', 'operator');
  return { tenantId, token, apiKey };
}

export const wsUrl = (baseUrl: string, path: string) => baseUrl.replace(/^http/, 'ws') + path;

/** Collects JSON messages of a socket; `next(n)` waits for n more than already taken. */
export function collect(ws: WebSocket) {
  const got: any[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (data) => { got.push(JSON.parse(String(data))); for (const w of waiters.splice(0)) w(); });
  return {
    got,
    async until(pred: (got: any[]) => boolean, what = 'messages', timeoutMs = 10_000): Promise<any[]> {
      const deadline = Date.now() + timeoutMs;
      while (!pred(got)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(got).slice(0, 500)}`);
        await new Promise<void>((r) => { waiters.push(r); setTimeout(r, 100); });
      }
      return got;
    },
  };
}

/** Resolves with the upgrade outcome: the open socket, or the HTTP status + body of a refused upgrade. */
export type Collector = ReturnType<typeof collect>;

/** The collector is attached before 'open': history can arrive in the same packet as the upgrade answer. */
export function connect(url: string, headers: Record<string, string> = {}, opts: WebSocket.ClientOptions = {}): Promise<{ ws?: WebSocket; c?: Collector; status?: number; body?: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...opts });
    const c = collect(ws);
    ws.once('open', () => resolve({ ws, c }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => { let body: any = text; try { body = JSON.parse(text); } catch { /* keep text */ } resolve({ status: res.statusCode, body }); });
    });
    ws.once('error', (err) => reject(err));
  });
}

export const closed = (ws: WebSocket) => new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: String(reason) })));
