import { errorMessage } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { renderCrumbs } from './data-crumbs.js';
import { DataDetail } from './data-detail.js';
import { shortTypeName } from '../model/dictionary.js';
import { clear, h } from '../ui/dom.js';
import type { TreeNode } from '../tree/tree-node.js';
import { TreeGrid } from '../tree/tree-grid.js';
import { splitter } from '../ui/splitter.js';

/** A tree for one starting object, kept while the user looks elsewhere (back/forward). */
interface TreeState {
  readonly rootKey: string;
  root: TreeNode;
  selected: TreeNode | undefined;
}

const KEEP_TREES = 12;

export class DataView {
  readonly element: HTMLElement;
  private readonly crumbs: HTMLElement;
  /** Says when a link's `?path=` does not exist in the tree. */
  private readonly notice: HTMLElement;
  /** The panel beside the tree (data-detail.ts); the crumb bar is data-crumbs.ts's. */
  private readonly detail: DataDetail;
  private readonly grid: TreeGrid;
  private readonly trees = new Map<string, TreeState>();
  private state: TreeState | undefined;
  /** Incremented per navigation so that late answers of an earlier one are ignored. */
  private generation = 0;

  constructor(private readonly app: ViewHost) {
    this.grid = new TreeGrid({
      types: () => app.types.current(),
      select: (node) => this.select(node),
      toggle: (node) => void this.toggle(node),
      open: (node) => this.openObject(node),
      retry: (node) => void this.retry(node),
    });
    app.loader.onUpdate = () => {
      this.grid.render();
      const selected = this.state?.selected;
      if (selected !== undefined && this.detail.isStale(selected)) this.renderDetail();
    };
    this.crumbs = h('nav', { class: 'crumbs', 'aria-label': 'Path of the selected node' });
    this.notice = h('div', { class: 'path-notice', role: 'status', hidden: true });
    this.detail = new DataDetail(app, () => ({ node: this.state?.selected, rootLabel: this.state?.root.label ?? '' }));
    const split = h('div', { class: 'split' });
    this.element = h(
      'section',
      { class: 'view data-view', 'aria-label': 'Data' },
      this.crumbs,
      this.notice,
      split,
    );
    split.append(
      h(
        'div',
        { class: 'tree-pane' },
        this.grid.element,
        h('div', { class: 'tree-foot' }, '↑ ↓ move · → ← open / close · Enter or double-click: show an object on its own · / go to an object id'),
      ),
    );
    split.append(splitter(split, 'data', '--detail-width', 'second', 260), this.detail.element);
  }

  /** Show the tree for `oid` (undefined: the storage root) and select `path` in it. */
  async show(oid: string | undefined, path: readonly string[]): Promise<void> {
    const generation = ++this.generation;
    const rootKey = oid ?? 'ROOT';
    let state = this.trees.get(rootKey);
    if (state === undefined) {
      let root: TreeNode;
      if (oid === undefined) {
        try {
          const info = await this.app.api.root();
          if (generation !== this.generation) return;
          root = this.app.loader.rootNode(info.objectId, info.name);
        } catch (error) {
          if (generation !== this.generation) return;
          this.showProblem(errorMessage(error));
          return;
        }
      } else {
        root = this.app.loader.rootNode(oid, 'object');
      }
      state = { rootKey, root, selected: undefined };
      this.remember(state);
    }
    if (this.state !== state) {
      this.state = state;
      this.grid.setRoot(state.root);
      if (state.root.oid === '0') {
        this.setSelected(state.root, false);
        this.renderDetail();
        return;
      }
    }
    if (!state.root.expanded) await this.expand(state.root);
    if (generation !== this.generation) return;
    this.setNotice(undefined);
    let target = state.selected ?? state.root;
    if (path.length > 0) {
      const revealed = await this.reveal(state.root, path, generation);
      if (generation !== this.generation) return;
      target = revealed.node;
      if (revealed.missing !== undefined) {
        const found = path.slice(0, path.length - revealed.missing.length);
        this.setNotice(
          `The path ${path.join('/')} of this link was not found: ${revealed.missing[0] ?? ''} does not exist ` +
            (found.length === 0 ? `in ${state.root.label}. Showing ${state.root.label}.` : `below ${found.join('/')}. Showing ${found.join('/')}.`),
        );
      }
    }
    this.setSelected(target, false);
  }

