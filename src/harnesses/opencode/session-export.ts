// An opencode session as `opencode export <id>` prints it (`{info, messages: [{info, parts}]}`, opencode 1.18.33),
// made ready for `opencode import` on another machine. Pure: text in, text out.
//
// opencode's import keeps every id it is given and skips any message or part whose id its database already holds, so
// an export imported where its session already is (an agent copied back to the host it came from) would be merged
// into that session, shared by two agents. Every id is therefore made new: opencode's ids are `<kind>_` + 12 hex
// digits of time + 14 random characters, and only the random tail changes, so opencode orders them as before.
// Import points the session itself at the project and folder it runs in; the working folders recorded on each
// assistant message (`path.cwd`, `path.root`) are re-pointed here from the source's workspace to the target's. What
// ties the session to the source host stays behind: its opencode workspace (`workspaceID`, a row of the source's
// database) and its share link (whose secret the export does not hold).
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const OpencodeId = z.string().regex(/^[a-z]+_[0-9a-f]{12}[0-9A-Za-z]{14}$/, 'an opencode id');

/** What the rewrite relies on; every other field goes through untouched. */
const SessionExport = z.object({
  info: z.object({ id: OpencodeId.refine((id) => id.startsWith('ses_'), 'a session id') }).passthrough(),
  messages: z.array(
    z
      .object({
        info: z.object({ id: OpencodeId }).passthrough(),
        parts: z.array(z.object({ id: OpencodeId }).passthrough()),
      })
      .passthrough(),
  ),
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_TAIL = 14;

function freshTail(): string {
  return [...randomBytes(RANDOM_TAIL)].map((b) => BASE62[b % 62]).join('');
}

/** `p` moved from under `from` to under `to`; unchanged when it is not `from` or inside it. */
export function movedPath(p: string, from: string, to: string): string {
  if (p === from) return to;
  const base = from.endsWith('/') ? from : `${from}/`;
  return p.startsWith(base) ? `${to.replace(/\/$/, '')}/${p.slice(base.length)}` : p;
}

/** Every string that is exactly one of `ids`' keys replaced by its value, anywhere in `value`. */
function renamed(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => renamed(v, ids));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v, ids)]));
  return value;
}

/**
 * The export `text` as a new session at `to.workspace`: fresh ids (answered: the session's is what `--session`
 * resumes it by) and the messages' working folders moved from `from.workspace`. Throws when `text` is not an export.
 */
export function rehomeExport(
  text: string,
  from: { workspace: string },
  to: { workspace: string },
): { text: string; sessionId: string } {
  const session = SessionExport.parse(JSON.parse(text));
  const ids = new Map<string, string>();
  const fresh = (id: string) => ids.set(id, id.slice(0, -RANDOM_TAIL) + freshTail());
  fresh(session.info.id);
  for (const m of session.messages) {
    fresh(m.info.id);
    for (const p of m.parts) fresh(p.id);
  }
  const out = renamed(session, ids) as z.infer<typeof SessionExport>;
  delete out.info.workspaceID;
  delete out.info.share;
  for (const { info } of out.messages) {
    const where = info.path;
    if (!where || typeof where !== 'object') continue;
    for (const key of ['cwd', 'root'] as const) {
      const p = (where as Record<string, unknown>)[key];
      if (typeof p === 'string') (where as Record<string, unknown>)[key] = movedPath(p, from.workspace, to.workspace);
    }
  }
  return { text: JSON.stringify(out), sessionId: ids.get(session.info.id)! };
}
