import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import type { TreeNode } from '../tree/tree-node.js';
import { isLazySubject } from '../tree/node-summary.js';

/** The part of the Data view's tree state the crumb bar draws from. */
export interface CrumbState {
  /** `ROOT` for the storage root, else the object id the tree starts at. */
  readonly rootKey: string;
  readonly selected: TreeNode | undefined;
}

/**
 * The Data view's crumb bar (data-view.ts): the path from the tree's start to the selected node,
 * each step a button that selects it, and a way home when the tree starts at another object.
 */
export function renderCrumbs(crumbs: HTMLElement, state: CrumbState, app: ViewHost, select: (node: TreeNode) => void): void {
  const chain: TreeNode[] = [];
  // A Lazy's `subject` is no step of its own (the Lazy stands for what it holds), unless selected.
  for (let n = state.selected; n !== undefined; n = n.parent) if (n === state.selected || !isLazySubject(n)) chain.unshift(n);
  const items: (HTMLElement | string)[] = [];
  if (state.rootKey !== 'ROOT') {
    items.push(h('a', { class: 'crumb home', href: app.href({ view: 'data', instance: undefined, oid: undefined, path: [] }), title: 'Start again from the storage root' }, '⌂ storage root'));
    items.push(h('span', { class: 'sep', 'aria-hidden': 'true' }, '›'));
  }
  chain.forEach((node, i) => {
    if (i > 0) items.push(h('span', { class: 'sep', 'aria-hidden': 'true' }, '›'));
    const label = i === 0 && state.rootKey !== 'ROOT' ? `${node.label} ${node.oid ?? ''}` : node.label;
    const isLast = i === chain.length - 1;
    items.push(
      h('button', { type: 'button', class: `crumb${isLast ? ' current' : ''}`, 'aria-current': isLast ? 'location' : undefined, onclick: () => select(node) }, label),
    );
  });
  clear(crumbs, items);
}
