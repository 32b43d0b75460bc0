import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { evaluate, trafficLines } from '../../benchmarks/soak/checks.js';
import { runSoak } from '../../benchmarks/soak/run-soak.js';
import { nativeBinDir } from '../../src/native/programs.js';

const whisperBuilt = fs.existsSync(path.join(nativeBinDir(), 'whisper-cli'));

describe(
  'soak, short: the real daemon under subscribers, sends, voice notes and sweeps',
  { skip: whisperBuilt ? false : 'whisper-cli is not built (run: node native-bins/setup.mjs --for-tests)' },
  () => {
    it(
      'loses nothing, answers no errors, drops no subscriber, and gives back its descriptors',
      { timeout: 120_000 },
      async () => {
        const r = await runSoak({
          seconds: 20,
          subscribers: 200,
          rate: 20,
          agents: 20,
          noteEvery: 10,
          sampleEvery: 1,
          churn: 2,
        });
        const failed = evaluate(r, { short: true }).filter((c) => !c.ok);
        assert.deepEqual(failed, [], trafficLines(r).join('\n'));
        // Holding the full rate is not judged on a shared CI machine (the sender skips sends while the daemon is
        // behind), but a run that did almost nothing would prove nothing.
        assert.ok(r.sends.acked >= 20 * 20 * 0.25, `only ${r.sends.acked} sends: ${trafficLines(r)[0]}`);
        assert.ok(r.notes.acked >= 2, trafficLines(r)[1]);
      },
    );
  },
);
