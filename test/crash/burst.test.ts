import { ThreadNotes } from '../../src/chat/threads/thread-notes.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ChatService, type ChatServiceDeps } from '../../src/chat/threads/chat-service.js';
import { ChatStore } from '../../src/chat/threads/chat-store.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import type { EventBus } from '../../src/events/bus.js';
import { openDatabase } from '../../src/store/database.js';
import { until } from '../helpers/wait.js';
import { CrashHome, countMarkers, runSeeds, sleep, type Message } from './kit.js';

const AGENTS = ['ann', 'bob', 'cyd'];
/** Sends per seed: bounded for CI; LEO_CRASH_BURST=2000 is the full burst. */
const BURST = Number(process.env.LEO_CRASH_BURST) || 90;
const CONCURRENCY = 6;
const MARKER = /K\d+x\d+Z/g;
const markerOf = (text: string) => /K\d+x\d+Z/.exec(text)?.[0];

describe('crash: SIGKILL during a burst of sends to several agents', () => {
  it('every acknowledged message exists once, none is typed twice, none is both failed and typed', async (t) => {
    await runSeeds(t, 'burst', { ciSeeds: 4, parallel: 2, file: 'crash/burst' }, (seed, rng) =>
      CrashHome.use(async (h) => {
        await h.start();
        for (const a of AGENTS) await h.spawnAgent(a, 'sink');

        const sends = Array.from({ length: BURST }, (_, i) => ({ agent: rng.pick(AGENTS), marker: `K${seed}x${i}Z` }));
        const acked = new Map<string, string>();
        const tried = new Set<string>();
        // Half the seeds kill mid-burst, right after a random acknowledgement with more requests in flight; the others
        // after the last one, at a random moment while the queues are still typing into the panes.
        const midBurst = rng() < 0.5;
        const killAfter = midBurst ? rng.int(0, BURST - 1) : BURST;
        const killDelay = midBurst ? 0 : rng.int(0, 2000);
        let killing: Promise<void> | null = null;
        let killed = false;
        const maybeKill = () => {
          if (!killing && acked.size >= killAfter)
            killing = sleep(killDelay).then(() => {
              killed = true;
              return h.kill();
            });
        };
        maybeKill();
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < sends.length && !killed) {
              const s = sends[next++]!;
              tried.add(s.marker);
              let status = 0;
              try {
                const r = await h.op('POST', `/api/v1/chat/${s.agent}/messages`, {
                  text: `${s.marker} from the burst`,
                });
                status = r.status;
                if (r.status === 201) acked.set(s.marker, r.json.data.id);
              } catch (err) {
                if (killed) return;
                throw err;
              }
              assert.equal(status, 201, `send ${s.marker} before the kill`);
              maybeKill();
            }
          }),
        );
        await killing;
        // What the agents had read when the daemon died (the sinks print what tmux already handed them).
        await sleep(200);
        const readBeforeKill = countMarkers(
          AGENTS.flatMap((a) => h.linesRead(a)),
          MARKER,
        );

        // A third of the seeds stay down "11 minutes" (every stored time moved back): the leftovers are then too old to
        // deliver and fail with "send it again"; otherwise they are delivered after the restart.
        const stale = rng() < 1 / 3;
        if (stale) h.backdateMessages(11 * 60_000);
        // Half the seeds kill the restart too, at a random point of start-up (leftovers being settled and delivered,
        // agents adopted).
        if (rng() < 0.5) await h.startAndKill(rng.int(100, 2500));
        await h.start();

        // A probe per agent: the restarted daemon delivers it after the leftovers, and its Enter flushes any text a
        // kill left un-entered.
        const probes = new Map<string, string>();
        for (const a of AGENTS) {
          const r = await h.op('POST', `/api/v1/chat/${a}/messages`, { text: `probe for ${a}` });
          assert.equal(r.status, 201, r.text);
          probes.set(a, r.json.data.id);
        }
        const threads = new Map<string, Message[]>();
        for (const a of AGENTS)
          threads.set(
            a,
            await until(
              `${a}'s probe to be delivered`,
              async () => {
                const msgs = await h.thread(a);
                return msgs.find((m) => m.id === probes.get(a))?.state === 'delivered' && msgs;
              },
              // Each leftover still to deliver takes a paste and an Enter.
              20_000 + 1_000 * sends.filter((s) => s.agent === a && acked.has(s.marker)).length,
            ),
          );

        // Delivered means typed and entered: the sink prints the line a moment later, and a kill's un-entered text
        // comes out on the probe's line. What each agent read is counted once its probe's line is there.
        await until(
          'the sinks to print their probes',
          () => AGENTS.every((a) => h.linesRead(a).some((l) => l.includes(`probe for ${a}`))),
          10_000,
        );

        // Why each one failed is the daemon's own record (delivery_note); the wire only carries the notes.
        const failedBecause = h.readDb(
          (db) =>
            new Map(
              (
                db.prepare(`SELECT id, delivery_note FROM messages WHERE state = 'failed'`).all() as {
                  id: string;
                  delivery_note: string;
                }[]
              ).map((r) => [r.id, r.delivery_note]),
            ),
        );
        const FATE: Record<string, string> = {
          'the daemon restarted while the message was being typed': 't',
          'the daemon restarted before delivery started, too long after the message was sent': 'u',
        };

        const tally = {
          kills: h.kills,
          acked: acked.size,
          'in flight at the kill, stored': 0,
          'delivered before the kill': 0,
          'delivered after the restart': 0,
          'failed mid-typing': 0,
          'failed unsent (too old)': 0,
        };
        for (const agent of AGENTS) {
          const msgs = threads.get(agent)!;
          const mine = sends.filter((s) => s.agent === agent);
          const burst = msgs.filter((m) => m.direction === 'in' && markerOf(m.text));
          const byMarker = new Map<string, Message[]>();
          for (const m of burst) {
            const k = markerOf(m.text)!;
            byMarker.set(k, [...(byMarker.get(k) ?? []), m]);
          }
          for (const s of mine) {
            const stored = byMarker.get(s.marker) ?? [];
            if (acked.has(s.marker)) {
              assert.equal(stored.length, 1, `${s.marker} was acknowledged: stored exactly once`);
              assert.equal(stored[0]!.id, acked.get(s.marker));
            } else {
              assert.ok(stored.length <= (tried.has(s.marker) ? 1 : 0), `${s.marker} stored at most once`);
              tally['in flight at the kill, stored'] += stored.length;
            }
          }
          assert.ok(
            msgs.every((m) => m.state !== 'pending'),
            'nothing is left pending after the restart',
          );
          const read = countMarkers(h.linesRead(agent), MARKER);
          for (const [marker, n] of read) {
            assert.equal(n, 1, `${marker} typed into ${agent} exactly once`);
            assert.ok(byMarker.has(marker), `${marker} typed into ${agent} is one of ${agent}'s messages`);
          }
          // d: delivered (before the kill, or after the restart from Leo's outbox), t: failed while being typed, u:
          // failed before it was typed because it was too old by the restart; no other failure is expected.
          const fates = burst.map((m) => {
            if (m.state === 'delivered') return 'd';
            const why = failedBecause.get(m.id)!;
            assert.ok(FATE[why], `${m.text} failed for a reason other than the restart: ${why}`);
            return FATE[why];
          });
          burst.forEach((m, i) => {
            const marker = markerOf(m.text)!;
            if (fates[i] === 'd') assert.equal(read.get(marker), 1, `delivered ${marker} was typed once`);
            if (fates[i] === 'u')
              assert.equal(read.get(marker), undefined, `${marker} failed unsent, and was not typed`);
          });
          // First in, first out per agent. Stale leftovers all fail: only the one being typed when the daemon died
          // can be between the delivered ones and them. Fresh ones are all delivered, but each kill can catch one
          // mid-typing (the first kill, and the kill of a restart delivering leftovers).
          const count = (f: string) => fates.filter((x) => x === f).length;
          if (stale) assert.match(fates.join(''), /^d*t?u*$/, `${agent}'s burst in order`);
          else {
            assert.match(fates.join(''), /^[dt]*$/, `${agent}'s leftovers were delivered after the restart`);
            assert.ok(count('t') <= h.kills, `${agent}: at most one message caught mid-typing per kill`);
          }
          assert.deepEqual(
            h.linesRead(agent).flatMap((l) => l.match(MARKER) ?? []),
            burst.map((m) => markerOf(m.text)!).filter((k) => read.has(k)),
            `${agent} read its messages in the order they were sent`,
          );
          for (const [i, m] of burst.entries())
            if (fates[i] === 'd')
              tally[
                readBeforeKill.has(markerOf(m.text)!) ? 'delivered before the kill' : 'delivered after the restart'
              ]++;
          tally['failed mid-typing'] += count('t');
          tally['failed unsent (too old)'] += count('u');
          const notes = msgs.filter((m) => m.kind === 'system').map((m) => m.text);
          assert.equal(
            notes.filter((n) =>
              /before your message was delivered, over 10 minutes after you sent it; please send it again/.test(n),
            ).length,
            count('u'),
            'one "send it again" note per message failed before it was typed',
          );
          assert.equal(
            notes.filter((n) => /while typing your message/.test(n)).length,
            count('t'),
            'one "it may have arrived" note per message failed while it was being typed',
          );
        }
        return tally;
      }),
    );
  });

  it('a leftover is failed together with its note: a start-up cut off between the two leaves it pending', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-crash-'));
    const db = openDatabase(path.join(dir, 'chat.db'));
    try {
      const clock = new ManualClock(Date.parse('2026-12-01T10:00:00Z'));
      const store = new ChatStore(db, clock);
      const chat = (publish: EventBus['publish']) =>
        new ChatService({
          store,
          notes: new ThreadNotes(store, { publish } as EventBus),
          bus: { publish } as EventBus,
          clock,
          logger: createLogger('silent'),
        } as unknown as ChatServiceDeps);
      const queued = store.insert({ agent: 'den', direction: 'in', kind: 'text', text: 'queued', state: 'pending' });
      const typing = store.insert({ agent: 'den', direction: 'in', kind: 'text', text: 'typing', state: 'pending' });
      store.markDeliveryStarted(typing.id);
      // The daemon was down long enough that the queued one is too old to deliver: both fail, each with its note.
      clock.advance(11 * 60_000);

      // The process "dies" as the first note is published: nothing of that leftover's failure may be left behind.
      const dying = chat((type) => {
        if (type === 'chat.message') throw new Error('killed here');
        return undefined as never;
      });
      assert.throws(() => dying.recoverLeftovers(), /killed here/);
      assert.equal(store.get(queued.id)!.state, 'pending', 'the failure rolled back with its note');
      assert.equal(store.page('den', { limit: 10 }).messages.filter((m) => m.kind === 'system').length, 0);

      chat(() => undefined as never).recoverLeftovers();
      const thread = store.page('den', { limit: 10 }).messages;
      assert.deepEqual(
        thread.map((m) => [m.text.replace(/ .*/, ''), m.state]),
        [
          ['queued', 'failed'],
          ['typing', 'failed'],
          ['Leo', ''],
          ['Leo', ''],
        ],
      );
      assert.match(
        thread[2]!.text,
        /before your message was delivered, over 10 minutes after you sent it; please send/,
      );
      assert.match(thread[3]!.text, /while typing your message into den; it may have arrived/);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
