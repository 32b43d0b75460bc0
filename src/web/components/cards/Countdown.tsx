import { useEffect, useState } from 'preact/hooks';

/** "1:05" for 65 s; whole seconds, rounded up so it reaches 0:00 only as the deadline passes. */
export function timeLeft(deadline: string, now: number): string {
  const s = Math.max(0, Math.ceil((Date.parse(deadline) - now) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** How long chat keeps waiting on a prompt, counted down each second. */
export function Countdown({ deadline }: { deadline: string }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [deadline]);
  return (
    <p class="countdown muted" role="timer" aria-live="off">
      Chat waits <strong>{timeLeft(deadline, now)}</strong> more; the terminal can answer too
    </p>
  );
}
