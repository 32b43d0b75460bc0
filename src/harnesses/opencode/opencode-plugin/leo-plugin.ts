// Leo's plugin for opencode, loaded from the `plugin` list of the config Leo hands opencode (OPENCODE_CONFIG). It
// runs inside opencode's own runtime (Bun) and reports to the daemon over the hook route Claude's hooks use, POST
// /hooks/:event on LEO_SOCKET, as LEO_AGENT:
// - session-start: a new top-level session (`session.created`), with the transcript path, so a restart resumes it;
// - user-prompt-submit: a prompt submitted (the `chat.message` hook);
// - stop: the session went idle (`session.idle`) — the plugin first writes the session's transcript (session-log.ts),
//   then reports the turn's opening prompt, last assistant text and usage;
// - stop-failure: the session's turn failed (`session.error`: the provider refused or erred, after opencode's own
//   retries), reported the same way: the transcript holds the error, which the daemon notes in the thread;
// - permission-request: a permission asked (`permission.asked`), held until the daemon answers; its answer is applied
//   through opencode's own permission reply, and a reply given first in opencode's UI (`permission.replied`) ends
//   the held request, which tells the daemon the terminal answered.
// Every report is sent without being awaited by opencode and every failure is swallowed: a daemon that is down, slow
// or gone never blocks or breaks a turn, and opencode's own dialog always stays answerable.
//
// Only plugin functions may be exported from this module: opencode calls every export as one. Measured against
// opencode 1.18.33: a plugin listed by absolute path loads without any package install; the event hook sees
// `session.created` (`info.parentID` set for a subagent's session), `session.idle`, `session.error` (`error` as the
// failed step's), `permission.asked` and
// `permission.replied` (`requestID`, `reply`); node:http over a unix socket works under its Bun, with no 5 s timeout.
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { TRANSCRIPTS_ENV, permissionRequestPayload, readDecision, type PermissionAsked } from './protocol.js';
import { transcriptEntries, transcriptLines, turnReport, type OcMessage } from './session-log.js';

/** The name Leo's MCP server has in every harness (types.ts LEO_MCP_SERVER_NAME; not imported: this runs in opencode). */
const LEO_SERVER = 'leo';
/** Quick reports hand their payload over and return; only a permission request waits for a person. */
const QUICK_TIMEOUT_MS = 10_000;

interface OpencodeEvent {
  type: string;
  properties: Record<string, unknown>;
}

/** The part of the plugin SDK client (v1 shape in 1.18.33) the plugin uses. */
interface OpencodeClient {
  session: { messages(opts: { path: { id: string } }): Promise<{ data?: OcMessage[] }> };
  postSessionIdPermissionsPermissionId(opts: {
    path: { id: string; permissionID: string };
    body: { response: string };
  }): Promise<unknown>;
}

