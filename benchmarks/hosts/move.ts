/**
 * Moving an agent between machines (issue 32, Done when 4): a shell agent on the host box, with a ~100 MB git
 * workspace and a 5 000-message thread, moved through the hub to the host attic, each a real daemon in a network
 * namespace of its own joined by veth (test/helpers/hosts/; distinct loopback ports where namespaces are unavailable,
 * which the output says).
 *
 * The workspace: `--files` files of `--file-kb` KiB committed, then `--changed` of them with `--change-kb` KiB appended
 * (a fifth of those staged) and `--untracked` new files of `--untracked-kb` KiB: ~90 MB committed and ~10 MB not, by
 * default. The content is base64 text of an AES-CTR stream with a fixed key: the same on every run, and text git's
 * zlib cannot shrink below three quarters. The thread: `--messages` posts by the agent in its own thread through the
 * real route (POST /api/agent/ivy/chat/post on box's socket, as its chat tool posts), 16 at a time.
 *
 * The steps are timed from the hub's move_progress events as they arrive on its /api/v1/events stream (the operation's
 * updated_at has whole seconds only): park from the move's request to its first event in ship; ship from there to spawn, split into the pack on box (until
 * the first event that knows the pack's total) and the transfer through the hub; spawn; mark; and the total to done.
 * The pack's parts and their sizes are read from the pack box wrote (<state>/moves/<id>/pack.json).
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/hosts/move.js [--files 2000] [--messages 5000]
 *
 * Namespaces need root. Asserts nothing; the daemons, their homes and the namespaces are removed on exit.
 */
import { spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AgentPack } from '../../src/wire/agent-pack.js';
import { Agent } from '../../src/wire/fleet.js';
import { MoveOperation } from '../../src/wire/move.js';
import { HostBench } from '../../test/helpers/hosts/bench.js';
import type { HostDaemon } from '../../test/helpers/hosts/host-daemon.js';
import { SseClient } from '../../test/helpers/sse-client.js';
import { until } from '../../test/helpers/wait.js';
import { int, options } from '../lib/options.js';
import { fmt, machineLine, runGuarded, table } from '../lib/report.js';
import { following, hubBoxAttic } from './hub-and-hosts.js';

const BUDGET_MS = 900_000;
const POSTS_AT_ONCE = 16;
const MB = 1e6;
const CONFIG =
  'templates:\n  git: { harness: shell, command: "exec cat", workspace: "~/work/ivy", chat: { enabled: true } }\n';

const o = options({
  files: int(2000),
  'file-kb': int(45),
  changed: int(100),
  'change-kb': int(50),
  untracked: int(50),
  'untracked-kb': int(100),
  messages: int(5000),
});

let bench: HostBench | undefined;
let events: SseClient | undefined;

async function cleanup(): Promise<void> {
  events?.close();
  await bench?.close();
}

/** Deterministic text that does not compress: base64 of an AES-CTR keystream, in 76-character lines. */
function textStream() {
  const cipher = createCipheriv('aes-128-ctr', Buffer.alloc(16, 7), Buffer.alloc(16, 0));
  return (bytes: number): string => {
    const b64 = cipher.update(Buffer.alloc(Math.ceil((bytes * 3) / 4))).toString('base64');
    return (b64.match(/.{1,76}/g) ?? []).join('\n').slice(0, bytes - 1) + '\n';
  };
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * MB,
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The workspace on box: answers its size in bytes on disk (the .git folder aside) and its `git status`. */
function makeWorkspace(dir: string): { bytes: number; uncommitted: number; status: string } {
  const next = textStream();
  const file = (i: number) => path.join(`d${String(i % 40).padStart(2, '0')}`, `f${String(i).padStart(4, '0')}.txt`);
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  let bytes = 0;
  for (let i = 0; i < o.files; i++) {
    fs.mkdirSync(path.join(dir, path.dirname(file(i))), { recursive: true });
    fs.writeFileSync(path.join(dir, file(i)), next(o['file-kb'] * 1024));
    bytes += o['file-kb'] * 1024;
  }
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'the committed tree');
  let uncommitted = 0;
  const step = Math.max(1, Math.floor(o.files / o.changed));
  for (let n = 0; n < o.changed; n++) {
    fs.appendFileSync(path.join(dir, file(n * step)), next(o['change-kb'] * 1024));
    uncommitted += o['change-kb'] * 1024;
    if (n % 5 === 0) git(dir, 'add', file(n * step));
  }
  for (let n = 0; n < o.untracked; n++) {
    fs.mkdirSync(path.join(dir, 'new'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'new', `u${n}.txt`), next(o['untracked-kb'] * 1024));
    uncommitted += o['untracked-kb'] * 1024;
  }
  return { bytes: bytes + uncommitted, uncommitted, status: git(dir, 'status', '--porcelain=v1') };
}

async function postThread(box: HostDaemon): Promise<void> {
  let n = 0;
  const worker = async () => {
    while (n < o.messages) {
      const i = ++n;
      const r = await box.op('POST', '/api/agent/ivy/chat/post', { text: `message ${i} of the long thread` });
      if (r.status !== 200) throw new Error(`post ${i}: ${r.status} ${r.text}`);
    }
  };
  await Promise.all(Array.from({ length: POSTS_AT_ONCE }, worker));
}

