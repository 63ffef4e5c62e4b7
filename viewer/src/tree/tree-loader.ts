import { ApiError, errorMessage, type Api, type Json, type ObjectDescription, type ObjectQuery } from '../model/api.js';
import type { DictionarySource, TypeEntry } from '../model/dictionary.js';
import { makeNode, type TreeNode, type VarSlot } from './tree-node.js';
import { int, isPlainObjectType, LAZY_TYPES, peekTexts, referenceMap, VALUE_LENGTH } from './node-summary.js';
import { elementNodes, objectChildren, PAGE, rangeChildren } from './tree-node-builders.js';

/**
 * The object tree shown in the data view: nodes for objects, their members, list elements and
 * ranges of big lists, loaded lazily from the REST API with its paging parameters. What an
 * answer becomes is tree-node-builders.ts's; here is when and how it is fetched.
 */

/** Exported from here as before the node builders moved out. */
export { PAGE };

/** Elements of referenced lists fetched for inline previews (`[1, 2, 3, …]`). */
const PREVIEW = 12;
/** Plain objects per expanded node whose fields are fetched for the value column. */
const PEEK_LIMIT = PAGE;

export class TreeLoader {
  private readonly cache = new Map<string, Promise<ObjectDescription>>();
  private updateScheduled = false;
  /** Called (at most once per frame) when rows got better values in the background. */
  onUpdate: (() => void) | undefined;

  /** One-line texts of objects by id (storage-inspector's `/api/v1/summaries`), where the server has them: a Lazy's row shows what it holds. */
  summaries: ((ids: readonly string[]) => Promise<ReadonlyMap<string, string>>) | undefined;

  constructor(
    private readonly api: Api,
    private readonly types: DictionarySource,
  ) {}

  /** Forget every loaded answer (the storage changed). */
  clear(): void {
    this.cache.clear();
  }

  /** An object description, shared between identical requests until the storage changes. */
  fetch(oid: string, query: ObjectQuery): Promise<ObjectDescription> {
    const url = this.api.objectUrl(oid, query);
    let pending = this.cache.get(url);
    if (pending === undefined) {
      pending = this.api.object(oid, query);
      this.cache.set(url, pending);
      pending.catch(() => this.cache.delete(url));
    }
    return pending;
  }

  rootNode(oid: string, label: string): TreeNode {
    return makeNode(undefined, 'root', oid === '0' ? 'null' : 'object', label, { oid, expandable: oid !== '0' });
  }

  /** Children of a node: loads whatever is missing. Sets `children`, or `error`. */
  async loadChildren(node: TreeNode): Promise<void> {
    if (node.children !== undefined) return;
    node.loading = true;
    node.error = undefined;
    node.errorKind = undefined;
    try {
      if (node.kind === 'object' && node.oid !== undefined) await this.loadObject(node);
      else if ((node.kind === 'member' || node.kind === 'range') && node.slot !== undefined) await this.loadRange(node, node.slot);
      else node.children = node.children ?? [];
    } catch (error) {
      node.error = errorMessage(error);
      node.errorKind = error instanceof ApiError ? error.kind : undefined;
      node.children = undefined;
    } finally {
      node.loading = false;
      node.version++;
    }
  }

  /** Makes sure an object node has a description (for the detail panel and the value column). */
  async describe(node: TreeNode): Promise<void> {
    if (node.kind !== 'object' || node.oid === undefined || node.desc !== undefined) return;
    try {
      const query: ObjectQuery = { valueLength: VALUE_LENGTH, variableLength: PREVIEW };
      node.desc = await this.fetch(node.oid, query);
      node.descUrl = this.api.objectUrl(node.oid, query);
      await this.settle(node);
    } catch (error) {
      node.error = errorMessage(error);
      node.errorKind = error instanceof ApiError ? error.kind : undefined;
      node.expandable = false;
    }
    node.version++;
    // The parent's summary may be made of this one (map entries, plain objects).
    if (node.parent !== undefined) node.parent.version++;
  }

