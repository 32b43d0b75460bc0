import { HarnessSchema } from '../config/schema.js';
import type { UsageMeter } from './usage-meter.js';

/**
 * At start-up, once the agents are known: each agent's last turn whose Stop the daemon may have missed while down,
 * from the transcript its last Stop or SessionStart named (the reply watch keeps it).
 */
export async function catchUpUsage(d: {
  meter: Pick<UsageMeter, 'catchUp'>;
  agents: { list(): readonly { name: string; harness: string }[] };
  transcriptOf(agent: string): string | null;
}): Promise<void> {
  for (const a of d.agents.list()) {
    const transcript = d.transcriptOf(a.name);
    const harness = HarnessSchema.safeParse(a.harness);
    if (transcript && harness.success) await d.meter.catchUp(a.name, harness.data, transcript);
  }
}
