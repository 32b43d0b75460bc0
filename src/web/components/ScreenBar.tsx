import type { ComponentChildren } from 'preact';
import { ConnectionBadge } from './ConnectionBadge.js';

/**
 * The header of every screen below the fleet: a back link, the title, the screen's own buttons, and the connection
 * badge (left out where the screen has nothing live to show, such as a page for something that is gone).
 */
export function ScreenBar({
  title,
  back,
  backLabel,
  badge = true,
  children,
}: {
  title: ComponentChildren;
  back: string;
  backLabel: string;
  badge?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <header class="bar">
      <a class="back" href={back} aria-label={backLabel}>
        ‹
      </a>
      <h1>{title}</h1>
      {children}
      {badge && <ConnectionBadge />}
    </header>
  );
}