export const LeoPlugin = async ({ client }: { client: OpencodeClient }) => {
  const { LEO_AGENT: agent, LEO_SOCKET: socket, [TRANSCRIPTS_ENV]: transcripts } = process.env;
  // Not a Leo agent's opencode (or a task run, whose config leaves the plugin out): nothing to report.
  if (!agent || !socket || !transcripts) return {};
  const dir = transcripts;

  const subagentSessions = new Set<string>();
  /** Held permission requests by permission id, to end when opencode's UI answers first. */
  const held = new Map<string, AbortController>();
  /** Per session: model steps that started before this belong to turns already reported. */
  const reportedUntil = new Map<string, number>();
  const startedAt = Date.now();
  const transcriptOf = (session: string) => path.join(dir, `${session}.jsonl`);

  const report = (event: string, payload: Record<string, unknown>, opts: { hold?: AbortSignal } = {}) =>
    postHook(socket, event, { agent, payload }, opts.hold ?? AbortSignal.timeout(QUICK_TIMEOUT_MS));

  /** Per session: the turn-end reports in order, so two never write the transcript at once. */
  const reports = new Map<string, Promise<void>>();
  const turnEnded = (session: string, event: 'stop' | 'stop-failure'): void => {
    const next = (reports.get(session) ?? Promise.resolve()).then(() => stopped(session, event)).catch(() => undefined);
    reports.set(session, next);
  };

  async function stopped(session: string, event: 'stop' | 'stop-failure'): Promise<void> {
    const since = reportedUntil.get(session) ?? startedAt;
    reportedUntil.set(session, Date.now());
    const messages = (await client.session.messages({ path: { id: session } })).data ?? [];
    const entries = transcriptEntries(messages, LEO_SERVER);
    const file = transcriptOf(session);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    // Whole or not at all: the daemon may read it while the next turn's report is being written.
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.writeFile(tmp, transcriptLines(entries), { mode: 0o600 });
    await fs.rename(tmp, file);
    await report(event, { session_id: session, transcript_path: file, ...turnReport(messages, entries, since) });
  }

  async function permissionAsked(asked: PermissionAsked): Promise<void> {
    const hold = new AbortController();
    held.set(asked.id, hold);
    try {
      const decision = readDecision(
        await report('permission-request', permissionRequestPayload(asked), { hold: hold.signal }),
      );
      if (!decision || hold.signal.aborted) return;
      await client.postSessionIdPermissionsPermissionId({
        path: { id: asked.sessionID, permissionID: asked.id },
        body: { response: decision.response },
      });
    } finally {
      held.delete(asked.id);
    }
  }

  const quietly = (work: () => Promise<unknown>): void => void work().catch(() => undefined);

  return {
    event: async ({ event }: { event: OpencodeEvent }) => {
      const p = event.properties;
      if (event.type === 'session.created') {
        const info = p.info as { id?: string; parentID?: string } | undefined;
        if (!info?.id) return;
        if (info.parentID) subagentSessions.add(info.id);
        else
          quietly(() =>
            report('session-start', {
              session_id: info.id,
              transcript_path: transcriptOf(info.id!),
              source: 'startup',
            }),
          );
      } else if (event.type === 'session.idle') {
        const session = p.sessionID;
        if (typeof session === 'string' && !subagentSessions.has(session)) turnEnded(session, 'stop');
      } else if (event.type === 'session.error') {
        const session = p.sessionID;
        if (typeof session === 'string' && !subagentSessions.has(session)) turnEnded(session, 'stop-failure');
      } else if (event.type === 'permission.asked') {
        if (typeof p.id === 'string' && typeof p.sessionID === 'string' && typeof p.permission === 'string')
          quietly(() => permissionAsked(p as unknown as PermissionAsked));
      } else if (event.type === 'permission.replied') {
        if (typeof p.requestID === 'string') held.get(p.requestID)?.abort();
      }
    },
    'chat.message': async (input: { sessionID?: string }, output: { parts?: { type?: string; text?: string }[] }) => {
      const session = input.sessionID;
      if (!session || subagentSessions.has(session)) return;
      const prompt = (output.parts ?? [])
        .filter((part) => part.type === 'text' && typeof part.text === 'string')
        .map((part) => part.text)
        .join('\n');
      quietly(() => report('user-prompt-submit', { session_id: session, prompt }));
    },
  };
};

/**
 * One POST to the daemon's hook route; resolves with what the daemon says to print (its `data.output`), or undefined
 * on any failure. `signal` ends the request: a quick report's timeout, or a permission answered in opencode first,
 * whose hang-up the daemon reads as the terminal's answer. agent: false, because Node's shared agent would time the
 * socket out at 5 s (Bun's may too).
 */
function postHook(socket: string, event: string, body: unknown, signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = http.request(
      {
        socketPath: socket,
        path: `/hooks/${encodeURIComponent(event)}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
        agent: false,
        signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const output = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { output?: unknown } }).data
              ?.output;
            resolve(typeof output === 'string' ? output : undefined);
          } catch {
            resolve(undefined);
          }
        });
        res.on('error', () => resolve(undefined));
      },
    );
    req.on('error', () => resolve(undefined));
    req.end(data);
  });
}
