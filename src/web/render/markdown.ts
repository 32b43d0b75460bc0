import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

// html: false — raw HTML in an agent's text is shown as text, never parsed; DOMPurify then checks what markdown-it
// made, allowing only the tags markdown produces and http(s)/mailto links. Images stay out: an agent's markdown must
// not make the browser fetch anything (the CSP would refuse other origins anyway).
const md = new MarkdownIt({ html: false, linkify: true, breaks: true });

const ALLOWED_TAGS = [
  'p',
  'br',
  'strong',
  'em',
  'del',
  's',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** An agent's markdown as sanitized HTML, for dangerouslySetInnerHTML. */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.render(text).trim(), {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'title', 'target', 'rel', 'start'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}
