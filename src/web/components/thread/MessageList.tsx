import { forwardRef, memo } from 'preact/compat';
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { Virtualizer, type CustomItemComponentProps, type VirtualizerHandle } from 'virtua';
import type { Message } from '../../../wire/message.js';
import {
  focus,
  followRequest,
  loadingOlder,
  loadNewer,
  loadOlder,
  messages,
  newer,
  older,
  openLatest,
  seenAll,
  unseen,
} from '../../stores/thread.js';
import { MessageView } from './MessageView.js';

/** Near enough to the top or the bottom to load the next page, in px. */
const EDGE = 600;
/** Near enough to the bottom to count as at it (following new messages), in px. */
const AT_BOTTOM = 24;
const HIGHLIGHT_MS = 2500;
/** After a resize, scroll events are the resize's for this long, not the reader's. */
const SETTLE_MS = 400;
/** How long virtua may still re-aim a scrollToIndex (150 ms after the last row measured), with a margin. */
const FOLLOW_AIM_MS = 600;

/** A row re-renders only when its message changes, not whenever the list does (markdown is not free). */
const Row = memo(MessageView);

/**
 * One row of the virtualized list (virtua positions and measures it through the forwarded ref); the message the
 * thread was opened at is highlighted for a moment.
 */
const Item = forwardRef<HTMLLIElement, CustomItemComponentProps>(({ style, index, children }, ref) => {
  // peek: a row re-renders when virtua hands it another message, not on every change to the list.
  const m = messages.peek()[index];
  return (
    <li ref={ref} style={style} class={m && m.id === focus.value ? 'row row-focus' : 'row'}>
      {children}
    </li>
  );
});

/**
 * The thread's messages, virtualized with virtua: only the rows near the viewport are in the DOM, each measured as
 * it renders (markdown, images that load late, cards that grow when answered). Older pages load above with the
 * reading position kept (virtua's `shift` keeps the distance from the end when rows are prepended); newer pages load
 * below when the window stops short of the live end. At the bottom, new messages are followed, and rows that grow
 * after they render (markdown, images, cards) do not stop that: only the reader moving up does. Scrolled up, the view
 * stays and a pill counts them; the owner's own send follows again.
 */
