import { errorMessage, type ChannelStatistics, type FilesStatistics } from '../model/api.js';
import type { ViewHost } from '../shell/view-host.js';
import { clear, h } from '../ui/dom.js';
import { formatTime, groupDigits, humanBytes, percent } from '../ui/format.js';

/** Storage, channel and file figures with bars of live versus total bytes. */
export class StatisticsView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly stamp: HTMLElement;
  private readonly refreshButton: HTMLButtonElement;
  private statistics: FilesStatistics | undefined;
  private loading: Promise<void> | undefined;

  constructor(private readonly app: ViewHost) {
    this.stamp = h('span', { class: 'hint' });
    this.refreshButton = h('button', { type: 'button', class: 'button', onclick: () => void this.refresh() }, '↻ Refresh');
    this.body = h('div', { class: 'stats-body' });
    this.element = h(
      'section',
      { class: 'view page-view statistics-view', 'aria-label': 'Statistics' },
      h('div', { class: 'stats-toolbar' }, h('h2', null, 'Storage files'), this.refreshButton, this.stamp),
      this.body,
    );
  }

  async show(): Promise<void> {
    if (this.statistics === undefined) await this.refresh();
  }

  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    this.refreshButton.disabled = true;
    try {
      this.statistics = await this.app.api.statistics();
      this.render(this.statistics);
      this.stamp.textContent = `Loaded ${formatTime(new Date())}; refreshed automatically when the storage changes.`;
    } catch (error) {
      clear(this.body, h('div', { class: 'problem', role: 'alert' }, h('strong', null, 'Cannot load the statistics. '), errorMessage(error)));
    } finally {
      this.refreshButton.disabled = false;
    }
  }

  private render(s: FilesStatistics): void {
    const channels = Object.entries(s.channelStatistics)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, c]) => c);
    const live = Number(s.liveDataLength);
    const total = Number(s.totalDataLength);
    const cards = h(
      'div',
      { class: 'cards' },
      card('Live data', humanBytes(live), `${groupDigits(s.liveDataLength)} bytes in the latest version of every object`),
      card('Total data', humanBytes(total), `${groupDigits(s.totalDataLength)} bytes committed to the data files`),
      card('Fill ratio', percent(live, total), 'live ÷ total: the rest is superseded object versions and gaps'),
      card('Channels', String(channels.length), 'each channel writes its own data files'),
      card('Data files', groupDigits(s.fileCount), 'files holding committed data'),
      card('Figures of', formatCreation(s.creationTime), s.creationTime),
    );
    const maxChannel = Math.max(1, ...channels.map((c) => Number(c.totalDataLength)));
    const channelChart = h(
      'div',
      { class: 'chart', role: 'list', 'aria-label': 'Live versus total bytes per channel' },
      channels.map((c) => barRow(`Channel ${c.channelIndex}`, Number(c.liveDataLength), Number(c.totalDataLength), maxChannel, `${groupDigits(c.fileCount)} file${c.fileCount === '1' ? '' : 's'}`)),
    );
    const maxFile = Math.max(1, ...channels.flatMap((c) => c.files.map((f) => Number(f.totalDataLength))));
    const fileCharts = channels.map((c) => this.channelFiles(c, maxFile));
    clear(
      this.body,
      cards,
      h('section', null, h('h3', null, 'Per channel'), legend(), channelChart),
      h('section', null, h('h3', null, 'Per data file'), h('p', { class: 'hint' }, 'Bar length: bytes in the file (same scale for all files); dark part: live bytes.'), fileCharts),
    );
  }

  private channelFiles(c: ChannelStatistics, max: number): HTMLElement {
    return h(
      'div',
      { class: 'channel-files' },
      h('h4', null, `Channel ${c.channelIndex}`, h('span', { class: 'hint' }, `  ${humanBytes(c.liveDataLength)} live of ${humanBytes(c.totalDataLength)}`)),
      h(
        'div',
        { class: 'chart', role: 'list', 'aria-label': `Files of channel ${c.channelIndex}` },
        c.files.map((f) => barRow(baseName(f.file), Number(f.liveDataLength), Number(f.totalDataLength), max, `file ${f.fileNumber}`, f.file)),
      ),
    );
  }
}

function card(label: string, value: string, title: string): HTMLElement {
  return h('div', { class: 'card', title }, h('div', { class: 'card-label' }, label), h('div', { class: 'card-value' }, value));
}

function legend(): HTMLElement {
  return h(
    'div',
    { class: 'legend' },
    h('span', null, h('span', { class: 'swatch live' }), 'live bytes'),
    h('span', null, h('span', { class: 'swatch dead' }), 'superseded versions and gaps'),
  );
}

function barRow(label: string, live: number, total: number, max: number, note: string, title?: string): HTMLElement {
  const outer = h('div', { class: 'bar' });
  outer.style.width = `${Math.max(0.5, (100 * total) / max)}%`;
  const inner = h('div', { class: `bar-live${total > 0 && live / total < 0.5 ? ' low' : ''}` });
  inner.style.width = total > 0 ? `${(100 * live) / total}%` : '0';
  outer.append(inner);
  return h(
    'div',
    { class: 'bar-row', role: 'listitem', title: `${title ?? label}: ${groupDigits(live)} of ${groupDigits(total)} bytes live` },
    h('div', { class: 'bar-label' }, label, h('span', { class: 'hint' }, ` ${note}`)),
    h('div', { class: 'bar-track' }, outer),
    h('div', { class: 'bar-figures' }, `${humanBytes(live)} / ${humanBytes(total)}`, h('span', { class: 'ratio' }, percent(live, total))),
  );
}

function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i < 0 ? path : path.slice(i + 1);
}

function formatCreation(text: string): string {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : formatTime(date);
}
