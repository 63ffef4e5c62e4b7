import { escapeInvisible, hasInvisible, visibleNodes } from './invisible.js';

/**
 * A tiny element builder: `h('div', { class: 'x', onclick }, 'text', child)`. Texts (children,
 * `title` and `aria-label`) show invisible format characters as visible escapes (invisible.ts):
 * what the viewer shows comes mostly from stored strings.
 */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (attrs !== null) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on') && typeof value === 'function') {
        element.addEventListener(key.slice(2), value);
      } else if (key === 'class') {
        element.className = String(value);
      } else if (key === 'title' || key === 'aria-label') {
        element.setAttribute(key, escapeInvisible(String(value)));
      } else if (value === true) {
        element.setAttribute(key, '');
      } else {
        element.setAttribute(key, String(value));
      }
    }
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child);
    else if (child === null || child === undefined || child === false) continue;
    else if (typeof child === 'string' && hasInvisible(child)) for (const node of visibleNodes(child)) parent.appendChild(node);
    else parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

export function clear(element: Element, ...children: (Child | Child[])[]): void {
  element.replaceChildren();
  append(element, children);
}
