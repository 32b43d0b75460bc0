import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LeoPaths } from '../../src/core/home.js';
import { request, type Target } from '../helpers/http.js';
import { IssuedToken } from '../../src/wire/tokens.js';

/**
 * Every kind of caller the access matrix tries; `client` has no can_post, `poster` has it; `device` was paired without
 * the fleet scope, `fleet` with it (the owner's phone); `peer` is a hub that joined this daemon as a host.
 */
export const PRINCIPALS = [
  'none',
  'bad',
  'revoked',
  'operator',
  'device',
  'fleet',
  'agent',
  'client',
  'poster',
  'peer',
] as const;
export type PrincipalName = (typeof PRINCIPALS)[number];
export type Tokens = Record<Exclude<PrincipalName, 'none'>, string>;

/** A variable from a running agent's tmux session environment: what the agent's processes were started with. */
export function agentSessionVariable(paths: LeoPaths, agent: string, variable: string): string {
  const r = spawnSync(
    'tmux',
    ['-S', path.join(paths.stateDir, 'tmux.sock'), 'show-environment', '-t', `=leo-${agent}`, variable],
    { encoding: 'utf8' },
  );
  const m = new RegExp(`^${variable}=(.*)$`, 'm').exec(r.stdout);
  assert.ok(m, `${variable} is not in ${agent}'s session environment: ${r.stdout}${r.stderr}`);
  return m[1]!;
}

/**
 * A peer token the way a hub gets one (issue 31): the owner asks the host for an invite on its socket (`leo host
 * invite`), the hub redeems the code from the link on the host's TCP listener.
 */
export async function joinAsPeer(tcp: Target, paths: LeoPaths, hub: string): Promise<string> {
  const invite = await request({ socketPath: paths.socketFile }, 'POST', '/api/v1/host/invites', { body: { hub } });
  assert.equal(invite.status, 201, invite.text);
  const code = /#join=([\w-]+)$/.exec(invite.json.data.link as string)![1]!;
  const joined = await request(tcp, 'POST', '/api/v1/host/join', { body: { code, hub: 'the hub' } });
  assert.equal(joined.status, 201, joined.text);
  return joined.json.data.token as string;
}

/**
 * Tokens of every kind, each obtained the way its holder gets it: the operator's from its file (what `leo token`
 * prints), devices and API clients through the operator routes, the agent's from a running agent's environment, a
 * peer's through a host's join code.
 */
export async function issueTokens(tcp: Target, paths: LeoPaths, runningAgent: string): Promise<Tokens> {
  const operator = fs.readFileSync(paths.operatorTokenFile, 'utf8').trim();
  const issue = async (route: string, body: object) => {
    const r = await request(tcp, 'POST', route, { token: operator, body });
    assert.equal(r.status, 201, r.text);
    return IssuedToken.parse(r.json.data);
  };
  const device = await issue('/api/v1/devices', { name: 'phone' });
  const fleet = await issue('/api/v1/devices', { name: 'own phone', fleet: true });
  const client = await issue('/api/v1/clients', { name: 'dashboard' });
  const poster = await issue('/api/v1/clients', { name: 'poster', can_post: true });
  const lost = await issue('/api/v1/devices', { name: 'lost phone' });
  assert.equal((await request(tcp, 'DELETE', `/api/v1/devices/${lost.id}`, { token: operator })).status, 200);
  return {
    bad: `leo_op_${randomBytes(32).toString('base64url')}`,
    revoked: lost.token,
    operator,
    device: device.token,
    fleet: fleet.token,
    agent: agentSessionVariable(paths, runningAgent, 'LEO_AGENT_TOKEN'),
    client: client.token,
    poster: poster.token,
    peer: await joinAsPeer(tcp, paths, 'hub'),
  };
}