  /** Loads again what failed because the server did not answer (it answers again). */
  async retryUnreachable(): Promise<void> {
    const state = this.state;
    if (state === undefined) return;
    const failed: TreeNode[] = [];
    const collect = (node: TreeNode): void => {
      if (node.errorKind === 'unreachable') failed.push(node);
      for (const child of node.children ?? []) collect(child);
    };
    collect(state.root);
    await Promise.all(
      failed.map(async (node) => {
        node.error = undefined;
        node.errorKind = undefined;
        node.version++;
        if (node.expanded || node.children === undefined) {
          node.children = undefined;
          if (node.kind === 'object') node.expandable = true;
          if (node.expanded) await this.expand(node);
        }
        if (node.kind === 'object' && node.desc === undefined) await this.app.loader.describe(node);
      }),
    );
    this.grid.render();
    this.renderDetail();
  }

  /** Whether the view shows a failure to load its start (its root). */
  get failed(): boolean {
    return this.state === undefined;
  }

  private setNotice(text: string | undefined): void {
    this.notice.textContent = text ?? '';
    this.notice.hidden = text === undefined;
  }

  /** Forget all trees: the storage changed. The current tree is reloaded keeping its open nodes. */
  async refresh(): Promise<void> {
    const state = this.state;
    this.trees.clear();
    this.detail.forgetValues();
    if (state === undefined) return;
    const generation = ++this.generation;
    const expanded = new Set<string>();
    const collect = (node: TreeNode): void => {
      if (node.expanded) expanded.add(node.key);
      for (const child of node.children ?? []) collect(child);
    };
    collect(state.root);
    const selectedKey = state.selected?.key;
    let root: TreeNode;
    if (state.rootKey === 'ROOT') {
      const info = await this.app.api.root();
      root = this.app.loader.rootNode(info.objectId, info.name);
    } else {
      root = this.app.loader.rootNode(state.rootKey, state.root.label);
    }
    const fresh: TreeState = { rootKey: state.rootKey, root, selected: undefined };
    let found: TreeNode | undefined;
    const restore = async (node: TreeNode): Promise<void> => {
      if (node.key === selectedKey) found = node;
      if (!expanded.has(node.key) || !node.expandable) return;
      await this.app.loader.loadChildren(node);
      node.expanded = true;
      await Promise.all((node.children ?? []).map(restore));
    };
    await restore(root);
    if (generation !== this.generation) return;
    this.remember(fresh);
    this.state = fresh;
    this.grid.setRoot(root);
    this.setSelected(found ?? root, true);
  }

  focus(): void {
    this.grid.focus();
  }

  /** The type dictionary was reloaded: draw type names again. */
  redraw(): void {
    this.grid.render(true);
    this.renderDetail();
  }

  private remember(state: TreeState): void {
    this.trees.delete(state.rootKey);
    this.trees.set(state.rootKey, state);
    while (this.trees.size > KEEP_TREES) {
      const oldest = this.trees.keys().next().value;
      if (oldest === undefined || oldest === this.state?.rootKey) break;
      this.trees.delete(oldest);
    }
  }

  private showProblem(message: string): void {
    this.state = undefined;
    this.grid.setRoot(this.app.loader.rootNode('0', 'ROOT'));
    clear(this.crumbs);
    clear(this.detail.element, h('div', { class: 'problem', role: 'alert' }, h('strong', null, 'Cannot show the data. '), message));
  }