async function main(): Promise<void> {
  console.log(machineLine());
  bench = HostBench.open();
  const { link, hub, box, attic } = await hubBoxAttic(bench, CONFIG);

  let t = performance.now();
  const ws = makeWorkspace(path.join(box.home, 'work', 'ivy'));
  console.log(
    `workspace: ${fmt(ws.bytes / MB, 1)} MB in ${o.files + o.untracked} files, ${fmt(ws.uncommitted / MB, 1)} MB ` +
      `of it uncommitted or untracked; made in ${fmt((performance.now() - t) / 1000, 1)} s`,
  );
  const spawned = await box.op('POST', '/api/v1/agents/spawn', { template: 'git', name: 'ivy' });
  if (spawned.status !== 201) throw new Error(`spawn on box: ${spawned.status} ${spawned.text}`);
  t = performance.now();
  await postThread(box);
  console.log(
    `thread: ${o.messages} posts through POST /api/agent/ivy/chat/post in ` +
      `${fmt((performance.now() - t) / 1000, 1)} s`,
  );
  await bench.pair(hub, box);
  await bench.pair(hub, attic);
  await following(hub, ['ivy@box']);

  events = await SseClient.open(hub.tcp, '/api/v1/events', hub.operatorToken);
  // updated_at has whole seconds only (rfc3339): each event is stamped as it arrives on the hub's stream instead.
  const arrivals: { at: number; op: MoveOperation }[] = [];
  const stamp = setInterval(() => {
    for (const e of events!.events.splice(0))
      if (e.event === 'move_progress') arrivals.push({ at: performance.now(), op: MoveOperation.parse(e.data.move) });
  }, 5);
  const sent = performance.now();
  const r = await hub.op('POST', '/api/v1/agents/ivy@box/move', { to: 'attic' });
  if (r.status !== 202) throw new Error(`move: ${r.status} ${r.text}`);
  const id = MoveOperation.parse(r.json.data).id;
  const ofMove = () => arrivals.filter((a) => a.op.id === id);
  const end = await until(
    `move ${id} settled`,
    () => ofMove().find((a) => a.op.step === 'done' || a.op.step === 'failed'),
    BUDGET_MS - 60_000,
  );
  clearInterval(stamp);
  if (end.op.step === 'failed') throw new Error(`the move failed: ${JSON.stringify(end.op.failure)}`);
  await until(
    'ivy runs on attic',
    async () => (await attic.get('/api/v1/agents/ivy', Agent)).status === 'running',
    60_000,
  );
  const running = performance.now();

  const first = (pred: (m: MoveOperation) => boolean) => {
    const a = ofMove().find((x) => pred(x.op));
    if (!a) throw new Error(`no move_progress event for that step among ${ofMove().length}`);
    return a.at;
  };
  const ship = first((m) => m.step === 'ship');
  const packed = first((m) => m.step === 'ship' && m.progress.bytes_total !== null);
  const spawn = first((m) => m.step === 'spawn');
  const mark = first((m) => m.step === 'mark');
  const done = end.at;
  const total = end.op.progress.bytes_total ?? 0;
  const s = (ms: number) => fmt(ms / 1000, 2);
  const mbps = (ms: number) => `${fmt(total / MB / (ms / 1000), 1)} MB/s`;

  console.log(`\nmove of ivy: box → hub → attic over ${link}; ${fmt(total / MB, 1)} MB shipped\n`);
  table(
    ['step', 's', ''],
    [
      ['park', s(ship - sent), 'box stops ivy (from the request)'],
      ['ship', s(spawn - ship), `${mbps(spawn - ship)} overall`],
      ['  pack on box', s(packed - ship), 'workspace, thread, conversation'],
      ['  transfer', s(spawn - packed), `${mbps(spawn - packed)} box → hub → attic`],
      ['spawn', s(mark - spawn), 'attic unpacks and starts ivy'],
      ['mark', s(done - mark), "box's dormant record"],
      ['total', s(done - sent), 'the request → the done event'],
      ['running on attic', s(running - sent), 'the request → attic lists ivy running (polled)'],
    ],
  );

  const pack = AgentPack.parse(
    JSON.parse(fs.readFileSync(path.join(box.home, 'state', 'moves', id, 'pack.json'), 'utf8')),
  );
  const kinds = new Map<string, number>();
  for (const p of pack.parts) {
    const kind = p.name.split('/')[0]!;
    kinds.set(kind, (kinds.get(kind) ?? 0) + p.bytes);
  }
  console.log(`\nthe pack: ${pack.parts.length} parts\n`);
  table(
    ['part', 'MB'],
    [
      ...pack.parts.map((p) => [p.name, fmt(p.bytes / MB, 3)]),
      ...[...kinds].map(([kind, bytes]) => [`${kind} (all)`, fmt(bytes / MB, 3)]),
      ['total', fmt(total / MB, 3)],
    ],
  );

  const arrived = git(path.join(attic.home, 'work', 'ivy'), 'status', '--porcelain=v1');
  console.log(`\nattic's git status ${arrived === ws.status ? 'matches' : 'DIFFERS FROM'} box's before the move`);
}

runGuarded(BUDGET_MS, main, cleanup, () => bench?.network.close());
