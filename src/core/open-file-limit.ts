import fs from 'node:fs';

/**
 * The process's open-file limit, soft and hard, from Linux's /proc/self/limits; null where that file does not exist
 * (macOS) or cannot be read. Node itself raises the soft limit to the hard one at start-up (as `prlimit` would), so
 * the soft figure is what the daemon really has; raising the hard limit needs privileges Leo does not take.
 */
export function openFileLimit(read: () => string = () => fs.readFileSync('/proc/self/limits', 'utf8')): {
  soft: number;
  hard: number;
} | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const m = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(text);
  if (!m) return null;
  const num = (v: string) => (v === 'unlimited' ? Number.POSITIVE_INFINITY : Number(v));
  return { soft: num(m[1]!), hard: num(m[2]!) };
}
