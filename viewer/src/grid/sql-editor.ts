import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql';
import { Prec } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { basicSetup, EditorView } from 'codemirror';
import type { SqlTable } from './sql-api.js';

/**
 * The SQL editor of the query view (CodeMirror 6, loaded only by that view as its own chunk):
 * SQL highlighting, completion of this storage's tables and columns, Ctrl+Enter (Cmd+Enter) runs.
 * Tab keeps moving the focus (CodeMirror's default), so keyboard users can leave the editor.
 */

export interface SqlEditor {
  readonly text: string;
  setText(text: string): void;
  /** Puts a text in place of the selection (at the cursor) and focuses the editor. */
  insert(text: string): void;
  /** Select the character at a 0-based offset (an error's position) and focus it. */
  markPosition(offset: number): void;
  focus(): void;
}

export function createSqlEditor(parent: HTMLElement, text: string, tables: readonly SqlTable[], run: () => void): SqlEditor {
  // In a shadow root CodeMirror styles itself with constructed style sheets, which the page's
  // Content-Security-Policy (style-src 'self') allows, unlike the <style> elements it adds to a document.
  const shadow = parent.attachShadow({ mode: 'open' });
  const view = new EditorView({
    doc: text,
    parent: shadow,
    root: shadow,
    extensions: [
      basicSetup,
      sql({ dialect: PostgreSQL, schema: namespaceOf(tables), upperCaseKeywords: true }),
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (run(), true) }])),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': 'SQL statement (Ctrl+Enter runs it)' }),
    ],
  });
  return {
    get text() {
      return view.state.doc.toString();
    },
    setText(next: string) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next } });
    },
    insert(text: string) {
      view.dispatch(view.state.replaceSelection(text));
      view.focus();
    },
    markPosition(offset: number) {
      const at = Math.max(0, Math.min(view.state.doc.length, offset));
      view.dispatch({ selection: { anchor: at, head: Math.min(view.state.doc.length, at + 1) }, scrollIntoView: true });
      view.focus();
    },
    focus() {
      view.focus();
    },
  };
}

/** Tables under their simple name where they have one, else their full name quoted, with their columns. */
function namespaceOf(tables: readonly SqlTable[]): SQLNamespace {
  const namespace: Record<string, SQLNamespace> = {};
  for (const table of tables) {
    const columns = table.columns.map((c) => ({ label: /^[a-z_][a-z0-9_]*$/.test(c.name) ? c.name : `"${c.name}"`, type: 'property', detail: c.type }));
    if (table.alias !== null) namespace[table.alias] = { self: { label: table.alias, type: 'type', detail: table.name }, children: columns };
    else namespace[table.name.replace(/\./g, '_')] = { self: { label: `"${table.name}"`, type: 'type', detail: table.kind }, children: columns };
  }
  return namespace;
}
