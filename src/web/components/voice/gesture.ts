/**
 * The microphone button's gestures, as a pure state machine. A press starts recording. Released after HOLD_MS it was
 * hold-to-talk: stop and send. Released sooner it was a tap: recording goes on until the next press (tap to toggle).
 * Sliding off the button while holding, or Esc at any time, cancels.
 */
export const HOLD_MS = 400;

export type Gesture = { kind: 'idle' } | { kind: 'holding'; since: number } | { kind: 'toggled' };
export type GestureEvent = { type: 'down' | 'up'; at: number } | { type: 'leave' | 'cancel' | 'reset' };
export type GestureAction = 'start' | 'send' | 'cancel' | null;

export const IDLE: Gesture = { kind: 'idle' };

export function step(g: Gesture, e: GestureEvent): { next: Gesture; action: GestureAction } {
  switch (e.type) {
    case 'down':
      if (g.kind === 'idle') return { next: { kind: 'holding', since: e.at }, action: 'start' };
      if (g.kind === 'toggled') return { next: IDLE, action: 'send' };
      return { next: g, action: null };
    case 'up':
      if (g.kind !== 'holding') return { next: g, action: null };
      return e.at - g.since >= HOLD_MS ? { next: IDLE, action: 'send' } : { next: { kind: 'toggled' }, action: null };
    case 'leave':
      return g.kind === 'holding' ? { next: IDLE, action: 'cancel' } : { next: g, action: null };
    case 'cancel':
      return { next: IDLE, action: g.kind === 'idle' ? null : 'cancel' };
    case 'reset':
      // The recording ended on its own (refused, failed, too long): the button forgets the gesture.
      return { next: IDLE, action: null };
  }
}