export function MessageList({ agent }: { agent: string }) {
  const scroller = useRef<HTMLDivElement>(null);
  const list = useRef<VirtualizerHandle>(null);
  const following = useRef(true);
  const last = useRef({ offset: 0, size: 0, viewport: 0 });
  const scrolledTo = useRef<string | null>(null);
  const shown = messages.value;
  const target = focus.value;

  // Rows went in above the first one: keep the distance from the end so what is on screen stays put.
  const firstId = useRef<string | undefined>(undefined);
  const shift = firstId.current !== undefined && shown.length > 0 && shown[0]!.id < firstId.current;
  firstId.current = shown[0]?.id;

  // virtua's scrollToIndex keeps re-aiming at the end for a while as rows are measured (FOLLOW_AIM_MS); a reader who
  // flicks up inside that window must not be pulled back, so onScroll hands virtua the reader's offset instead (which
  // virtua then holds while rows are measured, as it held the end).
  const aimedAt = useRef(0);
  const toEnd = () => {
    const h = list.current;
    const n = messages.peek().length;
    if (!h || n === 0 || newer.peek() !== null) return;
    aimedAt.current = performance.now();
    h.scrollToIndex(n - 1, { align: 'end' });
  };

  useLayoutEffect(() => {
    const h = list.current;
    // A thread (re)opened at its newest page starts at the bottom.
    if (shown.length === 0) following.current = true;
    if (!h || shown.length === 0) return;
    if (target && scrolledTo.current !== target) {
      const i = shown.findIndex((m) => m.id === target);
      if (i >= 0) {
        scrolledTo.current = target;
        following.current = false;
        h.scrollToIndex(i, { align: 'center' });
      }
    } else if (following.current && newer.peek() === null) {
      toEnd();
      seenAll();
    }
  }, [shown, target]);

  // Rows measured anew after they rendered (markdown loading, an image, a card) and a resized list (a rotated phone,
  // a wider window) move the end without the reader scrolling: while following, go after it, and for a moment let
  // no scroll event the resize causes count as the reader moving away.
  const resizedAt = useRef(0);
  useEffect(() => {
    const box = scroller.current;
    const content = box?.firstElementChild;
    if (!box || !content) return;
    const watch = new ResizeObserver(() => {
      if (!following.current) return;
      resizedAt.current = performance.now();
      toEnd();
    });
    watch.observe(box);
    watch.observe(content);
    return () => watch.disconnect();
  }, []);

  // The owner sent a message into this thread: back to the newest, following it again.
  const sent = followRequest.value;
  useEffect(() => {
    if (sent === 0) return;
    following.current = true;
    if (newer.peek() !== null) void openLatest();
    else toEnd();
    seenAll();
  }, [sent]);

  // The highlight of the message opened at fades after a moment.
  useEffect(() => {
    if (!target) return;
    const t = setTimeout(() => (focus.value = null), HIGHLIGHT_MS);
    return () => clearTimeout(t);
  }, [target]);

  const onScroll = (offset: number) => {
    const h = list.current;
    if (!h) return;
    const fromBottom = h.scrollSize - h.viewportSize - offset;
    // Up with nothing resized is the reader's doing; a resize moves the offset by itself, though never by more than a
    // screen: a longer move just after a resize is the reader's too (a jump to the top to read back).
    const prev = last.current;
    const resizing = performance.now() - resizedAt.current < SETTLE_MS;
    const unresized = !resizing && h.scrollSize === prev.size && h.viewportSize === prev.viewport;
    // A row that shrinks at the end (a card answered) pulls the offset up before any observer reports the resize; the
    // scroller is then still at its very end, where no reader who moved up could be.
    const box = scroller.current;
    const clamped = box !== null && box.scrollHeight - box.clientHeight - box.scrollTop < 1;
    const movedUp = !clamped && offset < prev.offset - 1 && (unresized || prev.offset - offset > h.viewportSize);
    last.current = { offset, size: h.scrollSize, viewport: h.viewportSize };
    if (fromBottom < AT_BOTTOM && newer.value === null) following.current = true;
    // Away from the bottom without moving up: the content grew under a reader who was following.
    else if (movedUp || newer.value !== null) {
      following.current = false;
      // Near the top, an older page is about to go in above and virtua's shift must move the offset: no pin there.
      if (movedUp && offset >= EDGE && performance.now() - aimedAt.current < FOLLOW_AIM_MS) h.scrollTo(offset);
    } else if (following.current) toEnd();
    if (following.current) seenAll();
    if (offset < EDGE && older.value) void loadOlder();
    if (fromBottom < EDGE && newer.value) void loadNewer();
  };

  const toLatest = () => {
    following.current = true;
    if (newer.value !== null) void openLatest();
    else toEnd();
    seenAll();
  };

  const fresh = unseen.value;
  return (
    <div class="messages-box">
      {loadingOlder.value && (
        <p class="msg-more muted" data-more="older">
          Loading older messages…
        </p>
      )}
      <div
        class="messages"
        ref={scroller}
        data-count={shown.length}
        tabIndex={0}
        role="region"
        aria-label={`Messages with ${agent}`}
      >
        <Virtualizer ref={list} scrollRef={scroller} data={shown} shift={shift} as="ol" item={Item} onScroll={onScroll}>
          {(m: Message) => <Row key={m.id} m={m} />}
        </Virtualizer>
      </div>
      {fresh > 0 && (
        <button type="button" class="new-pill" data-pill onClick={toLatest}>
          {fresh === 1 ? '1 new message' : `${fresh} new messages`} ↓
        </button>
      )}
    </div>
  );
}
