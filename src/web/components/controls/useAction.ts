import { useState } from 'preact/hooks';
import type { Agent } from '../../../wire/fleet.js';
import { onUnpaired } from '../../stores/auth.js';
import { upsertAgent } from '../../stores/fleet.js';
import { recheckCallerAfter } from '../../stores/caller.js';

/**
 * One fleet operation at a time per form: busy while it runs, the daemon's refusal shown as it said it, and the
 * agent it returns patched into the fleet at once (the event stream confirms it moments later).
 */
export function useAction() {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async <T>(label: string, job: () => Promise<T>): Promise<T | null> => {
    setBusy(label);
    setError(null);
    try {
      const out = await job();
      if (out && typeof out === 'object' && 'name' in out && 'status' in out) upsertAgent(out as unknown as Agent);
      return out;
    } catch (err) {
      if (await onUnpaired(err)) return null;
      setError(err instanceof Error ? err.message : String(err));
      recheckCallerAfter(err);
      return null;
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, run };
}
