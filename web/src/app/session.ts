/**
 * The signed-in operator: the JWT lives in this object only (memory), never in the URL or in storage, so a
 * reload asks for the password again. Every authenticated request goes through the client library's
 * requestJson; a 401 (expired or revoked token) ends the session.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { publicRequest, requestJson, VoiceApiError } from '../shared/http';
import type { RuntimeSettings } from '../shared/settings';

export type Role = 'admin' | 'operator';

export interface Session {
  token: string;
  role: Role;
  tenantId: string;
  userId: string;
  email: string;
  expiresAt: number;
  base: string;
}

interface LoginAnswer { access_token: string; expires_in: number; role: Role; tenant_id: string }

export async function login(base: string, email: string, password: string): Promise<Session> {
  const r = await publicRequest<LoginAnswer>(`${base}/auth/login`, { json: { email, password } });
  return {
    token: r.access_token, role: r.role, tenantId: r.tenant_id, userId: jwtSubject(r.access_token), email,
    expiresAt: Date.now() + r.expires_in * 1000, base,
  };
}

/** The user id (sub) of our own token, to recognise "accepted by me"; the service verifies the token, not us. */
function jwtSubject(token: string): string {
  try {
    const payload = token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    return String(JSON.parse(atob(payload)).sub ?? '');
  } catch { return ''; }
}

export class Api {
  constructor(readonly session: Session, private onExpired: () => void) {}

  request<T>(method: string, path: string, body?: unknown): Promise<T> {
    return requestJson<T>(this.session.base, { token: this.session.token }, method, path, body).catch((err: unknown) => {
      if (err instanceof VoiceApiError && err.status === 401) this.onExpired();
      throw err;
    });
  }

  get = <T>(path: string) => this.request<T>('GET', path);
  post = <T>(path: string, body?: unknown) => this.request<T>('POST', path, body);
  put = <T>(path: string, body?: unknown) => this.request<T>('PUT', path, body);
  del = <T>(path: string) => this.request<T>('DELETE', path);

  /** ws(s):// address of a call's live stream. */
  streamUrl(callId: string): string {
    return `${this.session.base.replace(/^http/, 'ws')}/calls/${encodeURIComponent(callId)}/stream`;
  }
}

export interface AppContext { api: Api; session: Session; settings: RuntimeSettings; isAdmin: boolean }

export const Ctx = createContext<AppContext | null>(null);

export function useApp(): AppContext {
  const c = useContext(Ctx);
  if (!c) throw new Error('useApp outside the signed-in app');
  return c;
}
