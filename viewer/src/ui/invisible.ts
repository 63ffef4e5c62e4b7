/**
 * Stored texts may hold characters that show nothing themselves but change what is around them:
 * bidirectional controls (U+202E turns `exe.txt` around), zero-width characters, U+FEFF, line and
 * paragraph separators (every Unicode format character, category Cf, and U+2028/2029). Shown raw
 * they let a stored string pose as another (display spoofing), so the viewer shows each as a
 * visible escape (`\u202E`, styled apart by `.v-escape`) wherever it shows a text; copying
 * a selection gives the real characters back (see `copyRealText`).
 */

const INVISIBLE = /[\p{Cf}\u2028\u2029]/u;
const INVISIBLE_ALL = /[\p{Cf}\u2028\u2029]/gu;

const NAMES: Readonly<Record<number, string>> = {
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE (BOM)',
};

export function hasInvisible(text: string): boolean {
  return INVISIBLE.test(text);
}

/** `\u202E` (`\u{E0041}` beyond the BMP). */
export function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/** The text with every invisible character as its escape (for attributes such as `title`). */
export function escapeInvisible(text: string): string {
  return hasInvisible(text) ? text.replace(INVISIBLE_ALL, escapeOf) : text;
}

/** The text as nodes: plain text, and each invisible character as a styled escape holding the real one. */
export function visibleNodes(text: string): Node[] {
  const nodes: Node[] = [];
  let last = 0;
  for (const match of text.matchAll(INVISIBLE_ALL)) {
    const at = match.index;
    if (at > last) nodes.push(document.createTextNode(text.slice(last, at)));
    const char = match[0];
    const span = document.createElement('span');
    span.className = 'v-escape';
    span.dataset['char'] = char;
    const code = char.codePointAt(0) ?? 0;
    span.title = `U+${code.toString(16).toUpperCase().padStart(4, '0')} ${NAMES[code] ?? 'invisible format character'} (stored in the text)`;
    span.textContent = escapeOf(char);
    nodes.push(span);
    last = at + char.length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/** Sets an element's text, invisible characters as escapes (unchanged texts are left alone). */
export function setVisibleText(element: HTMLElement, text: string): void {
  if (!hasInvisible(text)) {
    if (element.childElementCount > 0 || element.textContent !== text) element.textContent = text;
    return;
  }
  if (shownTexts.get(element) === text && element.querySelector('.v-escape') !== null) return;
  element.replaceChildren(...visibleNodes(text));
  shownTexts.set(element, text);
}

const shownTexts = new WeakMap<Element, string>();

/** Copying a selection puts the real characters on the clipboard, not their escapes. */
export function copyRealText(root: Document): void {
  root.addEventListener('copy', (event) => {
    // The editor (and anything else) that writes the clipboard itself is left alone.
    if (event.defaultPrevented) return;
    const selection = root.getSelection();
    if (selection === null || selection.rangeCount === 0 || event.clipboardData === null) return;
    const holder = document.createElement('div');
    for (let i = 0; i < selection.rangeCount; i++) holder.append(selection.getRangeAt(i).cloneContents());
    const escapes = holder.querySelectorAll<HTMLElement>('.v-escape');
    if (escapes.length === 0) return;
    for (const span of escapes) span.replaceWith(span.dataset['char'] ?? '');
    event.clipboardData.setData('text/plain', holder.textContent ?? '');
    event.preventDefault();
  });
}
