import { h } from './dom.js';

/**
 * A handle between two panes of a CSS grid that sets the width of the second (or first) pane:
 * dragged with the pointer, or moved with the arrow keys when focused (role "separator"). The
 * width is a CSS variable on the container, remembered in the browser per name.
 */
export function splitter(container: HTMLElement, name: string, variable: string, side: 'first' | 'second', min: number): HTMLElement {
  const key = `storage-inspector.split.${name}`;
  const saved = Number(localStorage.getItem(key) ?? 'NaN');
  if (Number.isFinite(saved) && saved >= min) container.style.setProperty(variable, `${saved}px`);
  const handle = h('div', { class: 'splitter', role: 'separator', tabindex: '0', 'aria-orientation': 'vertical', 'aria-label': 'Resize the panes (arrow keys)', title: 'drag to resize' });
  const set = (width: number): void => {
    const max = Math.max(min, container.clientWidth - min);
    const clamped = Math.round(Math.max(min, Math.min(max, width)));
    container.style.setProperty(variable, `${clamped}px`);
    handle.setAttribute('aria-valuenow', String(clamped));
    try {
      localStorage.setItem(key, String(clamped));
    } catch {
      // storage unavailable: the width lasts until the page is left
    }
  };
  const paneWidth = (): number => {
    const pane = side === 'first' ? handle.previousElementSibling : handle.nextElementSibling;
    return pane instanceof HTMLElement ? pane.getBoundingClientRect().width : min;
  };
  handle.addEventListener('pointerdown', (event) => {
    event.preventDefault();
    const startX = event.clientX;
    const start = paneWidth();
    const move = (e: PointerEvent): void => set(side === 'first' ? start + e.clientX - startX : start - (e.clientX - startX));
    const up = (): void => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  });
  handle.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    const step = (event.key === 'ArrowRight') === (side === 'first') ? 24 : -24;
    set(paneWidth() + step);
  });
  return handle;
}
