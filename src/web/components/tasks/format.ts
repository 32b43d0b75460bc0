// Times and durations as the task screens show them, in the viewer's locale and zone.
const when = new Intl.DateTimeFormat([], { dateStyle: 'medium', timeStyle: 'short' });

export const formatWhen = (ts: string | null | undefined): string => (ts ? when.format(new Date(ts)) : '—');

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
