/**
 * Redrawing without taking what the user may be pressing out of the document: chromium (and the
 * other browsers) send no click when the element pressed left the document before the button
 * was released, so a list redrawn while a background answer arrives (summaries, fields of listed
 * objects) must keep its elements and change them in place.
 */

/**
 * Makes `target` look like `source` (attributes, texts, children of the same shape), keeping
 * `target`'s elements where the shapes agree; children of another shape are replaced. Neither
 * may carry event listeners of their own (lists here handle events on their container).
 */
export function morph(target: Element, source: Element): void {
  for (const { name } of [...target.attributes]) if (!source.hasAttribute(name)) target.removeAttribute(name);
  for (const { name, value } of source.attributes) if (target.getAttribute(name) !== value) target.setAttribute(name, value);
  const from = target.childNodes;
  const to = source.childNodes;
  let same = from.length === to.length;
  for (let i = 0; same && i < to.length; i++) same = from[i]!.nodeName === to[i]!.nodeName;
  if (!same) {
    target.replaceChildren(...to);
    return;
  }
  for (let i = 0; i < to.length; i++) {
    const a = from[i]!;
    const b = to[i]!;
    if (a instanceof Element && b instanceof Element) morph(a, b);
    else if (a.nodeValue !== b.nodeValue) a.nodeValue = b.nodeValue;
  }
}

/**
 * Puts `rows` into `parent` in this order, leaving the rows that stay where they are (rows keep
 * their relative order from one drawing to the next; new ones come between).
 */
export function placeRows(parent: Element, rows: readonly Element[]): void {
  const keep = new Set<Node>(rows);
  for (let child = parent.firstChild; child !== null; ) {
    const next = child.nextSibling;
    if (!keep.has(child)) child.remove();
    child = next;
  }
  let cursor = parent.firstChild;
  for (const row of rows) {
    if (row === cursor) cursor = cursor.nextSibling;
    else parent.insertBefore(row, cursor);
  }
}
