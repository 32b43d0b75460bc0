import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import { CrashHome, countMarkers, runSeeds, sleep } from './kit.js';

const AGENT = 'asker';
const ASKS = 6;
const ANSWER = /A\d+x\d+Z/g;

describe('crash: SIGKILL while asks with deadlines are open', () => {
  it('after a restart each ask is re-armed (answerable, expires on time) or expired at once, exactly once', async (t) => {
    await runSeeds(t, 'asks', { ciSeeds: 4, parallel: 2, file: 'crash/asks' }, (seed, rng) =>
      CrashHome.use(async (h) => {
        await h.start();
        await h.spawnAgent(AGENT, 'sink');

        // The first ask has no deadline; short ones (1.5–4 s) come due before the kill or while the daemon is down,
        // long ones (8–13 s) mostly outlive the restart and must be re-armed.
        const plan = Array.from({ length: ASKS }, (_, i) => ({
          question: `Q${seed}x${i}Z?`,
          timeoutS: i === 0 ? 0 : i % 2 ? rng.int(15, 40) / 10 : rng.int(80, 130) / 10,
        }));
        for (const p of plan)
          // The call blocks until the ask settles; the kill cuts it, as it would cut an agent's MCP call.
          void h
            .agentOp(AGENT, 'ask', { question: p.question, ...(p.timeoutS ? { timeout_s: p.timeoutS } : {}) })
            .catch(() => undefined);
        const stored = await until(
          'the asks to be stored',
          async () => {
            const asks = (await h.thread(AGENT)).filter((m) => m.kind === 'ask');
            return asks.length === ASKS && asks;
          },
          10_000,
        );
        const deadlineOf = new Map(stored.map((m) => [m.id, m.deadline ? Date.parse(m.deadline) : null]));
        assert.equal([...deadlineOf.values()].filter((d) => d === null).length, 1, 'one ask without a deadline');

        // Kill around a short ask's deadline (its expiry moment) or at a random moment, then stay down a while; the
        // restart itself may be killed too (that is when the asks are re-armed or expired).
        const short = stored.filter((m) => m.deadline && plan.find((p) => p.question === m.text)!.timeoutS < 5);
        const killAt =
          rng() < 0.6 ? Date.parse(rng.pick(short).deadline!) + rng.int(-400, 400) : Date.now() + rng.int(0, 3000);
        await sleep(killAt - Date.now());
        await h.kill();
        await sleep(rng.int(0, 2000));
        if (rng() < 0.5) await h.startAndKill(rng.int(100, 1500));
        const spawnedAt = Date.now();
        await h.start();

        const sse = await SseClient.open({ port: h.port }, '/api/v1/events', h.operatorToken);
        try {
          await sse.waitFor(1);
          const atRestart = await h.thread(AGENT);
          const readAt = Date.now();
          const asks = atRestart.filter((m) => m.kind === 'ask');
          assert.equal(asks.length, ASKS, 'every ask survives the restart');
          for (const m of asks) {
            const dl = deadlineOf.get(m.id)!;
            if (dl === null) assert.equal(m.state, 'open', 'an ask without a deadline stays open');
            else if (dl < spawnedAt) {
              assert.equal(m.state, 'expired', `${m.text} passed its deadline while down: expired at once`);
              assert.equal(m.closed_reason, 'timeout');
            } else if (dl - 50 > readAt) assert.equal(m.state, 'open', `${m.text} is still before its deadline`);
          }

          // Re-armed asks are answerable: about half are answered (the answer reaches the agent as a reply).
          const open = asks.filter((m) => m.state === 'open');
          const answered = new Map<string, string>();
          for (const m of open) {
            if (rng() < 0.5) continue;
            const marker = `A${seed}x${plan.findIndex((p) => p.question === m.text)}Z`;
            const r = await h.op('POST', `/api/v1/chat/${AGENT}/messages/${m.id}/answer`, { text: marker });
            const dl = deadlineOf.get(m.id);
            if (r.status === 409 && dl !== null && Date.now() >= dl!) continue;
            assert.equal(r.status, 200, `answer ${m.text}: ${r.text}`);
            answered.set(m.id, marker);
          }

          // The rest expire at their deadline: never before (every look that ended before it saw the ask open, with
          // 50 ms of slack: a Node timer is armed against the event loop's cached time, so it may run a few ms early),
          // and within 3 s after it (slack for a loaded 2-core machine).
          const waiting = open.filter((m) => !answered.has(m.id) && deadlineOf.get(m.id) !== null);
          const lastDeadline = Math.max(0, ...waiting.map((m) => deadlineOf.get(m.id)!));
          const seenExpired = new Map<string, number>();
          while (waiting.some((m) => !seenExpired.has(m.id)) && Date.now() < lastDeadline + 3000) {
            const look = await h.thread(AGENT);
            const lookedAt = Date.now();
            for (const m of waiting) {
              const now = look.find((x) => x.id === m.id)!;
              if (lookedAt < deadlineOf.get(m.id)! - 50) assert.equal(now.state, 'open', `${m.text} expired early`);
              if (now.state !== 'open' && !seenExpired.has(m.id)) seenExpired.set(m.id, lookedAt);
            }
            await sleep(150);
          }
          for (const m of waiting)
            assert.ok(seenExpired.get(m.id)! - deadlineOf.get(m.id)! <= 3000, `${m.text} expired by its deadline`);

          const final = await until(
            'late answers to be delivered',
            async () => {
              const msgs = await h.thread(AGENT);
              const replies = msgs.filter((m) => m.direction === 'in' && m.reply_to && answered.has(m.reply_to));
              return replies.every((m) => m.state === 'delivered') && msgs;
            },
            15_000,
          );
          // Only a delivery's first line: the Answer: line below it repeats the text.
          const read = countMarkers(
            (await h.linesReadShowing(AGENT, [...answered.values()])).filter((l) => l.startsWith('GOT [Leo Chat] ')),
            ANSWER,
          );
          for (const m of final.filter((x) => x.kind === 'ask')) {
            const dl = deadlineOf.get(m.id)!;
            const expiredEvents = sse.events.filter(
              (e) => e.event === 'chat.updated' && e.data.message.id === m.id && e.data.message.state === 'expired',
            ).length;
            const replies = final.filter((x) => x.direction === 'in' && x.reply_to === m.id);
            if (answered.has(m.id)) {
              assert.equal(m.state, 'answered');
              assert.equal(replies.length, 1, `${m.text}'s answer is delivered to the agent once`);
              assert.equal(read.get(answered.get(m.id)!), 1, `${m.text}'s answer typed into the pane once`);
              assert.deepEqual(
                (await h.agentOp(AGENT, 'ask', { message_id: m.id })).json.data.text,
                answered.get(m.id),
                'a resume after the restart reads the stored answer',
              );
            } else if (dl === null) assert.equal(m.state, 'open', 'without a deadline it waits as long as it takes');
            else {
              assert.equal(m.state, 'expired', `${m.text} expired by its deadline`);
              assert.equal(m.closed_reason, 'timeout');
              assert.equal(replies.length, 0);
              // Expired at once means before the listeners opened: no event after the restart. Open at the first
              // look means exactly one. Between the two (it expired as we subscribed), at most one.
              const expected = dl < spawnedAt ? 0 : open.some((x) => x.id === m.id) ? 1 : expiredEvents && 1;
              assert.equal(expiredEvents, expected, `${m.text} expired exactly once`);
              const resumed = (await h.agentOp(AGENT, 'ask', { message_id: m.id })).json.data;
              assert.equal(resumed.timed_out, true);
              assert.equal(resumed.closed_reason, 'timeout');
              const late = await h.op('POST', `/api/v1/chat/${AGENT}/messages/${m.id}/answer`, { text: 'too late' });
              assert.equal(late.status, 409, 'an expired ask cannot be settled again');
            }
          }
          return {
            kills: h.kills,
            'deadline passed while down': stored.filter((m) => h.wasDownAt(deadlineOf.get(m.id) ?? NaN)).length,
            're-armed': open.filter((m) => deadlineOf.get(m.id) !== null).length,
            'answered after restart': answered.size,
          };
        } finally {
          sse.close();
        }
      }),
    );
  });
});
