// What a pool thread loads for a turn's work. zod costs a thread about 10 MB (benchmarks/idle-rss.ts, after-turns),
// so reply capture and usage reads run on readers free of it, reached without the harness table.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, it } from 'node:test';

const dist = (rel: string) => fileURLToPath(new URL(`../../${rel}`, import.meta.url));
const fixture = (rel: string) => fileURLToPath(new URL(`../../../test/fixtures/${rel}`, import.meta.url));

/** Runs `body` in a fresh thread (`load(rel)` imports from dist); resolves to what it returns and whether zod loaded. */
function inThread(body: string): Promise<{ result: unknown; zod: boolean }> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const load = (rel) => import(require('node:path').join(workerData.dist, rel));
    (async () => { ${body} })().then(
      (result) => parentPort.postMessage({ result, zod: '__zod_globalConfig' in globalThis }),
      (err) => parentPort.postMessage({ error: String(err && err.stack || err) }),
    );`;
  return new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, workerData: { dist: dist('') } });
    w.once('message', (m: { result: unknown; zod: boolean; error?: string }) => {
      void w.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve(m);
    });
    w.once('error', reject);
  });
}

describe('a pool thread', () => {
  it("captures Claude's and Codex's replies and reads their turns' usage without loading zod", async () => {
    const claude = JSON.stringify(fixture('transcripts/plain.jsonl'));
    const codex = JSON.stringify(fixture('transcripts/codex-tui-reply.jsonl'));
    const rollout = JSON.stringify(fixture('codex-rollouts/exec-two-turns.jsonl'));
    const { result, zod } = await inThread(`
      const pool = await load('workers/pool-worker.js');
      const replies = [
        await pool.captureReplyTask({ transcript: ${claude}, prompts: [{ prompt: '[Leo Chat] What is 2+2?' }] }),
        await pool.captureReplyTask({
          transcript: ${codex}, format: 'codex', prompts: [{ prompt: '[Leo Chat] what is 6 x 7' }],
        }),
      ].map((c) => c[0].result.kind);
      const usage = [
        await pool.readTurnUsage({ format: 'claude', transcript: ${claude} }),
        await pool.readTurnUsage({ format: 'claude', transcript: ${claude}, ended: true }),
        await pool.readTurnUsage({ format: 'codex', transcript: ${rollout} }),
      ].map((u) => u !== null && u.tokens.output_tokens > 0);
      return { replies, usage };
    `);
    assert.deepEqual(result, { replies: ['reply', 'reply'], usage: [true, true, true] });
    assert.equal(zod, false, 'zod stayed out of the thread');
  });

  it('sees zod load when the harness table does (the probe can tell)', async () => {
    const { zod } = await inThread(`await load('src/harnesses/index.js');`);
    assert.equal(zod, true);
  });
});
