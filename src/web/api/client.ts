import { z } from 'zod';
import type { AnswerBody } from '../../wire/ask-answer.js';
import type { SendBody } from '../../wire/send-body.js';
import { AttachmentRef, Message, MessagePage, ReadMarker, Thread } from '../../wire/message.js';
import { Agent, StateSnapshot } from '../../wire/fleet.js';
import { KeysPressed, TerminalScreen, type TerminalKeysBody } from '../../wire/terminal.js';
import {
  RemovedAgent,
  type AppearanceBody,
  type EnvironmentsBody,
  type RenameBody,
  type SpawnBody,
  type TemplateBody,
} from '../../wire/agent-bodies.js';
import { TemplateSummary } from '../../wire/templates.js';
import { Changes, FileDiff } from '../../wire/changes.js';
import { RunLogTail, TaskDetail, TaskRunStarted } from '../../wire/tasks.js';
import { AgentUsageDays } from '../../wire/usage.js';
import {
  DeliveryEntry,
  PresenceState,
  RemovedSubscription,
  SubscriptionSummary,
  TestPushResult,
  VapidPublicKey,
} from '../../wire/push.js';
import type { PushPrefs } from '../../wire/push.js';
import { Caller } from '../../wire/caller.js';
import { HostEntry, HostInfo, RemovedHost, type AddHostBody } from '../../wire/host.js';
import { MoveOperation, type CopyBody, type MoveBody } from '../../wire/move.js';
import { TokenRecord, type DeviceScopeBody } from '../../wire/tokens.js';
import { SseParser, type SseEvent } from '../../wire/sse-parser.js';
import { parseEvent, type FleetEvent } from './events.js';

/**
 * The one typed client of the daemon's API. Wire shapes are the daemon's own zod schemas, imported, never copied, so
 * a field the daemon renames breaks this build instead of the screen. Every request carries the device token as a
 * bearer header; a 401 means the device was unpaired (revoked) and is reported as UnpairedError.
 */

export class UnpairedError extends Error {
  constructor() {
    super('this device is no longer paired');
    this.name = 'UnpairedError';
  }
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** Retry-After, in ms, on a 429 or 503 that gave one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfter(res: { getResponseHeader(name: string): string | null } | Response): number | undefined {
  const v = 'headers' in res ? res.headers.get('retry-after') : res.getResponseHeader('retry-after');
  if (!v) return undefined;
  const ms = /^\d+$/.test(v.trim()) ? Number(v) * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, ms) : undefined;
}

/** The daemon's envelope of a response, or an ApiError naming the status when it is not one (a proxy's page). */
function unwrap(status: number, body: unknown, retryMs?: number): unknown {
  const envelope = Envelope.safeParse(body);
  if (!envelope.success) throw new ApiError(status, `unexpected answer (HTTP ${status})`, undefined, retryMs);
  if (!envelope.data.ok) throw new ApiError(status, envelope.data.error, envelope.data.code, retryMs);
  return envelope.data.data;
}

const Envelope = z.union([
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: z.string(), code: z.string().optional() }),
]);

/** A path of the API from its segments, each encoded: an agent's or a task's name never changes the path's shape. */
function apiPath(...segments: string[]): string {
  return ['/api/v1', ...segments.map(encodeURIComponent)].join('/');
}

/** `/api/v1/agents/<agent>/…`: what one agent is and does. */
const agentPath = (agent: string, ...parts: string[]) => apiPath('agents', agent, ...parts);

/** `/api/v1/chat/<agent>/…`: one agent's thread. */
const chatPath = (agent: string, ...parts: string[]) => apiPath('chat', agent, ...parts);

/** A hub's per-host list (templates, environments): `?host=` names the followed host; none, this machine. */
const onHost = (path: string, host: string | null) =>
  host === null ? path : `${path}?${new URLSearchParams({ host })}`;

interface RequestOptions {
  body?: unknown;
  accept?: string;
  signal?: AbortSignal;
  /** Sent without the device's token, so a 401 says nothing about this device's pairing. */
  anonymous?: boolean;
  cache?: RequestCache;
}

export const Paired = z.object({ device: z.object({ id: z.string(), name: z.string() }), token: z.string() });

export { MessagePage };