  /** After a description arrived: expandable or not, label of a deep-linked root. */
  private async settle(node: TreeNode): Promise<void> {
    const desc = node.desc;
    if (desc === undefined) return;
    const type = await this.types.resolve(desc.typeId);
    node.expandable = !desc.simplified && (int(desc.length) > 0 || (desc.variableLength ?? []).some((c) => c !== '0') || type === undefined);
  }

  private async loadObject(node: TreeNode): Promise<void> {
    const oid = node.oid ?? '0';
    const known = node.desc;
    const big = known !== undefined && (known.variableLength ?? []).some((c) => int(c) > PAGE);
    const query: ObjectQuery = { valueLength: VALUE_LENGTH, variableLength: big ? 0 : PAGE, references: true };
    let desc: ObjectDescription;
    try {
      desc = await this.fetch(oid, query);
      node.descUrl = this.api.objectUrl(oid, query);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'unreachable') throw error;
      // Often a referenced object fails (missing, or unreadable for the service): load this one
      // alone and its references one by one.
      const plain = { ...query, references: false };
      desc = await this.fetch(oid, plain);
      node.descUrl = this.api.objectUrl(oid, plain);
    }
    node.desc = desc;
    const type = await this.types.resolve(desc.typeId);
    if (type === undefined) throw new Error(`type id ${desc.typeId} of object ${oid} is not in the type dictionary`);
    const refs = referenceMap(desc);
    node.children = desc.simplified ? [] : objectChildren(node, desc, type, refs);
    const counts = desc.variableLength ?? [];
    const flat = type.instanceMembers.length === 1 && counts.length === 1;
    const count = int(counts[0]);
    if (flat && node.children.length === 0 && count > 0) {
      // A collection whose first elements did not come with the answer: load them now.
      node.children = undefined;
      const slot: VarSlot = { oid, type, index: 0, member: type.instanceMembers[0] ?? type.variable[0]!, count, firstPage: undefined };
      node.slot = slot;
      await this.loadRange(node, slot);
    }
    node.children = node.children ?? [];
    node.expandable = node.children.length > 0;
    await this.resolveReferences(node.children);
    void this.peekAll(node.children);
  }

  private async loadRange(node: TreeNode, slot: VarSlot): Promise<void> {
    const from = node.from ?? 0;
    const to = node.to ?? slot.count - 1;
    const n = to - from + 1;
    if (n > PAGE) {
      node.children = rangeChildren(node, slot, from, to);
      return;
    }
    let window: readonly Json[] = [];
    let refs: ReadonlyMap<string, ObjectDescription> = new Map();
    if (from === 0 && slot.firstPage !== undefined && slot.firstPage.length >= n) {
      window = slot.firstPage.slice(0, n);
      refs = slot.firstRefs ?? refs;
    } else {
      const query: ObjectQuery = { variableOffset: from, variableLength: n, valueLength: VALUE_LENGTH, references: slot.index === 0 };
      let desc: ObjectDescription;
      try {
        desc = await this.fetch(slot.oid, query);
      } catch (error) {
        if (!query.references || (error instanceof ApiError && error.kind === 'unreachable')) throw error;
        desc = await this.fetch(slot.oid, { ...query, references: false });
      }
      const found = desc.data[int(desc.length) + slot.index];
      window = Array.isArray(found) ? found : [];
      refs = referenceMap(desc);
    }
    node.children = elementNodes(node, slot, window, from, refs);
    await this.resolveReferences(node.children);
    void this.peekAll(node.children);
  }

  /** Fetches the descriptions that the references answer did not include, a few at a time. */
  private async resolveReferences(nodes: readonly TreeNode[]): Promise<void> {
    const missing: TreeNode[] = [];
    const walk = (list: readonly TreeNode[]): void => {
      for (const n of list) {
        if (n.kind === 'object' && n.desc === undefined && n.error === undefined) missing.push(n);
        if (n.kind === 'entry' && n.children !== undefined) walk(n.children);
      }
    };
    walk(nodes);
    void this.summarizeLazies(nodes);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) {
        const node = missing[next++];
        if (node !== undefined) await this.describe(node);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  /**
   * Fetches, in the background, the fields of plain objects among `nodes` (one request each, with
   * `references=true`), so that their rows read `{title: "Dune", genre: FICTION, …}`.
   */
  private async peekAll(nodes: readonly TreeNode[]): Promise<void> {
    const candidates: { node: TreeNode; type: TypeEntry }[] = [];
    const walk = (list: readonly TreeNode[]): void => {
      for (const n of list) {
        if (candidates.length >= PEEK_LIMIT) return;
        if (n.kind === 'entry' && n.children !== undefined) walk(n.children);
        if (n.kind !== 'object' || n.desc === undefined || n.desc.simplified || n.peek !== undefined) continue;
        const type = this.types.current().get(n.desc.typeId);
        if (type === undefined || !isPlainObjectType(type)) continue;
        candidates.push({ node: n, type });
      }
    };
    walk(nodes);
    void this.summarizeLazies(nodes);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < candidates.length) {
        const candidate = candidates[next++];
        if (candidate === undefined) continue;
        const { node, type } = candidate;
        try {
          const desc = await this.fetch(node.oid ?? '0', { references: true, variableLength: 0, valueLength: 80 });
          node.peek = peekTexts(desc, type, this.types.current());
          node.version++;
          if (node.parent?.kind === 'entry') node.parent.version++;
          this.scheduleUpdate();
        } catch {
          // the plain summary stays
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  }

  /** The subjects of the Lazy references among `nodes`, summarized in one request. */
  private async summarizeLazies(nodes: readonly TreeNode[]): Promise<void> {
    const summaries = this.summaries;
    if (summaries === undefined) return;
    const lazies = new Map<string, TreeNode[]>();
    const walk = (list: readonly TreeNode[]): void => {
      for (const n of list) {
        if (lazies.size >= PEEK_LIMIT) return;
        if (n.kind === 'entry' && n.children !== undefined) walk(n.children);
        if (n.kind !== 'object' || n.desc === undefined || n.desc.simplified || n.subjectSummary !== undefined) continue;
        const subject = n.desc.data[0];
        if (typeof subject !== 'string' || subject === '0' || !LAZY_TYPES.has(this.types.current().get(n.desc.typeId)?.name ?? '')) continue;
        lazies.set(subject, [...(lazies.get(subject) ?? []), n]);
      }
    };
    walk(nodes);
    if (lazies.size === 0) return;
    try {
      const texts = await summaries([...lazies.keys()]);
      for (const [subject, held] of lazies) {
        const text = texts.get(subject);
        if (text === undefined) continue;
        for (const node of held) {
          node.subjectSummary = text;
          node.version++;
          if (node.parent?.kind === 'entry') node.parent.version++;
        }
      }
      this.scheduleUpdate();
    } catch {
      // the Lazy's id stays
    }
  }

  private scheduleUpdate(): void {
    if (this.updateScheduled) return;
    this.updateScheduled = true;
    requestAnimationFrame(() => {
      this.updateScheduled = false;
      this.onUpdate?.();
    });
  }

  /** The complete text of a (possibly truncated) value. */
  async fullValue(node: TreeNode): Promise<string> {
    if (node.kind === 'object' && node.oid !== undefined) {
      const desc = await this.api.object(node.oid);
      const first = desc.data[0];
      return typeof first === 'string' ? first : JSON.stringify(desc.data);
    }
    const source = node.source;
    if (source === undefined) return node.value ?? '';
    const query: ObjectQuery =
      source.varIndex !== undefined
        ? { fixedLength: 0, variableOffset: source.element ?? 0, variableLength: 1 }
        : { fixedOffset: source.fixedIndex ?? 0, fixedLength: 1, variableLength: 0 };
    const desc = await this.api.object(source.oid, query);
    let value: Json | undefined = source.varIndex !== undefined ? desc.data[source.varIndex] : desc.data[0];
    if (source.varIndex !== undefined) value = Array.isArray(value) ? value[0] : undefined;
    for (const i of source.path ?? []) value = Array.isArray(value) ? value[i] : undefined;
    if (Array.isArray(value)) return value.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('');
    return value ?? '';
  }
}