  /**
   * Expands along `path` (segments without ranges); returns the last node found and, when the
   * path goes on beyond it, the segments that were not found.
   */
  private async reveal(root: TreeNode, path: readonly string[], generation: number): Promise<{ node: TreeNode; missing?: readonly string[] }> {
    let node = root;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i] as string;
      let next = await this.findChild(node, segment);
      while (next !== undefined && next.kind === 'range') {
        // Elements of big lists sit below ranges: descend into the one holding the index.
        const inner = await this.findChild(next, segment);
        if (inner === undefined) {
          next = undefined;
          break;
        }
        next = inner;
      }
      if (generation !== this.generation) return { node };
      if (next === undefined) return { node, missing: path.slice(i) };
      node = next;
    }
    return { node };
  }

  private async findChild(node: TreeNode, segment: string): Promise<TreeNode | undefined> {
    if (!node.expanded) await this.expand(node);
    const children = node.children ?? [];
    const exact = children.find((c) => c.segment === segment);
    if (exact !== undefined) return exact;
    const index = /^\[(\d+)\]$/.exec(segment);
    if (index?.[1] === undefined) return undefined;
    const i = Number(index[1]);
    return children.find((c) => c.kind === 'range' && (c.from ?? 0) <= i && i <= (c.to ?? -1));
  }

  private async expand(node: TreeNode): Promise<void> {
    if (!node.expandable && node.children === undefined && node.kind !== 'object') return;
    node.expanded = true;
    node.version++;
    if (node.children === undefined) {
      const pending = this.app.loader.loadChildren(node);
      this.grid.render();
      await pending;
    }
    if (node.parent === undefined) this.labelRoot(node);
    this.grid.render();
    if (node === this.state?.selected) this.renderDetail();
  }

  private labelRoot(node: TreeNode): void {
    if (node.label === 'object' && node.desc !== undefined) {
      const type = this.app.types.current().get(node.desc.typeId);
      if (type !== undefined) {
        node.label = shortTypeName(type.name);
        node.version++;
      }
    }
  }

  private async toggle(node: TreeNode): Promise<void> {
    if (node.expanded) {
      node.expanded = false;
      node.version++;
      if (this.state?.selected !== undefined && isBelow(this.state.selected, node)) this.setSelected(node, true);
      this.grid.render();
      return;
    }
    await this.expand(node);
  }

  private async retry(node: TreeNode): Promise<void> {
    node.error = undefined;
    node.children = undefined;
    node.version++;
    await this.expand(node);
  }

  private select(node: TreeNode): void {
    this.setSelected(node, true);
  }

  private setSelected(node: TreeNode, updateUrl: boolean): void {
    if (this.state === undefined) return;
    this.state.selected = node;
    this.grid.setSelected(node);
    renderCrumbs(this.crumbs, this.state, this.app, (n) => this.select(n));
    this.renderDetail();
    if (updateUrl) this.app.replaceRoute({ view: 'data', instance: undefined, oid: this.rootOid(), path: pathSegments(node) });
    if (node.kind === 'object' && node.desc === undefined && node.error === undefined) {
      void this.app.loader.describe(node).then(() => {
        this.grid.render();
        if (this.state?.selected === node) this.renderDetail();
      });
    }
  }

  private renderDetail(): void {
    this.detail.render();
  }

  /** Loads the selected object's path, referrers and versions again (the storage changed). */
  refreshInsights(): void {
    this.detail.refreshInsights();
  }

  private rootOid(): string | undefined {
    return this.state === undefined || this.state.rootKey === 'ROOT' ? undefined : this.state.rootKey;
  }

  private openObject(node: TreeNode): void {
    if (node.oid === undefined || node.oid === '0') return;
    if (node.parent === undefined) {
      void this.toggle(node);
      return;
    }
    this.app.navigate({ view: 'data', instance: undefined, oid: node.oid, path: [] });
  }

}

function isBelow(node: TreeNode, ancestor: TreeNode): boolean {
  for (let n = node.parent; n !== undefined; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** Path segments for the URL: member names and element indices, ranges left out. */
function pathSegments(node: TreeNode): string[] {
  const segments: string[] = [];
  for (let n: TreeNode | undefined = node; n?.parent !== undefined; n = n.parent) {
    if (n.kind !== 'range') segments.unshift(n.segment);
  }
  return segments;
}
