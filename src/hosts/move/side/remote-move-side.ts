import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { z } from 'zod';
import { AgentPack } from '../../../wire/agent-pack.js';
import { parseAddress } from '../../../wire/agent-address.js';
import { HeldParts } from '../../../wire/move-side.js';
import { HostRefusedError, HostUnreachableError, type ForwardedAnswer, type HostClient } from '../../host-client.js';
import type { MoveSide } from '../operation/move-sides.js';

/**
 * A followed host as a move's source or target: the side routes (move-side-routes.ts) called with the hub's peer
 * token through HostClient.forward, parts streamed both ways. Not reaching the host rejects with
 * HostUnreachableError; an answer refusing the call, with HostRefusedError naming the host's status and code.
 */
export function remoteMoveSide(client: HostClient, token: string, hostName: string): MoveSide {
  const base = (id: string) => `/api/v1/moves/${encodeURIComponent(id)}`;
  const partPath = (id: string, part: string) =>
    `${base(id)}/parts/${part.split('/').map(encodeURIComponent).join('/')}`;
  const name = (agent: string) => parseAddress(agent)?.name ?? agent;

  /** `waits`: packing, unpacking or taking in a GiB answers when it is done, not within forward's head deadline. */
  const send = (method: string, path: string, body?: string | Readable, waits = false) =>
    client.forward(token, {
      method,
      path,
      headers:
        body === undefined
          ? {}
          : { 'content-type': typeof body === 'string' ? 'application/json' : 'application/octet-stream' },
      ...(body === undefined ? {} : { body }),
      signal: new AbortController().signal,
      ...(waits ? { waits: true } : {}),
    });

  async function json<S extends z.ZodType>(what: string, answer: ForwardedAnswer, schema?: S): Promise<z.output<S>> {
    let text: string;
    try {
      text = answer.body ? await new Response(answer.body).text() : '';
    } catch (err) {
      throw new HostUnreachableError(hostName, `its answer to ${what} broke off (${(err as Error).message})`);
    }
    let envelope: { ok?: boolean; data?: unknown; error?: string; code?: string };
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      throw new HostRefusedError(
        answer.status,
        undefined,
        `${hostName} answered ${what} with HTTP ${answer.status}, not Leo's JSON`,
      );
    }
    if (answer.status >= 300 || envelope.ok !== true)
      throw new HostRefusedError(
        answer.status,
        envelope.code,
        `${hostName} refused ${what}: ${envelope.error ?? `HTTP ${answer.status}`}`,
      );
    if (!schema) return undefined as z.output<S>;
    const parsed = schema.safeParse(envelope.data);
    if (!parsed.success)
      throw new HostRefusedError(
        answer.status,
        undefined,
        `${hostName} answered ${what} in a shape this hub cannot read`,
      );
    return parsed.data;
  }

  const post = async (id: string, step: string, body: object, waits = false) => {
    await json(step, await send('POST', `${base(id)}/${step}`, JSON.stringify(body), waits));
  };

  return {
    park: (op) => post(op.id, 'park', { agent: name(op.agent) }),
    resume: (op) => post(op.id, 'resume', { agent: name(op.agent) }),
    async pack(op) {
      const answer = await send(
        'POST',
        `${base(op.id)}/pack`,
        JSON.stringify({ agent: name(op.agent), kind: op.kind }),
        true,
      );
      return json('pack', answer, AgentPack);
    },
    async part(op, part) {
      const answer = await send('GET', partPath(op.id, part));
      if (answer.status === 200 && answer.body) return Readable.fromWeb(answer.body as ReadableStream<Uint8Array>);
      await json(`part ${part}`, answer);
      throw new HostRefusedError(answer.status, undefined, `${hostName} sent no bytes of part ${part}`);
    },
    async held(op) {
      return (await json('held', await send('GET', `${base(op.id)}/held`), HeldParts)).parts;
    },
    async receive(op, part, body) {
      await json(`part ${part}`, await send('PUT', partPath(op.id, part), body, true));
    },
    spawn: (op, pack) => post(op.id, 'spawn', { as: op.as, pack }, true),
    discard: (op) => post(op.id, 'discard', {}),
    mark: (op) => post(op.id, 'mark', { agent: name(op.agent), to: op.to, as: op.as }),
  };
}
