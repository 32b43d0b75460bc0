import assert from 'node:assert/strict';
import type { TokenKind } from '../../src/wire/token-kinds.js';
import type { RouteEntry } from '../../src/http/server.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { send } from './raw-http.js';

/** The one running agent routes can name, so bodies get past "no agent named …" to their validation. */
export const LIVE = 'fz';

export interface FuzzDaemon {
  t: TestDaemon;
  /** A token of every kind; the client one has can_post, so posting routes read their bodies. */
  tokens: Record<TokenKind, string>;
}

/**
 * The real daemon with the live agent running. Its harness swallows whatever is pasted into it (`exec cat` would
 * echo it back), so fuzzed text never reaches a shell.
 */
export async function startFuzzDaemon(opts: { config?: string; web?: string } = {}): Promise<FuzzDaemon> {
  const t = await startTestDaemon({
    config: `templates:\n  sink: { harness: shell, command: "exec cat >/dev/null" }\n${opts.config ?? ''}`,
    ...(opts.web ? { web: opts.web } : {}),
  });
  const tokens = {
    operator: t.daemon.operatorToken,
    agent: t.daemon.agentToken,
    device: t.daemon.tokens.issue('device', 'fuzz phone').token,
    client: t.daemon.tokens.issue('client', 'fuzz board', { canPost: true }).token,
    peer: t.daemon.tokens.issue('peer', 'fuzz hub').token,
  };
  const spawned = await send(t.socket, {
    method: 'POST',
    path: '/api/v1/agents/spawn',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ template: 'sink', name: LIVE }),
  });
  assert.equal(spawned.status, 201, spawned.text);
  return { t, tokens };
}

/** The Authorization header that gets a request past a route's TCP gate to its body: a token of a kind it takes. */
export function bearerFor(route: RouteEntry, tokens: Record<TokenKind, string>): Record<string, string> {
  const kind = route.access.tokens === 'public' ? undefined : route.access.tokens[0];
  return kind ? { authorization: `Bearer ${tokens[kind]}` } : {};
}