export class Api {
  constructor(private readonly token: () => string | null) {}

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const t = this.token();
    return { ...extra, ...(t ? { authorization: `Bearer ${t}` } : {}) };
  }

  /** A 401 on a request that carried the device's token means the device was unpaired. */
  private checkPaired(status: number, anonymous = false): void {
    if (status === 401 && !anonymous && this.token()) throw new UnpairedError();
  }

  /** The one way a request goes out: the bearer header, JSON in, no HTTP cache unless asked, and the 401 check. */
  private async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.accept ? { accept: opts.accept } : {}),
    };
    const res = await fetch(path, {
      method,
      headers: opts.anonymous ? headers : this.headers(headers),
      ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
      cache: opts.cache ?? 'no-store',
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    this.checkPaired(res.status, opts.anonymous);
    return res;
  }

  /** The data of a response's envelope (unwrap). */
  private async data(res: Response): Promise<unknown> {
    const answer: unknown = await res.json().catch(() => undefined);
    return unwrap(res.status, answer, retryAfter(res));
  }

  private async call<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
    anonymous = false,
  ): Promise<z.infer<S>> {
    return schema.parse(await this.data(await this.request(method, path, { body, anonymous })));
  }

  /** Sends one message under the client's id; `repeat` when the daemon already had it (200) rather than stored it. */
  async send(agent: string, body: SendBody): Promise<{ message: Message; repeat: boolean }> {
    const res = await this.request('POST', chatPath(agent, 'messages'), { body });
    return { message: Message.parse(await this.data(res)), repeat: res.status === 200 };
  }

  /**
   * Uploads one file for `agent`'s thread, reporting progress (0–1). XMLHttpRequest, since fetch reports no upload
   * progress. A network failure rejects with a TypeError, as fetch's does; `signal` aborts it the same way.
   */
  upload(agent: string, file: Blob, filename: string, onProgress: (f: number) => void, signal?: AbortSignal) {
    return new Promise<AttachmentRef>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      const q = new URLSearchParams({ filename, agent });
      xhr.open('POST', `/api/v1/chat/uploads?${q}`);
      for (const [k, v] of Object.entries(this.headers({ 'content-type': file.type || 'application/octet-stream' })))
        xhr.setRequestHeader(k, v);
      xhr.responseType = 'json';
      xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
      xhr.onerror = () => reject(new TypeError('network error'));
      xhr.onabort = () => reject(new DOMException('upload aborted', 'AbortError'));
      xhr.onload = () => {
        try {
          this.checkPaired(xhr.status);
          resolve(AttachmentRef.parse(unwrap(xhr.status, xhr.response, retryAfter(xhr))));
          onProgress(1);
        } catch (err) {
          reject(err);
        }
      };
      signal?.addEventListener('abort', () => xhr.abort());
      xhr.send(file);
    });
  }

  /** Trades a one-time pairing code (from the link's fragment) for this device's token. */
  pair(code: string) {
    // Sent without this browser's current token: a refused code says nothing about an existing pairing.
    return this.call(Paired, 'POST', '/api/v1/pair', { code }, true);
  }

  state() {
    return this.call(StateSnapshot, 'GET', '/api/v1/state');
  }

  /** Who this device is and what it may do (the fleet scope). */
  me() {
    return this.call(Caller, 'GET', '/api/v1/me');
  }

  /** The paired devices; a device with the fleet scope may list them. */
  devices() {
    return this.call(z.array(TokenRecord), 'GET', '/api/v1/devices');
  }

  setDeviceScope(id: string, body: z.infer<typeof DeviceScopeBody>) {
    return this.call(TokenRecord, 'PATCH', apiPath('devices', id), body);
  }

  /** On a hub: the hosts it follows, pairing one from its join link, removing one (the owner's, as devices are). */
  hosts() {
    return this.call(z.array(HostEntry), 'GET', '/api/v1/hosts');
  }

  addHost(body: z.infer<typeof AddHostBody>) {
    return this.call(HostEntry, 'POST', '/api/v1/hosts', body);
  }

  removeHost(name: string) {
    return this.call(RemovedHost, 'DELETE', apiPath('hosts', name));
  }

  /** Who this daemon is: on a hub, the name it goes by as a move's target. */
  host() {
    return this.call(HostInfo, 'GET', '/api/v1/host');
  }

  /** On a hub: moves or copies an agent to another machine; the operation started (202), which move_progress follows. */
  moveAgent(agent: string, kind: MoveOperation['kind'], body: MoveBody | CopyBody) {
    return this.call(MoveOperation, 'POST', agentPath(agent, kind), body);
  }

  /** The agent's moves and copies, newest first: what a reconnect missed of move_progress. */
  moves(agent: string) {
    return this.call(z.array(MoveOperation), 'GET', `/api/v1/moves?${new URLSearchParams({ agent })}`);
  }

  retryMove(id: string) {
    return this.call(MoveOperation, 'POST', apiPath('moves', id, 'retry'));
  }

  threads() {
    return this.call(z.array(Thread), 'GET', '/api/v1/chat/threads');
  }

  messages(agent: string, opts: { limit: number; before?: string; after?: string }) {
    const q = new URLSearchParams({
      limit: String(opts.limit),
      ...(opts.before ? { before: opts.before } : {}),
      ...(opts.after ? { after: opts.after } : {}),
    });
    return this.call(MessagePage, 'GET', `${chatPath(agent, 'messages')}?${q}`);
  }

  markRead(agent: string) {
    return this.call(ReadMarker, 'POST', chatPath(agent, 'read'));
  }

  /** An attachment's bytes: fetched with the bearer header, since an <img src> or a link cannot send one. */
  async attachment(agent: string, id: string): Promise<Blob> {
    // Its bytes never change, so the browser's cache may keep them.
    const res = await this.request('GET', chatPath(agent, 'attachments', id), { cache: 'default' });
    if (!res.ok) throw new ApiError(res.status, `attachment unavailable (HTTP ${res.status})`);
    return res.blob();
  }

  /** The inbox: open asks, permission prompts and questions cards across threads, newest first. */
  openCards() {
    return this.call(z.array(Message), 'GET', '/api/v1/chat/open');
  }

  /** `signal` abandons the request (the answer outbox's, when the connection drops or the daemon is slow to answer). */
  answer(agent: string, id: string, body: AnswerBody, signal?: AbortSignal) {
    return this.onMessage(agent, id, 'answer', body, signal);
  }

  dismiss(agent: string, id: string, signal?: AbortSignal) {
    return this.onMessage(agent, id, 'dismiss', {}, signal);
  }

  /** A voice note held for having no words: `retry` transcribes it again, `send-anyway` delivers its audio alone. */
  release(agent: string, id: string, action: 'retry' | 'send-anyway') {
    return this.onMessage(agent, id, action);
  }

  private async onMessage(agent: string, id: string, action: string, body: unknown = {}, signal?: AbortSignal) {
    const res = await this.request('POST', chatPath(agent, 'messages', id, action), { body, signal });
    return Message.parse(await this.data(res));
  }

  /**
   * Reads /api/v1/events until it ends or `signal` aborts, handing each known event to `onEvent`. Resolves when the
   * stream ends (the caller reconnects); a 401 rejects with UnpairedError.
   */
  events(onEvent: (e: FleetEvent) => void, signal: AbortSignal): Promise<void> {
    return this.stream('/api/v1/events', signal, (frame, data) => {
      const event = parseEvent(frame.event, data);
      if (event) onEvent(event);
    });
  }

  /**
   * What a spawn may start from, and the environments an agent may take (names only): on a hub, `host`'s own (null:
   * this machine's).
   */
  templates(host: string | null = null) {
    return this.call(z.array(TemplateSummary), 'GET', onHost('/api/v1/templates', host));
  }

  environments(host: string | null = null) {
    return this.call(z.array(z.object({ name: z.string() })), 'GET', onHost('/api/v1/environments', host));
  }

  spawn(body: z.input<typeof SpawnBody>) {
    return this.call(Agent, 'POST', '/api/v1/agents/spawn', body);
  }

  /** stop / start / restart / reset: the agent as it is after. */
  lifecycle(agent: string, action: 'stop' | 'start' | 'restart' | 'reset') {
    return this.call(Agent, 'POST', agentPath(agent, action));
  }

  rename(agent: string, body: z.infer<typeof RenameBody>) {
    return this.call(Agent, 'POST', agentPath(agent, 'rename'), body);
  }

  setTemplate(agent: string, body: z.infer<typeof TemplateBody>) {
    return this.call(Agent, 'POST', agentPath(agent, 'template'), body);
  }

  setEnvironments(agent: string, body: z.infer<typeof EnvironmentsBody>) {
    return this.call(Agent, 'POST', agentPath(agent, 'environments'), body);
  }

  /** `null` clears a value (the appearance rules decide again); a value left out stays. */
  setAppearance(agent: string, body: z.infer<typeof AppearanceBody>) {
    return this.call(Agent, 'PUT', agentPath(agent, 'appearance'), body);
  }

  remove(agent: string) {
    return this.call(RemovedAgent, 'DELETE', agentPath(agent));
  }

  /** An agent's screen now (the live terminal). */
  terminal(agent: string) {
    return this.call(TerminalScreen, 'GET', agentPath(agent, 'terminal'));
  }

  /** Follows an agent's terminal: each screen as it changes; resolves when the stream ends (`ended`: the agent stopped). */
  terminalStream(
    agent: string,
    on: (e: { kind: 'screen'; screen: TerminalScreen } | { kind: 'ended'; reason: string }) => void,
    signal: AbortSignal,
  ): Promise<void> {
    return this.stream(agentPath(agent, 'terminal', 'stream'), signal, (frame, data) => {
      if (frame.event === 'screen') {
        const screen = TerminalScreen.safeParse(data);
        if (screen.success) on({ kind: 'screen', screen: screen.data });
      } else if (frame.event === 'ended') {
        const reason = (data as { reason?: unknown } | null)?.reason;
        on({ kind: 'ended', reason: typeof reason === 'string' ? reason : 'the terminal ended' });
      }
    });
  }

  /** Presses the key bar's named keys in an agent's terminal. */
  pressKeys(agent: string, keys: TerminalKeysBody['keys']) {
    return this.call(KeysPressed, 'POST', agentPath(agent, 'terminal', 'keys'), { keys });
  }

  /** Every task with its owner and its own newest runs. */
  tasks() {
    return this.call(z.array(TaskDetail), 'GET', '/api/v1/tasks');
  }

  runTask(task: string) {
    return this.call(TaskRunStarted, 'POST', apiPath('tasks', task, 'run'));
  }

  /** A finished run's log, its last 256 KB. */
  runLog(task: string, run: string) {
    return this.call(RunLogTail, 'GET', apiPath('tasks', task, 'runs', run, 'log'));
  }

  /** The agent's usage per UTC day, the last `days` of them, oldest first. */
  usage(agent: string, days: number) {
    return this.call(AgentUsageDays, 'GET', `${agentPath(agent, 'usage')}?days=${days}`);
  }

  /** The agent workspace's changed files (git status). */
  changes(agent: string) {
    return this.call(Changes, 'GET', agentPath(agent, 'changes'));
  }

  /** One changed file's unified diff against HEAD. */
  diff(agent: string, file: string) {
    const q = new URLSearchParams({ path: file });
    return this.call(FileDiff, 'GET', `${agentPath(agent, 'changes', 'diff')}?${q}`);
  }

  /**
   * A write on the agent's changes (`commit`, `discard`, `push`, `pull-request`), its answer read with `schema`; the
   * changes view types each one's body and answer (src/wire/changes.ts).
   */
  changeAction<S extends z.ZodType>(agent: string, action: string, schema: S, body: object) {
    return this.call(schema, 'POST', agentPath(agent, 'changes', action), body);
  }

  /** The key this browser's PushManager subscribes with. */
  vapidPublicKey() {
    return this.call(VapidPublicKey, 'GET', '/api/v1/push/vapid-public-key');
  }

  /** This device's own push subscriptions (the daemon lists a device's only). */
  pushSubscriptions() {
    return this.call(z.array(SubscriptionSummary), 'GET', '/api/v1/push/subscriptions');
  }

  subscribePush(sub: { endpoint: string; keys: { p256dh: string; auth: string } }, prefs?: PushPrefs) {
    return this.call(SubscriptionSummary, 'POST', '/api/v1/push/subscriptions', {
      provider: 'web-push',
      ...sub,
      ...(prefs ? { prefs } : {}),
    });
  }

  unsubscribePush(id: string) {
    return this.call(RemovedSubscription, 'DELETE', apiPath('push', 'subscriptions', id));
  }

  setPushPrefs(id: string, prefs: PushPrefs) {
    return this.call(SubscriptionSummary, 'PUT', apiPath('push', 'subscriptions', id, 'prefs'), prefs);
  }

  /** A test push to this device's subscriptions: what became of each. */
  testPush() {
    return this.call(TestPushResult, 'POST', '/api/v1/push/test', {});
  }

  /** The delivery log of this device's subscriptions, newest first. */
  pushDeliveries() {
    return this.call(z.array(DeliveryEntry), 'GET', '/api/v1/push/deliveries');
  }

  /** Says the agent's thread is (or is no longer) on this screen, so its messages do not push meanwhile. */
  presence(agent: string, viewing: boolean) {
    return this.call(PresenceState, 'PUT', chatPath(agent, 'presence'), { viewing });
  }

  /** Reads an SSE response with the bearer header, handing each frame whose data is JSON to `onFrame`. */
  private async stream(
    path: string,
    signal: AbortSignal,
    onFrame: (frame: SseEvent, data: unknown) => void,
  ): Promise<void> {
    const res = await this.request('GET', path, { accept: 'text/event-stream', signal });
    if (!res.ok || !res.body) {
      const refusal = await res.json().catch(() => null);
      const message = Envelope.safeParse(refusal);
      throw new ApiError(
        res.status,
        message.success && !message.data.ok ? message.data.error : `stream refused (HTTP ${res.status})`,
        message.success && !message.data.ok ? message.data.code : undefined,
      );
    }
    const parser = new SseParser();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const frame of parser.feed(value)) {
        let data: unknown;
        try {
          data = JSON.parse(frame.data);
        } catch {
          continue;
        }
        onFrame(frame, data);
      }
    }
  }
}
