import { setTimeout as sleepFor } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool } from './tool.js';

const MAX_SECONDS = 60;

export const sleep = defineTool({
  name: 'sleep',
  description: `Wait for some seconds (at most ${MAX_SECONDS}), e.g. before checking on something again.`,
  params: z.object({ seconds: z.number().min(0).max(MAX_SECONDS) }),
  async run({ seconds }, ctx) {
    const started = Date.now();
    try {
      await sleepFor(seconds * 1000, undefined, { signal: ctx.signal });
      return { content: `Slept ${seconds}s.`, success: true };
    } catch {
      const slept = ((Date.now() - started) / 1000).toFixed(1);
      return { content: `Interrupted after ${slept}s: the turn was stopped.`, success: false };
    }
  },
});
