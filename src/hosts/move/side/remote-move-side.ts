import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { z } from 'zod';
import { AgentPack } from '../../../wire/agent-pack.js';
import { parseAddress } from '../../../wire/agent-address.js';
import { HeldParts, Measured } from '../../../wire/move-side.js';
import {
  envelopeData,
  HostRefusedError,
  HostUnreachableError,
  type ForwardedAnswer,
  type HostClient,
} from '../../host-client.js';
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

  /** The answer's data as `schema` says, read whole; a refusal or another shape is HostRefusedError. */
  async function json<S extends z.ZodType>(path: string, answer: ForwardedAnswer, schema?: S): Promise<z.output<S>> {
    let text: string;
    try {
      text = answer.body ? await new Response(answer.body).text() : '';
    } catch (err) {
      throw new HostUnreachableError(hostName, `its answer to ${path} broke off (${(err as Error).message})`);
    }
    return envelopeData(`host ${hostName}`, path, answer.status, text, schema) as z.output<S>;
  }

  /** A JSON call's answer, its data as `schema` says. */
  const call = async <S extends z.ZodType>(method: string, path: string, body?: object, schema?: S, waits = false) =>
    json(path, await send(method, path, body === undefined ? undefined : JSON.stringify(body), waits), schema);

  return {
    park: async (op) => void (await call('POST', `${base(op.id)}/park`, { agent: name(op.agent) })),
    resume: async (op) => void (await call('POST', `${base(op.id)}/resume`, { agent: name(op.agent) })),
    measure: async (op) => (await call('POST', `${base(op.id)}/measure`, { agent: name(op.agent) }, Measured)).bytes,
    pack: (op) => call('POST', `${base(op.id)}/pack`, { agent: name(op.agent), kind: op.kind }, AgentPack, true),
    async part(op, part) {
      const path = partPath(op.id, part);
      const answer = await send('GET', path);
      if (answer.status === 200 && answer.body) return Readable.fromWeb(answer.body as ReadableStream<Uint8Array>);
      await json(path, answer);
      throw new HostRefusedError(answer.status, undefined, `host ${hostName} sent no bytes of ${path}`);
    },
    held: async (op) => (await call('GET', `${base(op.id)}/held`, undefined, HeldParts)).parts,
    async receive(op, part, body) {
      const path = partPath(op.id, part);
      await json(path, await send('PUT', path, body, true));
    },
    spawn: async (op, pack) =>
      void (await call('POST', `${base(op.id)}/spawn`, { as: op.as, pack, kind: op.kind }, undefined, true)),
    settle: async (op) => void (await call('POST', `${base(op.id)}/settle`, {})),
    discard: async (op) => void (await call('POST', `${base(op.id)}/discard`, {})),
    mark: async (op) =>
      void (await call('POST', `${base(op.id)}/mark`, { agent: name(op.agent), to: op.to, as: op.as })),
  };
}
