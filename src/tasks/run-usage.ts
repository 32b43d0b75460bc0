import fs from 'node:fs/promises';
import path from 'node:path';
import { RUN_STOPS_FILE } from '../harnesses/headless.js';
import type { Harness } from '../config/schema.js';
import { jsonlObjects } from '../core/jsonl.js';

/** What meters a turn from its Stop payload (the UsageMeter). */
export interface TurnMeter {
  onStop(agent: string, harness: Harness | null, payload: Record<string, unknown>): Promise<void>;
}

/**
 * Meters a finished headless run's turns into its owner's usage: each Stop payload the run's CLI left in the run's
 * folder (one per attempt that got that far), read and stored as an interactive turn's would be, once per turn. A
 * run that left none (its CLI reports no Stop headless, or it never got to one) adds nothing.
 */
export async function meterRun(runDir: string, owner: string, harness: Harness, meter: TurnMeter): Promise<void> {
  let text: string;
  try {
    text = await fs.readFile(path.join(runDir, RUN_STOPS_FILE), 'utf8');
  } catch {
    return;
  }
  // A line cut by a killed run is skipped.
  for (const payload of jsonlObjects(text.split('\n')))
    await meter.onStop(owner, harness, payload as Record<string, unknown>);
}
